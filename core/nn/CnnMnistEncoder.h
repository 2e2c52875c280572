// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <setscope/sdk/Model.h>
#include <setscope/sdk/Registrar.h>

#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace setscope::nn {

/// The MNIST network of seed 004's implementation details (adapted from MatConvNet's), for
/// image items (a vector of width x height x channels values, row-major, channels
/// interleaved, as data::Dataset stores Fashion-MNIST: 784 values in [0, 1]):
///   Conv1(5x5, 20) - max-pool 2 - Conv2(5x5, 50) - max-pool 2 - Conv3(4x4, 500) - ReLU -
///   FC(500 -> out) - l2
/// On 28 x 28 the last convolution sees 4 x 4 and gives 1 x 1 x 500; larger images flatten
/// what it gives. The paper's out is 128 (--embedding-dim 128); its L (128 -> 64) is the
/// metric of the ssdml-angular loss, not part of the encoder. A set of several images is
/// pooled to its weighted mean image first (a plain image dataset has sets of one).
/// Options: width, height (0 = square: √(D / channels)), channels (1), normalize (true).
class CnnMnistEncoderImpl : public sdk::SetEncoder {
public:
    static constexpr const char* kName = "cnn-mnist";
    static sdk::OptionSchema schema();
    /// Throws std::invalid_argument when inputDim is not width x height x channels or the image
    /// is smaller than the 16 x 16 the three convolutions need.
    explicit CnnMnistEncoderImpl(const sdk::EncoderSpec& spec);

    /// batch.values B x S x D -> B x outputDim, on the batch's device.
    torch::Tensor forward(const sdk::SetBatch& batch) override;
    std::int64_t outputDim() const override { return m_outputDim; }
    /// The FC layer after the convolutions.
    bool resetHead() override;

private:
    torch::nn::Conv2d m_conv1{nullptr}, m_conv2{nullptr}, m_conv3{nullptr};
    torch::nn::Linear m_fc{nullptr};
    std::int64_t m_width = 0, m_height = 0, m_channels = 1;
    std::int64_t m_outputDim = 0;
    bool m_normalize = true;
};
TORCH_MODULE(CnnMnistEncoder);

/// The registry's entry "cnn-mnist": name, one line of doc, CnnMnistEncoderImpl::schema() and its factory.
sdk::EncoderInfo cnnMnistEncoderInfo();

} // namespace setscope::nn
