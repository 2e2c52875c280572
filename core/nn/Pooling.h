// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>

#include <torch/nn/modules/container/sequential.h>
#include <torch/types.h>

#include <cstdint>
#include <vector>

namespace setscope::nn {

/// Sum over the real elements of each set: values B x S x D, mask B x S bool (true on real
/// elements), same device -> B x D. Padded slots contribute nothing whatever they hold
/// (NaN or inf too, in the value and in the gradient); a set without real elements sums to 0.
torch::Tensor maskedSum(const torch::Tensor& values, const torch::Tensor& mask);

/// Appends Linear(in, w) + ReLU for each width w to `net`; returns the last width (`in` when
/// `widths` is empty). The hidden layers of every MLP of the encoders (MLP, DeepSets φ and ρ,
/// the attention encoder's ρ).
std::int64_t appendReluLayers(torch::nn::Sequential& net, std::int64_t in, const std::vector<std::int64_t>& widths);

/// Fresh weights (LibTorch's default initialisation, from the default generator) for every
/// Linear layer inside `net`: the "ρ re-initialised" of fine-tuning (seed 001 §5), shared by
/// the encoders' resetHead().
void resetLinearLayers(torch::nn::Module& net);

/// The real-element mask of `batch` (true on real elements) as bool, all true when the batch has
/// none. Checks that values are B x S x inputDim and the mask B x S; `encoder` ("deepsets")
/// starts the message of the c10::Error thrown otherwise.
torch::Tensor realElementMask(const sdk::SetBatch& batch, std::int64_t inputDim, const char* encoder);

/// L2-normalised rows (eps 1e-12: a zero row stays zero instead of becoming NaN).
torch::Tensor normalizeRows(const torch::Tensor& x);

} // namespace setscope::nn
