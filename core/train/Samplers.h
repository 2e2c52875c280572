// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Registrar.h>

namespace setscope::train {

/// The built-in samplers (registered by the builtin plugin). Torch-free.
///  - class-balanced: batches of `classes` classes x `per-class` items (FaceNet-style, so every
///    anchor of a supervised loss has positives); needs labels.
///  - random: the pool shuffled each epoch and cut into batches of `batch-size` (the last,
///    shorter batch is kept when it has at least two sets): the papers' self-supervised batches.
///  - size-bucketed: like random, but sets of similar size share a batch (nn::SizeBuckets:
///    shuffled chunks of `chunk-batches` batches sorted by size), so the attention encoder pads
///    less; the padding share is reported at the start of each stage.
sdk::SamplerInfo classBalancedSamplerInfo();
sdk::SamplerInfo randomSamplerInfo();
sdk::SamplerInfo sizeBucketedSamplerInfo();

} // namespace setscope::train
