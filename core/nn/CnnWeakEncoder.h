// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace setscope::nn {

/// The 6-layer CNN of seed 003 (weak metric learning, §4.3) for image items (width x height x
/// channels values per item, row-major, channels interleaved, as cnn-mnist reads them):
///   3 x [Conv(3x3, 16 / 32 / 64 filters, padding 1) - BatchNorm - ReLU - max-pool 2]
///   - FC(64 · h · w -> 128) - ReLU - FC(128 -> 64) - ReLU - FC(64 -> out)
/// The paper gives no padding; padding 1 keeps each convolution's size, so 28 x 28 images
/// become 14, 7 and 3 (floor) after the pools and the first FC layer sees 64 · 3 · 3 = 576
/// values. out is the run's embedding dimension (2 in the paper). Convolutions keep their bias.
/// A set of several images is pooled to its weighted mean image first (a plain image dataset
/// has sets of one). Options: width, height (0 = square: √(D / channels)), channels (1),
/// normalize (false: the paper's embedding is not normalised).
class CnnWeakEncoderImpl : public sdk::SetEncoder {
public:
    static constexpr const char* kName = "cnn-weak";
    static sdk::OptionSchema schema();
    /// Throws std::invalid_argument when inputDim is not width x height x channels or the image
    /// is smaller than the 8 x 8 the three pools need.
    explicit CnnWeakEncoderImpl(const sdk::EncoderSpec& spec);

    /// batch.values B x S x D -> B x outputDim, on the batch's device.
    torch::Tensor forward(const sdk::SetBatch& batch) override;
    std::int64_t outputDim() const override { return m_outputDim; }
    /// The three FC layers.
    bool resetHead() override;

private:
    torch::nn::Conv2d m_conv1{nullptr}, m_conv2{nullptr}, m_conv3{nullptr};
    torch::nn::BatchNorm2d m_bn1{nullptr}, m_bn2{nullptr}, m_bn3{nullptr};
    torch::nn::Linear m_fc1{nullptr}, m_fc2{nullptr}, m_fc3{nullptr};
    std::int64_t m_width = 0, m_height = 0, m_channels = 1;
    std::int64_t m_outputDim = 0;
    bool m_normalize = false;
};
TORCH_MODULE(CnnWeakEncoder);

/// The registry's entry "cnn-weak": name, one line of doc, CnnWeakEncoderImpl::schema() and its factory.
sdk::EncoderInfo cnnWeakEncoderInfo();

} // namespace setscope::nn
