// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

// Model and loss interfaces. This header needs the LibTorch headers; loader-only plugins
// do not include it.

#include <torch/nn/module.h>
#include <torch/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace setscope::sdk {

/// A padded mini-batch of sets, all tensors on one device.
/// values: B x S x D float32; weights: B x S float32 (0 on padding); mask: B x S bool
/// (true on real elements). S is the largest set size in the batch.
struct SetBatch {
    torch::Tensor values;
    torch::Tensor weights;
    torch::Tensor mask;
};

/// Options for building an encoder: input dimension D, output dimension and free-form
/// key/value options (documented by each encoder).
struct EncoderSpec {
    std::int64_t inputDim = 0;
    std::int64_t outputDim = 64;
    std::map<std::string, std::string> options;
};

/// A set encoder f: set -> R^outputDim. Implementations derive from this and are
/// torch::nn::Modules (so parameters, to(device), save/load work as usual).
class SetEncoder : public torch::nn::Module {
public:
    /// Returns B x outputDim on the batch's device.
    virtual torch::Tensor forward(const SetBatch& batch) = 0;
    virtual std::int64_t outputDim() const = 0;
};

/// Result of a metric loss on one mini-batch.
struct LossOutput {
    torch::Tensor loss;               ///< scalar, differentiable
    std::int64_t terms = 0;           ///< pairs or triplets that entered the mean
    std::int64_t activeTerms = 0;     ///< of those, how many had a non-zero loss
};

struct LossSpec {
    /// Margin; a negative value means "the loss's documented default".
    double margin = -1.0;
    std::map<std::string, std::string> options;
};

/// A supervised metric loss on embeddings (B x E, any device) and integer labels (B,
/// int64, same device; rows labelled -1 are ignored).
class MetricLoss {
public:
    virtual ~MetricLoss() = default;
    virtual LossOutput compute(const torch::Tensor& embeddings, const torch::Tensor& labels) = 0;
};

} // namespace setscope::sdk
