// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Datasets made from another: its images as point sets (the catalogue's +pointsets), a subset
// of its items. (Was data/Transform.h.)

#include "core/data/Dataset.h"

#include <cstdint>
#include <vector>

namespace setscope::data {

/// Images as point sets: every pixel brighter than `threshold` (0..1 of full scale) becomes
/// a 2-D point (x = column, y = row, in pixels) weighted by its intensity (colour images by
/// their mean channel), the weights of each image normalised to sum 1 (EMDs then compare
/// intensity distributions; set sizes still differ from image to image). Works on datasets with image display data, and on plain
/// vector datasets whose dimension is a perfect square (read as square grey images with
/// values in 0..1). Labels, splits and images carry over (element text and graph edges do
/// not: the elements are new). Throws std::invalid_argument for
/// other datasets and InputError naming the item when an image has no pixel above the
/// threshold (an empty set).
Dataset imagesAsPointsets(const Dataset& ds, float threshold = 0.0f);

/// The items `items` of `ds` (in that order) as a new dataset, with their labels, splits
/// and display data (images, element text, graph edges).
Dataset subset(const Dataset& ds, const std::vector<std::int64_t>& items);

} // namespace setscope::data
