// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz target of the pairwise-matrix cache reader (see FuzzTargets.h).
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/ot/PairwiseMatrix.h"

#include <stdexcept>

namespace setscope::fuzz {

void pairwiseCache(const std::uint8_t* data, std::size_t size)
{
    const TempFile f(data, size, ".f32");
    try {
        const ot::PairwiseFileInfo info = ot::inspectPairwiseFile(f.path());
        // What the header promised must be inside the file.
        if (info.blockStarts.size() != info.blockDone.size() + 1)
            throw std::logic_error("block layout and done bits disagree");
    } catch (const std::runtime_error&) {
    }
    try {
        const auto m = ot::DistanceMatrix::open(f.path());
        float sum = 0;
        for (std::int64_t i = 0; i < m->size(); ++i)
            for (std::int64_t j = 0; j < m->size(); ++j)
                sum += m->at(i, j);
        (void)sum;
    } catch (const std::runtime_error&) {
    }
}

} // namespace setscope::fuzz
