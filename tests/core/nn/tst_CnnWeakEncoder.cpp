// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Seed 003's 6-layer CNN (encoder cnn-weak).
#include "core/nn/CnnWeakEncoder.h"

#include <torch/torch.h>

#include <QtTest>

using namespace setscope;

namespace {

sdk::EncoderSpec spec(std::int64_t inputDim, std::int64_t outputDim, const std::map<std::string, std::string>& options = {})
{
    sdk::EncoderSpec s;
    s.inputDim = inputDim;
    s.outputDim = outputDim;
    s.options = sdk::OptionValues::resolve(nn::CnnWeakEncoderImpl::schema(), options, "encoder cnn-weak");
    return s;
}

sdk::SetBatch asSets(const torch::Tensor& images) // B x D -> sets of one
{
    const auto b = images.size(0);
    return {images.unsqueeze(1), torch::ones({b, 1}), torch::ones({b, 1}, torch::kBool)};
}

std::int64_t parameterCount(torch::nn::Module& m)
{
    std::int64_t n = 0;
    for (const auto& p : m.parameters())
        n += p.numel();
    return n;
}

} // namespace

class TestCnnWeakEncoder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void architectureOfSeed003();
    void parameterCountByHand_data();
    void parameterCountByHand();
    void outputShape();
    void setsOfSeveralImagesArePooled();
    void badShapesRefused();
};

// Conv 3x3 with 16, 32, 64 filters, padding 1, each with BatchNorm; FC 64·3·3 -> 128 -> 64 -> out.
void TestCnnWeakEncoder::architectureOfSeed003()
{
    torch::manual_seed(1);
    nn::CnnWeakEncoder enc(spec(784, 2));
    std::vector<std::vector<std::int64_t>> shapes;
    for (const auto& p : enc->named_parameters())
        if (p.key().find("weight") != std::string::npos)
            shapes.push_back(p.value().sizes().vec());
    const std::vector<std::vector<std::int64_t>> expect{{16, 1, 3, 3}, {16},      {32, 16, 3, 3}, {32},   {64, 32, 3, 3},
                                                        {64},          {128, 576}, {64, 128},      {2, 64}};
    QCOMPARE(shapes, expect);
    // BatchNorm keeps running statistics (buffers, not parameters).
    QVERIFY(enc->named_buffers().contains("bn3.running_var"));
}

void TestCnnWeakEncoder::parameterCountByHand_data()
{
    QTest::addColumn<int>("side");
    QTest::addColumn<int>("channels");
    QTest::addColumn<int>("out");
    QTest::addColumn<qlonglong>("count");
    // conv1 1·16·9 + 16 = 160, bn1 2·16 = 32, conv2 16·32·9 + 32 = 4640, bn2 64,
    // conv3 32·64·9 + 64 = 18496, bn3 128, fc1 576·128 + 128 = 73856, fc2 128·64 + 64 = 8256,
    // fc3 64·2 + 2 = 130: 105762.
    QTest::newRow("28x28, out 2") << 28 << 1 << 2 << qlonglong(105762);
    // fc3 64·64 + 64 = 4160 instead of 130.
    QTest::newRow("28x28, out 64") << 28 << 1 << 64 << qlonglong(105762 - 130 + 4160);
    // 32 x 32 x 3 (CIFAR): conv1 3·16·9 + 16 = 448 (+288); 32 -> 16 -> 8 -> 4, fc1 1024·128 + 128 = 131200 (+57344).
    QTest::newRow("32x32x3, out 2") << 32 << 3 << 2 << qlonglong(105762 + 288 + 57344);
}

void TestCnnWeakEncoder::parameterCountByHand()
{
    QFETCH(int, side);
    QFETCH(int, channels);
    QFETCH(int, out);
    QFETCH(qlonglong, count);
    nn::CnnWeakEncoder enc(spec(side * side * channels, out, {{"channels", std::to_string(channels)}}));
    QCOMPARE(qlonglong(parameterCount(*enc)), count);
}

void TestCnnWeakEncoder::outputShape()
{
    torch::manual_seed(2);
    nn::CnnWeakEncoder enc(spec(784, 2));
    const torch::Tensor y = enc->forward(asSets(torch::rand({5, 784})));
    QCOMPARE(y.sizes().vec(), (std::vector<std::int64_t>{5, 2}));
    QVERIFY(torch::isfinite(y).all().item<bool>());
    // Not normalised by default (the paper's 2-d embedding); normalize=true gives unit rows.
    nn::CnnWeakEncoder unit(spec(784, 8, {{"normalize", "true"}}));
    unit->eval();
    const torch::Tensor u = unit->forward(asSets(torch::rand({3, 784})));
    QVERIFY(torch::allclose(u.norm(2, 1), torch::ones({3}), 1e-5, 1e-5));
    // A 20 x 10 image (width, height given): 20 -> 10 -> 5 -> 2 and 10 -> 5 -> 2 -> 1.
    nn::CnnWeakEncoder rect(spec(200, 3, {{"width", "20"}, {"height", "10"}}));
    QCOMPARE(rect->forward(asSets(torch::rand({2, 200}))).sizes().vec(), (std::vector<std::int64_t>{2, 3}));
}

// A set of two images is encoded as its weighted mean image.
void TestCnnWeakEncoder::setsOfSeveralImagesArePooled()
{
    torch::manual_seed(3);
    nn::CnnWeakEncoder enc(spec(64, 4));
    enc->eval();
    const torch::Tensor a = torch::rand({1, 64}), b = torch::rand({1, 64});
    const sdk::SetBatch pair{torch::stack({a[0], b[0]}).unsqueeze(0), torch::tensor({{1.0f, 3.0f}}),
                             torch::ones({1, 2}, torch::kBool)};
    const torch::Tensor mean = (a + 3 * b) / 4;
    QVERIFY(torch::allclose(enc->forward(pair), enc->forward(asSets(mean)), 1e-5, 1e-6));
}

void TestCnnWeakEncoder::badShapesRefused()
{
    // Vectors that are no square image (10-d: √10 is not an integer).
    try {
        nn::CnnWeakEncoder enc(spec(10, 2));
        QFAIL("10-d items accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("10-d items are not") && QString(e.what()).contains("image"), e.what());
    }
    // 6 x 6 images: too small for three pools.
    try {
        nn::CnnWeakEncoder enc(spec(36, 2));
        QFAIL("6 x 6 images accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("too small"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, nn::CnnWeakEncoder(spec(784, 2, {{"width", "27"}})));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, nn::CnnWeakEncoder(spec(784, 0)));
}

QTEST_GUILESS_MAIN(TestCnnWeakEncoder)
#include "tst_CnnWeakEncoder.moc"
