// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Dataset.h"
#include "core/nn/Collate.h"
#include "core/nn/MlpEncoder.h"

#include <torch/torch.h>

#include <QtTest>

using namespace setscope;

class TestMlpEncoder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void architectureOfSeed003();
    void customHiddenAndBadOptions();
    void forwardShapesAndNorm_data();
    void forwardShapesAndNorm();
    void setOfOneEqualsVector();
    void weightedMeanPooling();
    void collatePadsSets();
};

void TestMlpEncoder::architectureOfSeed003()
{
    // d-128-128-64-64-out with ReLU between layers (seed 003 §4.3).
    sdk::EncoderSpec spec;
    spec.inputDim = 784;
    spec.outputDim = 2;
    nn::MlpEncoder enc(spec);
    std::vector<std::vector<std::int64_t>> shapes;
    for (const auto& p : enc->named_parameters())
        if (p.key().find("weight") != std::string::npos)
            shapes.push_back(p.value().sizes().vec());
    const std::vector<std::vector<std::int64_t>> expect{{128, 784}, {128, 128}, {64, 128}, {64, 64}, {2, 64}};
    QCOMPARE(shapes, expect);
    // Order of the layers: Linear, ReLU, Linear, ReLU, ..., Linear (no ReLU after the last).
    std::string order;
    for (const auto& m : enc->modules(false)) {
        if (dynamic_cast<torch::nn::LinearImpl*>(m.get()))
            order += 'L';
        else if (dynamic_cast<torch::nn::ReLUImpl*>(m.get()))
            order += 'R';
    }
    QCOMPARE(QString::fromStdString(order), QString("LRLRLRLRL"));
}

void TestMlpEncoder::customHiddenAndBadOptions()
{
    auto spec = [](const std::map<std::string, std::string>& options) {
        sdk::EncoderSpec s;
        s.inputDim = 5;
        s.outputDim = 3;
        s.options = sdk::OptionValues::resolve(nn::MlpEncoderImpl::schema(), options, "encoder mlp");
        return s;
    };
    nn::MlpEncoder enc(spec({{"hidden", "7"}}));
    QCOMPARE(enc->hidden(), std::vector<std::int64_t>{7});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, spec({{"hidden", "7,x"}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, spec({{"hidden", "8"}, {"normalize", "maybe"}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, spec({{"hiden", "8"}}));
}

void TestMlpEncoder::forwardShapesAndNorm_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("normalize");
    QTest::newRow("cpu normalized") << "cpu" << true;
    QTest::newRow("cpu raw") << "cpu" << false;
    if (torch::cuda::is_available())
        QTest::newRow("cuda:0 normalized") << "cuda:0" << true;
}

void TestMlpEncoder::forwardShapesAndNorm()
{
    QFETCH(QString, device);
    QFETCH(bool, normalize);
    const torch::Device dev(device.toStdString());
    sdk::EncoderSpec spec;
    spec.inputDim = 6;
    spec.outputDim = 4;
    spec.options = sdk::OptionValues::resolve(nn::MlpEncoderImpl::schema(), {{"normalize", normalize ? "true" : "false"}}, "mlp");
    nn::MlpEncoder enc(spec);
    enc->to(dev);
    sdk::SetBatch b{torch::randn({5, 3, 6}, dev), torch::rand({5, 3}, dev) + 0.1, torch::ones({5, 3}, torch::TensorOptions(dev).dtype(torch::kBool))};
    const torch::Tensor y = enc->forward(b);
    QCOMPARE(y.sizes().vec(), (std::vector<std::int64_t>{5, 4}));
    QCOMPARE(y.device(), dev);
    const torch::Tensor norms = y.norm(2, 1).cpu();
    if (normalize)
        QVERIFY((norms - 1).abs().max().item<double>() < 1e-5);
    else
        QVERIFY((norms - 1).abs().max().item<double>() > 1e-3);
}

void TestMlpEncoder::setOfOneEqualsVector()
{
    sdk::EncoderSpec spec;
    spec.inputDim = 4;
    spec.outputDim = 3;
    nn::MlpEncoder enc(spec);
    const torch::Tensor x = torch::randn({2, 4});
    // As a set of one element (weight 2.5: the weight of a single element cancels out) ...
    const torch::Tensor a = enc->forward({x.unsqueeze(1), torch::full({2, 1}, 2.5), torch::ones({2, 1}, torch::kBool)});
    // ... and as a padded set of two where the second element has weight 0.
    const torch::Tensor padded = torch::cat({x.unsqueeze(1), torch::randn({2, 1, 4})}, 1);
    const torch::Tensor w = torch::tensor({{1.0f, 0.0f}, {1.0f, 0.0f}});
    const torch::Tensor b = enc->forward({padded, w, w > 0});
    QVERIFY((a - b).abs().max().item<double>() < 1e-6);
}

void TestMlpEncoder::weightedMeanPooling()
{
    // Set {(1,0) w=1, (0,4) w=3}: weighted mean = (1/4, 3).
    const torch::Tensor v = torch::tensor({1.0f, 0.0f, 0.0f, 4.0f}).reshape({1, 2, 2});
    const torch::Tensor w = torch::tensor({1.0f, 3.0f}).reshape({1, 2});
    const torch::Tensor m = nn::weightedMeanPool(v, w);
    QVERIFY(std::abs(m[0][0].item<double>() - 0.25) < 1e-7);
    QVERIFY(std::abs(m[0][1].item<double>() - 3.0) < 1e-7);
}

void TestMlpEncoder::collatePadsSets()
{
    data::DatasetBuilder b;
    b.setDimension(2);
    const float a[] = {1, 2, 3, 4, 5, 6};
    const float wa[] = {0.2f, 0.3f, 0.5f};
    const float c[] = {7, 8};
    b.addItem(a, wa, 3, data::Split::Train);
    b.addItem(c, nullptr, 1, data::Split::Train);
    const data::Dataset ds = b.finish();
    const sdk::SetBatch batch = nn::collate(ds, {1, 0}, torch::kCPU);
    QCOMPARE(batch.values.sizes().vec(), (std::vector<std::int64_t>{2, 3, 2}));
    QCOMPARE(batch.values[0][0][1].item<float>(), 8.0f);
    QCOMPARE(batch.values[0][1][0].item<float>(), 0.0f); // padding
    QCOMPARE(batch.weights[0][1].item<float>(), 0.0f);
    QCOMPARE(batch.weights[1][2].item<float>(), 0.5f);
    QCOMPARE(batch.mask.sum().item<std::int64_t>(), std::int64_t(4));
    QCOMPARE(nn::collateLabels({5, 6}, {1, 0}, torch::kCPU)[0].item<std::int64_t>(), std::int64_t(6));
}

QTEST_GUILESS_MAIN(TestMlpEncoder)
#include "tst_MlpEncoder.moc"
