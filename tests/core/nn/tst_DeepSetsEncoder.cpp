// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "EncoderTestUtil.h"

#include "core/data/Dataset.h"
#include "core/nn/Collate.h"
#include "core/nn/DeepSetsEncoder.h"

#include <torch/torch.h>

#include <QtTest>

using namespace setscope;
using testutil::maxAbsDiff;
using testutil::addDeviceRows;
using testutil::padSets;
using testutil::randomSets;
using testutil::spec;

namespace {

/// f(x) for one set (n x D) from the formula, element by element, in float64:
/// normalize(rho(sum_w phi(w))) with phi = (Linear, ReLU)*, rho = (Linear, ReLU)* Linear.
torch::Tensor referenceForward(nn::DeepSetsEncoderImpl& enc, const torch::Tensor& set)
{
    auto params = enc.named_parameters();
    auto p = [&](const std::string& name) { return params[name].detach().to(torch::kFloat64); };
    torch::Tensor sum = torch::zeros({enc.phiWidths().back()}, torch::kFloat64);
    for (std::int64_t i = 0; i < set.size(0); ++i) {
        torch::Tensor h = set[i].to(torch::kFloat64);
        for (std::size_t l = 0; l < enc.phiWidths().size(); ++l) {
            const std::string pre = "phi." + std::to_string(2 * l) + ".";
            h = torch::relu(p(pre + "weight").matmul(h) + p(pre + "bias"));
        }
        sum += h;
    }
    torch::Tensor y = sum;
    const std::size_t fcs = enc.rhoHidden().size() + 1;
    for (std::size_t i = 0; i < fcs; ++i) {
        const std::string pre = "rho." + std::to_string(2 * i) + ".";
        y = p(pre + "weight").matmul(y) + p(pre + "bias");
        if (i + 1 < fcs)
            y = torch::relu(y);
    }
    return (y / y.norm()).unsqueeze(0);
}

} // namespace

class TestDeepSetsEncoder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void parameterCount();
    void optionsAndBadOptions();
    void matchesHandWrittenForward();
    void orderInvariant_data();
    void orderInvariant();
    void paddingInvariant_data();
    void paddingInvariant();
    void collatedBatchMatchesSetsAlone();
    void emptyRowIsFinite();
    void gradientsReachEveryParameter();
    void input101Works();
};

void TestDeepSetsEncoder::initTestCase()
{
    torch::manual_seed(90);
}

void TestDeepSetsEncoder::parameterCount()
{
    // phi: d -> 256 -> 256, rho: 256 -> 256 -> 64; weights and biases.
    for (std::int64_t d : {301, 101}) {
        nn::DeepSetsEncoder enc(spec<nn::DeepSetsEncoderImpl>(d));
        const std::int64_t expected = (d * 256 + 256) + (256 * 256 + 256) + (256 * 256 + 256) + (256 * 64 + 64);
        QCOMPARE(testutil::parameterCount(*enc), expected);
    }
    // At 301: 77 312 + 65 792 + 65 792 + 16 448 (the figure in DeepSetsEncoder.h).
    QCOMPARE(testutil::parameterCount(*nn::DeepSetsEncoder(spec<nn::DeepSetsEncoderImpl>(301))), std::int64_t(225344));
}

void TestDeepSetsEncoder::optionsAndBadOptions()
{
    nn::DeepSetsEncoder enc(spec<nn::DeepSetsEncoderImpl>(5, {{"phi", "7,3"}, {"rho", ""}}));
    QCOMPARE(enc->phiWidths(), (std::vector<std::int64_t>{7, 3}));
    QVERIFY(enc->rhoHidden().empty());
    QCOMPARE(testutil::parameterCount(*enc), std::int64_t((5 * 7 + 7) + (7 * 3 + 3) + (3 * 64 + 64)));
    const std::vector<std::pair<std::string, std::string>> bad{
        {"phi", ""}, {"phi", "8,x"}, {"phi", "-8"}, {"rho", "4,"}, {"hidden", "8"}};
    for (const auto& [key, value] : bad) {
        const std::string msg = testutil::invalidArgumentMessage([&] { nn::DeepSetsEncoder{spec<nn::DeepSetsEncoderImpl>(5, {{key, value}})}; });
        QVERIFY2(msg.find("deepsets") != std::string::npos && (msg.find("'" + key + "'") != std::string::npos || msg.find("option " + key + "=") != std::string::npos),
                 (key + "=" + value + " -> '" + msg + "'").c_str());
    }
}

void TestDeepSetsEncoder::matchesHandWrittenForward()
{
    nn::DeepSetsEncoder enc(spec<nn::DeepSetsEncoderImpl>(6, {{"phi", "9,5"}, {"rho", "7"}}));
    const std::vector<torch::Tensor> sets = randomSets({4, 1, 6}, 6);
    const torch::Tensor got = enc->forward(padSets(sets, 6, 8, true, torch::kCPU));
    for (std::size_t i = 0; i < sets.size(); ++i)
        QVERIFY(maxAbsDiff(got[static_cast<std::int64_t>(i)].unsqueeze(0), referenceForward(*enc, sets[i])) < 1e-5);
}

void TestDeepSetsEncoder::orderInvariant_data()
{
    addDeviceRows();
}

