// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/CnnWeakEncoder.h"

#include "core/nn/MlpEncoder.h"

#include <torch/torch.h>

#include <cmath>
#include <stdexcept>
#include <string>

namespace setscope::nn {

sdk::OptionSchema CnnWeakEncoderImpl::schema()
{
    using sdk::OptionSpec;
    return {OptionSpec::integer("width", 0, 0, 1 << 16, "image width in pixels (0 = square images: √(D / channels))"),
            OptionSpec::integer("height", 0, 0, 1 << 16, "image height in pixels (0 = the width)"),
            OptionSpec::integer("channels", 1, 1, 64, "channels, interleaved per pixel"),
            OptionSpec::flag("normalize", false, "L2-normalise the output (the paper does not)")};
}

CnnWeakEncoderImpl::CnnWeakEncoderImpl(const sdk::EncoderSpec& spec)
{
    const sdk::OptionValues o = spec.options.orDefaults(schema(), "encoder cnn-weak");
    if (spec.inputDim <= 0 || spec.outputDim <= 0)
        throw std::invalid_argument("cnn-weak: input and output dimensions must be positive");
    m_channels = o.integer("channels");
    m_width = o.integer("width");
    m_height = o.integer("height");
    if (m_width == 0)
        m_width = std::llround(std::sqrt(static_cast<double>(spec.inputDim / m_channels)));
    if (m_height == 0)
        m_height = m_width;
    if (m_width * m_height * m_channels != spec.inputDim)
        throw std::invalid_argument("cnn-weak: " + std::to_string(spec.inputDim) + "-d items are not " +
                                    std::to_string(m_width) + " x " + std::to_string(m_height) + " x " +
                                    std::to_string(m_channels) +
                                    " images (the model reads image items; set the width, height and channels options)");
    // Padding 1 keeps the size through each 3x3 convolution; each pool halves it (floor).
    auto after = [](std::int64_t s) { return s / 2 / 2 / 2; };
    if (after(m_width) < 1 || after(m_height) < 1)
        throw std::invalid_argument("cnn-weak: " + std::to_string(m_width) + " x " + std::to_string(m_height) +
                                    " images are too small for its three pools (at least 8 x 8)");
    m_outputDim = spec.outputDim;
    m_normalize = o.flag("normalize");
    using torch::nn::Conv2dOptions;
    m_conv1 = register_module("conv1", torch::nn::Conv2d(Conv2dOptions(m_channels, 16, 3).padding(1)));
    m_bn1 = register_module("bn1", torch::nn::BatchNorm2d(16));
    m_conv2 = register_module("conv2", torch::nn::Conv2d(Conv2dOptions(16, 32, 3).padding(1)));
    m_bn2 = register_module("bn2", torch::nn::BatchNorm2d(32));
    m_conv3 = register_module("conv3", torch::nn::Conv2d(Conv2dOptions(32, 64, 3).padding(1)));
    m_bn3 = register_module("bn3", torch::nn::BatchNorm2d(64));
    m_fc1 = register_module("fc1", torch::nn::Linear(64 * after(m_width) * after(m_height), 128));
    m_fc2 = register_module("fc2", torch::nn::Linear(128, 64));
    m_fc3 = register_module("fc3", torch::nn::Linear(64, m_outputDim));
}

torch::Tensor CnnWeakEncoderImpl::forward(const sdk::SetBatch& batch)
{
    torch::Tensor x = batch.values.size(1) == 1 ? batch.values.squeeze(1) : weightedMeanPool(batch.values, batch.weights);
    // Row-major pixels with interleaved channels: B x H x W x C, then channels first.
    x = x.reshape({x.size(0), m_height, m_width, m_channels}).permute({0, 3, 1, 2}).contiguous();
    x = torch::max_pool2d(torch::relu(m_bn1->forward(m_conv1->forward(x))), 2);
    x = torch::max_pool2d(torch::relu(m_bn2->forward(m_conv2->forward(x))), 2);
    x = torch::max_pool2d(torch::relu(m_bn3->forward(m_conv3->forward(x))), 2).flatten(1);
    x = torch::relu(m_fc1->forward(x));
    x = torch::relu(m_fc2->forward(x));
    torch::Tensor y = m_fc3->forward(x);
    if (m_normalize)
        y = torch::nn::functional::normalize(y, torch::nn::functional::NormalizeFuncOptions().p(2).dim(1).eps(1e-12));
    return y;
}

bool CnnWeakEncoderImpl::resetHead()
{
    m_fc1->reset_parameters();
    m_fc2->reset_parameters();
    m_fc3->reset_parameters();
    return true;
}

sdk::EncoderInfo cnnWeakEncoderInfo()
{
    return {"cnn-weak",
            "seed 003's 6-layer CNN for images: 3 x [Conv(3x3, 16/32/64, padding 1) - BatchNorm - ReLU - pool 2] - "
        "FC 576-128-64-out with ReLU between (28 x 28 -> 14 -> 7 -> 3)",
            CnnWeakEncoderImpl::schema(),
            [](const sdk::EncoderSpec& spec) -> std::shared_ptr<sdk::SetEncoder> { return CnnWeakEncoder(spec).ptr(); }};
}

} // namespace setscope::nn
