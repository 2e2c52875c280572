// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Reference cross-entropy of a linear classifier in plain loops, for the Exemplar and CE tests.

#include "LossTestUtil.h"

#include <torch/nn/modules/linear.h>

#include <cmath>

namespace setscope::losstest {

/// Sets the classifier's weight (K x E) and bias (K) to the given values.
inline void setClassifier(const torch::nn::Linear& lin, const Matrix& weight, const std::vector<double>& bias)
{
    torch::NoGradGuard noGrad;
    lin->weight.copy_(tensorOf(weight));
    lin->bias.copy_(tensorOf({bias}).squeeze(0));
}

/// -log softmax(W x + b)[target] in double.
inline double crossEntropy(const Matrix& weight, const std::vector<double>& bias, const std::vector<double>& x,
                           std::int64_t target)
{
    std::vector<double> logits(weight.size());
    double top = -1e300;
    for (std::size_t k = 0; k < weight.size(); ++k) {
        logits[k] = bias[k];
        for (std::size_t j = 0; j < x.size(); ++j)
            logits[k] += weight[k][j] * x[j];
        top = std::max(top, logits[k]);
    }
    double z = 0;
    for (double l : logits)
        z += std::exp(l - top);
    return top + std::log(z) - logits[std::size_t(target)];
}

} // namespace setscope::losstest