void TestDeepSetsEncoder::orderInvariant()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    nn::DeepSetsEncoder enc(spec<nn::DeepSetsEncoderImpl>(301));
    enc->to(dev);
    enc->eval();
    const std::vector<torch::Tensor> sets = randomSets({9, 4, 1, 7, 9}, 301);
    std::vector<torch::Tensor> permuted;
    for (const torch::Tensor& s : sets)
        permuted.push_back(s.index_select(0, torch::randperm(s.size(0))));
    QVERIFY(maxAbsDiff(permuted[0], sets[0]) > 0.1);
    const torch::Tensor a = enc->forward(padSets(sets, 301, 9, false, dev));
    const torch::Tensor b = enc->forward(padSets(permuted, 301, 9, false, dev));
    QCOMPARE(a.device(), dev);
    QVERIFY2(maxAbsDiff(a, b) < 1e-5, qPrintable(QString::number(maxAbsDiff(a, b))));
    QVERIFY(maxAbsDiff(a.norm(2, 1) - 1, torch::zeros({5})) < 1e-5);
    QVERIFY(maxAbsDiff(a[0], a[1]) > 1e-3);
}

void TestDeepSetsEncoder::paddingInvariant_data()
{
    addDeviceRows();
}

void TestDeepSetsEncoder::paddingInvariant()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    nn::DeepSetsEncoder enc(spec<nn::DeepSetsEncoderImpl>(301));
    enc->to(dev);
    const std::vector<torch::Tensor> sets = randomSets({3, 8, 1, 5}, 301);
    const torch::Tensor alone = testutil::encodeEachAlone(*enc, sets, 301, dev);
    std::vector<torch::Tensor> withLong = sets;
    withLong.push_back(torch::randn({40, 301}));
    for (const auto& [batch, what] : {std::pair{padSets(sets, 301, 8, false, dev), "to the longest"},
                                      std::pair{padSets(sets, 301, 20, false, dev), "zeros to 20"},
                                      std::pair{padSets(sets, 301, 31, true, dev), "garbage to 31"},
                                      std::pair{padSets(withLong, 301, 40, false, dev), "beside 40"}}) {
        const torch::Tensor y = enc->forward(batch).narrow(0, 0, 4);
        QVERIFY2(maxAbsDiff(y, alone) < 1e-5, qPrintable(QString("%1: %2").arg(what).arg(maxAbsDiff(y, alone))));
    }
}

void TestDeepSetsEncoder::collatedBatchMatchesSetsAlone()
{
    data::DatasetBuilder b;
    b.setDimension(301);
    for (std::int64_t n : {6, 1, 13}) {
        const torch::Tensor v = torch::randn({n, 301});
        b.addItem(v.data_ptr<float>(), nullptr, static_cast<std::size_t>(n), data::Split::Train);
    }
    const data::Dataset ds = b.finish();
    nn::DeepSetsEncoder enc(spec<nn::DeepSetsEncoderImpl>(301));
    const torch::Tensor together = enc->forward(nn::collate(ds, {0, 1, 2}, torch::kCPU));
    for (std::int64_t i = 0; i < 3; ++i)
        QVERIFY(maxAbsDiff(together[i].unsqueeze(0), enc->forward(nn::collate(ds, {i}, torch::kCPU))) < 1e-5);
}

void TestDeepSetsEncoder::emptyRowIsFinite()
{
    nn::DeepSetsEncoder enc(spec<nn::DeepSetsEncoderImpl>(301));
    const torch::Tensor y = enc->forward(padSets({torch::randn({2, 301}), torch::zeros({0, 301})}, 301, 2, true, torch::kCPU));
    QVERIFY(torch::isfinite(y).all().item<bool>());
    // The empty sum: normalize(rho(0)), by hand.
    auto params = enc->named_parameters();
    torch::Tensor r = torch::zeros({256}, torch::kFloat64);
    r = torch::relu(params["rho.0.weight"].detach().to(torch::kFloat64).matmul(r) + params["rho.0.bias"].detach().to(torch::kFloat64));
    r = params["rho.2.weight"].detach().to(torch::kFloat64).matmul(r) + params["rho.2.bias"].detach().to(torch::kFloat64);
    QVERIFY(maxAbsDiff(y[1], r / r.norm()) < 1e-5);
}

void TestDeepSetsEncoder::gradientsReachEveryParameter()
{
    nn::DeepSetsEncoder enc(spec<nn::DeepSetsEncoderImpl>(301));
    const sdk::SetBatch batch =
        padSets({torch::randn({5, 301}), torch::randn({1, 301}), torch::zeros({0, 301})}, 301, 5, true, torch::kCPU);
    const torch::Tensor z = enc->forward(batch);
    (z * torch::randn_like(z)).sum().backward();
    for (const auto& p : enc->named_parameters()) {
        const torch::Tensor& g = p.value().grad();
        QVERIFY2(g.defined(), p.key().c_str());
        QVERIFY2(torch::isfinite(g).all().item<bool>(), p.key().c_str());
        QVERIFY2(g.abs().sum().item<double>() > 0, p.key().c_str());
    }
}

void TestDeepSetsEncoder::input101Works()
{
    nn::DeepSetsEncoder enc(spec<nn::DeepSetsEncoderImpl>(101));
    const std::vector<torch::Tensor> sets = randomSets({4, 2, 7}, 101);
    const torch::Tensor y = enc->forward(padSets(sets, 101, 7, false, torch::kCPU));
    QCOMPARE(y.sizes().vec(), (std::vector<std::int64_t>{3, 64}));
    QVERIFY(maxAbsDiff(y.norm(2, 1) - 1, torch::zeros({3})) < 1e-5);
    QVERIFY(maxAbsDiff(y, testutil::encodeEachAlone(*enc, sets, 101, torch::kCPU)) < 1e-5);
}

QTEST_GUILESS_MAIN(TestDeepSetsEncoder)
#include "tst_DeepSetsEncoder.moc"
