// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/nn/CnnMnistEncoder.h"
#include "core/losses/AngularLoss.h"

#include <torch/torch.h>

#include <QtTest>

using namespace setscope;

namespace {

sdk::EncoderSpec spec(std::int64_t inputDim, std::int64_t outputDim, const std::map<std::string, std::string>& options = {})
{
    sdk::EncoderSpec s;
    s.inputDim = inputDim;
    s.outputDim = outputDim;
    s.options = sdk::OptionValues::resolve(nn::CnnMnistEncoderImpl::schema(), options, "encoder cnn-mnist");
    return s;
}

sdk::SetBatch asSets(const torch::Tensor& images) // B x 784 -> sets of one
{
    const auto b = images.size(0);
    return {images.unsqueeze(1), torch::ones({b, 1}), torch::ones({b, 1}, torch::kBool)};
}

/// Fashion-MNIST-like 28 x 28 images in [0, 1]: class 0 a horizontal bar, 1 a vertical bar,
/// 2 a hollow square, each shifted by up to 3 pixels, plus uniform noise.
torch::Tensor images(const std::vector<int>& classes, std::uint64_t seed)
{
    torch::Generator g = at::detail::createCPUGenerator(seed);
    torch::Tensor x = 0.2 * torch::rand({static_cast<std::int64_t>(classes.size()), 28, 28}, g);
    for (std::size_t i = 0; i < classes.size(); ++i) {
        const auto shift = torch::randint(-3, 4, {2}, g);
        const std::int64_t dy = shift[0].item<std::int64_t>(), dx = shift[1].item<std::int64_t>();
        auto img = x[static_cast<std::int64_t>(i)];
        if (classes[i] == 0)
            img.slice(0, 12 + dy, 16 + dy).slice(1, 4 + dx, 24 + dx).fill_(1.0);
        else if (classes[i] == 1)
            img.slice(0, 4 + dy, 24 + dy).slice(1, 12 + dx, 16 + dx).fill_(1.0);
        else {
            img.slice(0, 6 + dy, 22 + dy).slice(1, 6 + dx, 22 + dx).fill_(1.0);
            img.slice(0, 9 + dy, 19 + dy).slice(1, 9 + dx, 19 + dx).fill_(0.1);
        }
    }
    return x.reshape({static_cast<std::int64_t>(classes.size()), 784});
}

} // namespace

class TestCnnMnistEncoder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void architectureOfSeed004();
    void outputShapeAndNorm();
    void badShapesRefused();
    void fewStepsReduceTheLoss();
};

void TestCnnMnistEncoder::architectureOfSeed004()
{
    // Conv1(5x5, 20) - pool - Conv2(5x5, 50) - pool - Conv3(4x4, 500) - ReLU - FC(500 -> 128).
    torch::manual_seed(1);
    nn::CnnMnistEncoder enc(spec(784, 128));
    std::vector<std::vector<std::int64_t>> shapes;
    for (const auto& p : enc->named_parameters())
        if (p.key().find("weight") != std::string::npos)
            shapes.push_back(p.value().sizes().vec());
    const std::vector<std::vector<std::int64_t>> expect{{20, 1, 5, 5}, {50, 20, 5, 5}, {500, 50, 4, 4}, {128, 500}};
    QCOMPARE(shapes, expect);
}

void TestCnnMnistEncoder::outputShapeAndNorm()
{
    torch::manual_seed(2);
    nn::CnnMnistEncoder enc(spec(784, 128));
    const torch::Tensor y = enc->forward(asSets(images({0, 1, 2, 0, 1}, 3)));
    QCOMPARE(y.sizes().vec(), (std::vector<std::int64_t>{5, 128}));
    QVERIFY(torch::allclose(y.norm(2, 1), torch::ones({5}), 1e-5, 1e-5));
    // Larger and colour images: 32 x 32 x 3 flattens 500 x 2 x 2 into the FC layer.
    nn::CnnMnistEncoder rgb(spec(32 * 32 * 3, 16, {{"channels", "3"}}));
    const torch::Tensor c = rgb->forward(asSets(torch::rand({2, 32 * 32 * 3})));
    QCOMPARE(c.sizes().vec(), (std::vector<std::int64_t>{2, 16}));
    // A set of several images is its weighted mean image.
    const torch::Tensor two = images({0, 1}, 4);
    const sdk::SetBatch set{two.unsqueeze(0), torch::ones({1, 2}), torch::ones({1, 2}, torch::kBool)};
    enc->eval();
    QVERIFY(torch::allclose(enc->forward(set), enc->forward(asSets(two.mean(0, true))), 1e-5, 1e-6));
}

void TestCnnMnistEncoder::badShapesRefused()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, nn::CnnMnistEncoder(spec(783, 8)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, nn::CnnMnistEncoder(spec(12 * 12, 8)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, nn::CnnMnistEncoder(spec(784, 8, {{"width", "28"}, {"height", "27"}})));
}

void TestCnnMnistEncoder::fewStepsReduceTheLoss()
{
    // The angular loss (seed 004 Eq. 3, L 128 -> 64 as the paper) on class triplets of the
    // 28 x 28 images: 30 Adam steps at lr 1e-3 lower it on a held-out batch.
    torch::manual_seed(3);
    nn::CnnMnistEncoder enc(spec(784, 128));
    const torch::Tensor l = losses::initialOrthogonal(128, 64, 0);
    auto triplets = [](std::uint64_t seed) {
        std::vector<int> a, p, n;
        for (int i = 0; i < 30; ++i) {
            a.push_back(i % 3);
            p.push_back(i % 3);
            n.push_back((i + 1 + i / 3 % 2) % 3);
        }
        return std::array<torch::Tensor, 3>{images(a, seed), images(p, seed + 1), images(n, seed + 2)};
    };
    auto lossOn = [&](const std::array<torch::Tensor, 3>& t) {
        return losses::angularLoss(enc->forward(asSets(t[0])), enc->forward(asSets(t[1])), enc->forward(asSets(t[2])), l, 40.0);
    };
    const auto heldOut = triplets(100);
    const double before = lossOn(heldOut).item<double>();
    torch::optim::Adam opt(enc->parameters(), torch::optim::AdamOptions(1e-3));
    for (int step = 0; step < 30; ++step) {
        opt.zero_grad();
        lossOn(triplets(static_cast<std::uint64_t>(10 * step))).backward();
        opt.step();
    }
    const double after = lossOn(heldOut).item<double>();
    std::printf("angular loss on held-out triplets: %.4f before, %.4f after 30 steps\n", before, after);
    QVERIFY(after < 0.8 * before);
}

QTEST_GUILESS_MAIN(TestCnnMnistEncoder)
#include "tst_CnnMnistEncoder.moc"
