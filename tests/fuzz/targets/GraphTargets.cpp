// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz targets of the graph readers: TUDataset, SDF (see FuzzTargets.h).
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/data/Dataset.h"
#include "core/data/graph/Sdf.h"
#include "core/data/graph/TuDataset.h"

#include <setscope/sdk/Errors.h>

namespace setscope::fuzz {

void tuDataset(const std::uint8_t* data, std::size_t size)
{
    const TempDir dir("tud");
    static const char* const kFiles[] = {"DS_A.txt", "DS_graph_indicator.txt", "DS_graph_labels.txt",
                                         "DS_node_labels.txt", "DS_node_attributes.txt"};
    const auto parts = splitInput(data, size, 5);
    for (std::size_t i = 0; i < parts.size(); ++i)
        if (i < 2 || parts[i].data()) // the optional files only when the input has them
            dir.write(kFiles[i], parts[i]);
    data::GraphOptions o;
    o.folds = 2;
    // A byte of the input picks the representation (so both are fuzzed).
    o.representation = size > 0 && (data[size - 1] & 1) ? data::GraphRepresentation::Adjacency
                                                        : data::GraphRepresentation::Features;
    try {
        data::DatasetBuilder b(dir.path());
        data::loadTuDataset(dir.path(), b, o);
        const data::Dataset ds = b.finish();
        (void)ds;
    } catch (const sdk::InputError&) {
    }
}

void sdf(const std::uint8_t* data, std::size_t size)
{
    const TempFile f(data, size, ".sdf");
    data::GraphOptions o;
    o.folds = 2;
    try {
        data::DatasetBuilder b(f.path());
        data::loadSdf(f.path(), b, o);
        const data::Dataset ds = b.finish();
        (void)ds;
    } catch (const sdk::InputError&) {
    }
    o.classProperty = "ACTIVITY";
    o.threshold = 6.0;
    try {
        const data::GraphCollection g = data::readSdf(f.path(), o);
        (void)g;
    } catch (const sdk::InputError&) {
    }
}

} // namespace setscope::fuzz
