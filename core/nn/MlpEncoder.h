// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/pimpl.h>

#include <vector>

namespace setscope::nn {

/// The fully connected encoder of Weak Metric Learning (seed 003 §4.3):
/// d-128-128-64-64-out with ReLU between layers (none after the last).
/// A set is first pooled to one d-vector by its weighted mean (sum_i w_i x_i / sum_i w_i),
/// so a plain vector (a set of one) goes through unchanged: one code path for both.
/// Options (EncoderSpec::options):
///   hidden    = "128,128,64,64"  hidden widths
///   normalize = "true"           L2-normalise the output (FaceNet's unit hypersphere)
class MlpEncoderImpl : public sdk::SetEncoder {
public:
    static constexpr const char* kName = "mlp";
    static sdk::OptionSchema schema();
    explicit MlpEncoderImpl(const sdk::EncoderSpec& spec);

    /// batch.values B x S x D, batch.weights B x S -> B x outputDim, on the batch's device.
    torch::Tensor forward(const sdk::SetBatch& batch) override;
    std::int64_t outputDim() const override { return m_outputDim; }

    const std::vector<std::int64_t>& hidden() const { return m_hidden; }
    bool normalizes() const { return m_normalize; }

private:
    torch::nn::Sequential m_net{nullptr};
    std::vector<std::int64_t> m_hidden;
    std::int64_t m_outputDim = 0;
    bool m_normalize = true;
};
TORCH_MODULE(MlpEncoder);

/// Weighted mean of each set: B x S x D, B x S -> B x D.
torch::Tensor weightedMeanPool(const torch::Tensor& values, const torch::Tensor& weights);

/// The registry's entry "mlp": name, one line of doc, MlpEncoderImpl::schema() and its factory.
sdk::EncoderInfo mlpEncoderInfo();

} // namespace setscope::nn
