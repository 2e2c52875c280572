// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// A weighted set a test owns, seen as the OT engine (ot::PointSet) and the SDK (sdk::SetRef)
// see sets: shared by the augmentation and batch-transport tests.

#include "core/ot/PointSet.h"

#include <setscope/sdk/Sets.h>

#include <cstdint>
#include <vector>

namespace setscope::testutil {

struct Set {
    std::vector<float> p, w; ///< n x d points (row-major) and n weights
    int d = 0;
    std::int64_t n() const { return static_cast<std::int64_t>(w.size()); }
    ot::PointSet view() const { return {p.data(), w.data(), n(), d}; }
    sdk::SetRef ref() const { return {p.data(), w.data(), n(), d}; }
    const float* row(std::int64_t i) const { return p.data() + i * d; }
};

/// Views of `sets` (valid while they live).
inline std::vector<sdk::SetRef> refs(const std::vector<Set>& sets)
{
    std::vector<sdk::SetRef> r;
    for (const Set& s : sets)
        r.push_back(s.ref());
    return r;
}

} // namespace setscope::testutil
