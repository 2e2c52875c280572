// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/CnnMnistEncoder.h"

#include "core/nn/MlpEncoder.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace setscope::nn {

sdk::OptionSchema CnnMnistEncoderImpl::schema()
{
    using sdk::OptionSpec;
    return {OptionSpec::integer("width", 0, 0, 1 << 16, "image width in pixels (0 = square images: √(D / channels))"),
            OptionSpec::integer("height", 0, 0, 1 << 16, "image height in pixels (0 = the width)"),
            OptionSpec::integer("channels", 1, 1, 64, "channels, interleaved per pixel"),
            OptionSpec::flag("normalize", true, "L2-normalise the output (seed 004: l2 before L)")};
}

CnnMnistEncoderImpl::CnnMnistEncoderImpl(const sdk::EncoderSpec& spec)
{
    const sdk::OptionValues o = spec.options.orDefaults(schema(), "encoder cnn-mnist");
    if (spec.inputDim <= 0 || spec.outputDim <= 0)
        throw std::invalid_argument("cnn-mnist: input and output dimensions must be positive");
    m_channels = o.integer("channels");
    m_width = o.integer("width");
    m_height = o.integer("height");
    if (m_width == 0) {
        m_width = std::llround(std::sqrt(static_cast<double>(spec.inputDim / m_channels)));
        if (m_height == 0)
            m_height = m_width;
    } else if (m_height == 0) {
        m_height = m_width;
    }
    if (m_width * m_height * m_channels != spec.inputDim)
        throw std::invalid_argument("cnn-mnist: " + std::to_string(spec.inputDim) + "-d items are not " +
                                    std::to_string(m_width) + " x " + std::to_string(m_height) + " x " +
                                    std::to_string(m_channels) + " images (set the width, height and channels options)");
    // 5x5 conv, pool 2, 5x5 conv, pool 2, 4x4 conv: the smallest input is 16 x 16.
    auto after = [](std::int64_t s) { return ((s - 4) / 2 - 4) / 2 - 3; };
    if (after(m_width) < 1 || after(m_height) < 1)
        throw std::invalid_argument("cnn-mnist: " + std::to_string(m_width) + " x " + std::to_string(m_height) +
                                    " images are too small for its three convolutions (at least 16 x 16)");
    m_outputDim = spec.outputDim;
    m_normalize = o.flag("normalize");
    m_conv1 = register_module("conv1", torch::nn::Conv2d(torch::nn::Conv2dOptions(m_channels, 20, 5)));
    m_conv2 = register_module("conv2", torch::nn::Conv2d(torch::nn::Conv2dOptions(20, 50, 5)));
    m_conv3 = register_module("conv3", torch::nn::Conv2d(torch::nn::Conv2dOptions(50, 500, 4)));
    m_fc = register_module("fc", torch::nn::Linear(500 * after(m_width) * after(m_height), m_outputDim));
}

torch::Tensor CnnMnistEncoderImpl::forward(const sdk::SetBatch& batch)
{
    torch::Tensor x = batch.values.size(1) == 1 ? batch.values.squeeze(1) : weightedMeanPool(batch.values, batch.weights);
    // Row-major pixels with interleaved channels: B x H x W x C, then channels first.
    x = x.reshape({x.size(0), m_height, m_width, m_channels}).permute({0, 3, 1, 2}).contiguous();
    x = torch::max_pool2d(m_conv1->forward(x), 2);
    x = torch::max_pool2d(m_conv2->forward(x), 2);
    x = torch::relu(m_conv3->forward(x)).flatten(1);
    torch::Tensor y = m_fc->forward(x);
    if (m_normalize)
        y = torch::nn::functional::normalize(y, torch::nn::functional::NormalizeFuncOptions().p(2).dim(1).eps(1e-12));
    return y;
}

bool CnnMnistEncoderImpl::resetHead()
{
    m_fc->reset_parameters();
    return true;
}

sdk::EncoderInfo cnnMnistEncoderInfo()
{
    return {"cnn-mnist",
            "seed 004's MNIST network for 28 x 28 images: Conv(5x5, 20) - pool - Conv(5x5, 50) - pool - "
        "Conv(4x4, 500) - ReLU - FC(500 -> out) - l2",
            CnnMnistEncoderImpl::schema(),
            [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> { return CnnMnistEncoder(spec).ptr(); }};
}

} // namespace setscope::nn
