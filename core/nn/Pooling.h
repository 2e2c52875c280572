// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <torch/types.h>

namespace setscope::nn {

/// Sum over the real elements of each set: values B x S x D, mask B x S bool (true on real
/// elements), same device -> B x D. Padded slots contribute nothing whatever they hold
/// (NaN or inf too, in the value and in the gradient); a set without real elements sums to 0.
torch::Tensor maskedSum(const torch::Tensor& values, const torch::Tensor& mask);

/// L2-normalised rows (eps 1e-12: a zero row stays zero instead of becoming NaN).
torch::Tensor normalizeRows(const torch::Tensor& x);

} // namespace setscope::nn
