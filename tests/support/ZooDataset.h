// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// The six-item dataset of the label-mapping tests (tests/core/data, tests/core/project).

#include "core/data/Dataset.h"

namespace testutil {

/// Six one-element items with fine labels {cat, dog, trout, salmon, -, dog}.
inline setscope::data::Dataset zooDataset()
{
    using namespace setscope;
    data::DatasetBuilder b("zoo");
    b.setName("zoo");
    b.setDimension(1);
    const float w[] = {1};
    for (int i = 0; i < 6; ++i) {
        const float v[] = {float(i)};
        b.addItem(v, w, 1, data::Split::Train);
    }
    data::LabelSet fine;
    fine.name = "fine";
    fine.classNames = {"cat", "dog", "trout", "salmon"};
    fine.labels = {0, 1, 2, 3, -1, 1};
    return b.finish().withLabelSet(fine);
}

} // namespace testutil
