// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "EncoderTestUtil.h"

#include "core/data/Dataset.h"
#include "core/nn/Collate.h"
#include "core/nn/SelfAttentionEncoder.h"

#include <torch/torch.h>

#include <QtTest>

#include <cmath>

using namespace setscope;
using testutil::maxAbsDiff;
using testutil::addDeviceRows;
using testutil::padSets;
using testutil::randomSets;
using testutil::spec;

namespace {

torch::Tensor layerNorm(const torch::Tensor& x, const torch::Tensor& g, const torch::Tensor& b)
{
    const torch::Tensor mu = x.mean(1, true);
    const torch::Tensor var = (x - mu).pow(2).mean(1, true);
    return (x - mu) / torch::sqrt(var + 1e-5) * g + b;
}

/// f(x) for one set (n x D) written out from the formulas (post-norm Transformer encoder
/// layers, ReLU feed-forward, sum, rho, L2), in float64, reading the encoder's parameters by
/// name: an implementation that shares no code with LibTorch's modules.
torch::Tensor referenceForward(nn::SelfAttentionEncoderImpl& enc, const torch::Tensor& set)
{
    auto params = enc.named_parameters();
    auto p = [&](const std::string& name) { return params[name].detach().to(torch::kFloat64); };
    torch::Tensor x = set.to(torch::kFloat64);
    if (enc.projects())
        x = x.matmul(p("project.weight").t()) + p("project.bias");
    const std::int64_t d = x.size(1);
    const std::int64_t dh = d / enc.heads();
    for (std::int64_t l = 0; l < enc.layers(); ++l) {
        const std::string pre = "encoder.layers." + std::to_string(l) + ".";
        const torch::Tensor qkv = x.matmul(p(pre + "self_attn.in_proj_weight").t()) + p(pre + "self_attn.in_proj_bias");
        torch::Tensor att = torch::zeros_like(x);
        for (std::int64_t h = 0; h < enc.heads(); ++h) {
            const torch::Tensor q = qkv.slice(1, h * dh, (h + 1) * dh);
            const torch::Tensor k = qkv.slice(1, d + h * dh, d + (h + 1) * dh);
            const torch::Tensor v = qkv.slice(1, 2 * d + h * dh, 2 * d + (h + 1) * dh);
            const torch::Tensor a = torch::softmax(q.matmul(k.t()) / std::sqrt(static_cast<double>(dh)), 1);
            att.slice(1, h * dh, (h + 1) * dh).copy_(a.matmul(v));
        }
        const torch::Tensor o = att.matmul(p(pre + "self_attn.out_proj.weight").t()) + p(pre + "self_attn.out_proj.bias");
        x = layerNorm(x + o, p(pre + "norm1.weight"), p(pre + "norm1.bias"));
        const torch::Tensor f =
            torch::relu(x.matmul(p(pre + "linear1.weight").t()) + p(pre + "linear1.bias")).matmul(p(pre + "linear2.weight").t()) +
            p(pre + "linear2.bias");
        x = layerNorm(x + f, p(pre + "norm2.weight"), p(pre + "norm2.bias"));
    }
    torch::Tensor y = x.sum(0);
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

class TestSelfAttentionEncoder : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void parameterCountPaper301();
    void parameterCountProjected101();
    void architectureAndOptions();
    void badOptionsNameTheKey();
    void matchesHandWrittenForward();
    void orderInvariant_data();
    void orderInvariant();
    void paddingInvariant_data();
    void paddingInvariant();
    void collatedBatchMatchesSetsAlone();
    void setOfOneAndFullLengthBatch();
    void emptyRowIsFinite();
    void gradientsReachEveryParameter();
    void groupedRunIsTheSameFunction();
    void input101Works();
};

void TestSelfAttentionEncoder::initTestCase()
{
    torch::manual_seed(9);
}

void TestSelfAttentionEncoder::parameterCountPaper301()
{
    nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(301));
    QVERIFY(!enc->projects());
    // One Transformer encoder layer of width d with feed-forward ff:
    //   self-attention in-projection (Q, K, V): 3 d x d weights + 3 d biases
    //   out-projection: d x d + d;  linear1: ff x d + ff;  linear2: d x ff + d
    //   norm1, norm2: 2 d each (gain and bias)
    const std::int64_t d = 301, ff = 1000, layers = 5;
    const std::int64_t layer = (3 * d * d + 3 * d) + (d * d + d) + (ff * d + ff) + (d * ff + d) + 2 * (2 * d);
    //   = (271 803 + 903) + (90 601 + 301) + (301 000 + 1 000) + (301 000 + 301) + 1 204 = 968 113
    QCOMPARE(layer, std::int64_t(968113));
    // rho: d -> 512 -> 256 -> 64, weights and biases.
    const std::int64_t rho = (d * 512 + 512) + (512 * 256 + 256) + (256 * 64 + 64);
    //   = 154 624 + 131 328 + 16 448 = 302 400
    QCOMPARE(rho, std::int64_t(302400));
    // 5 x 968 113 + 302 400 = 5 142 965 (the "~4.9 M" is the layers' 4.84 M plus rho, rounded).
    QCOMPARE(testutil::parameterCount(*enc), layers * layer + rho);
    QCOMPARE(testutil::parameterCount(*enc), std::int64_t(5142965));
}

void TestSelfAttentionEncoder::parameterCountProjected101()
{
    nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(101));
    QVERIFY(enc->projects());
    // 101 is not divisible by 7 heads: a learned Linear(101, 105) comes first (105 = 15 x 7).
    QCOMPARE(enc->modelDim(), std::int64_t(105));
    const std::int64_t in = 101, d = 105, ff = 1000, layers = 5;
    const std::int64_t project = in * d + d; // 10 605 + 105 = 10 710
    const std::int64_t layer = (3 * d * d + 3 * d) + (d * d + d) + (ff * d + ff) + (d * ff + d) + 2 * (2 * d);
    //   = (33 075 + 315) + (11 025 + 105) + (105 000 + 1 000) + (105 000 + 105) + 420 = 256 045
    QCOMPARE(layer, std::int64_t(256045));
    const std::int64_t rho = (d * 512 + 512) + (512 * 256 + 256) + (256 * 64 + 64); // 54 272 + 131 328 + 16 448
    QCOMPARE(testutil::parameterCount(*enc), project + layers * layer + rho);
    QCOMPARE(testutil::parameterCount(*enc), std::int64_t(10710 + 5 * 256045 + 202048)); // 1 492 983
    const auto params = enc->named_parameters();
    QCOMPARE(params["project.weight"].sizes().vec(), (std::vector<std::int64_t>{105, 101}));
}

void TestSelfAttentionEncoder::architectureAndOptions()
{
    nn::SelfAttentionEncoder paper(spec<nn::SelfAttentionEncoderImpl>(301));
    std::int64_t layers = 0;
    for (const auto& m : paper->modules(false))
        if (auto* l = dynamic_cast<torch::nn::TransformerEncoderLayerImpl*>(m.get())) {
            ++layers;
            QCOMPARE(l->options.nhead(), std::int64_t(7));
            QCOMPARE(l->options.dim_feedforward(), std::int64_t(1000));
            QCOMPARE(l->options.dropout(), 0.1);
        }
    QCOMPARE(layers, std::int64_t(5));
    QCOMPARE(paper->rhoHidden(), (std::vector<std::int64_t>{512, 256}));
    QCOMPARE(paper->outputDim(), std::int64_t(64));

    nn::SelfAttentionEncoder small(spec<nn::SelfAttentionEncoderImpl>(12, {{"layers", "2"}, {"heads", "4"}, {"ff", "16"}, {"dropout", "0"}, {"rho", "8"}}));
    QCOMPARE(small->layers(), std::int64_t(2));
    QCOMPARE(small->heads(), std::int64_t(4));
    QCOMPARE(small->feedForward(), std::int64_t(16));
    QCOMPARE(small->dropout(), 0.0);
    QVERIFY(!small->projects()); // 12 = 3 x 4
    const std::int64_t d = 12, ff = 16;
    const std::int64_t layer = (3 * d * d + 3 * d) + (d * d + d) + (ff * d + ff) + (d * ff + d) + 4 * d;
    QCOMPARE(testutil::parameterCount(*small), 2 * layer + (d * 8 + 8) + (8 * 64 + 64));
    // An empty rho list: one Linear(d, outputDim).
    nn::SelfAttentionEncoder bare(spec<nn::SelfAttentionEncoderImpl>(12, {{"heads", "4"}, {"layers", "1"}, {"rho", ""}}));
    QVERIFY(bare->rhoHidden().empty());
    QCOMPARE(bare->forward(padSets({torch::randn({3, 12})}, 12, 3, false, torch::kCPU)).sizes().vec(),
             (std::vector<std::int64_t>{1, 64}));
}

void TestSelfAttentionEncoder::badOptionsNameTheKey()
{
    const std::vector<std::pair<std::string, std::string>> bad{
        {"layers", "0"}, {"layers", "x"}, {"heads", "-7"}, {"heads", ""},    {"ff", "1e3"},
        {"dropout", "1"}, {"dropout", "-0.1"}, {"dropout", "nan"}, {"rho", "512,,256"}, {"rho", "512,0"},
        {"group-tokens", "-1"}, {"group-tokens", "many"}, {"colour", "red"}};
    for (const auto& [key, value] : bad) {
        const std::string msg = testutil::invalidArgumentMessage([&] { nn::SelfAttentionEncoder{spec<nn::SelfAttentionEncoderImpl>(301, {{key, value}})}; });
        QVERIFY2(msg.find("selfattn") != std::string::npos && (msg.find("'" + key + "'") != std::string::npos || msg.find("option " + key + "=") != std::string::npos),
                 (key + "=" + value + " -> '" + msg + "'").c_str());
    }
    QVERIFY(testutil::invalidArgumentMessage([] { nn::SelfAttentionEncoder{spec<nn::SelfAttentionEncoderImpl>(0)}; }).find("selfattn") == 0);
}

void TestSelfAttentionEncoder::matchesHandWrittenForward()
{
    // Small model with a projection (7 -> 9 for 3 heads) and two layers, eval mode.
    nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(7, {{"layers", "2"}, {"heads", "3"}, {"ff", "16"}, {"rho", "10,6"}}));
    enc->eval();
    QVERIFY(enc->projects());
    const std::vector<torch::Tensor> sets = randomSets({5, 1, 3}, 7);
    const torch::Tensor got = enc->forward(padSets(sets, 7, 6, true, torch::kCPU));
    for (std::size_t i = 0; i < sets.size(); ++i) {
        const double diff = maxAbsDiff(got[static_cast<std::int64_t>(i)].unsqueeze(0), referenceForward(*enc, sets[i]));
        QVERIFY2(diff < 1e-5, qPrintable(QString("set %1: %2").arg(i).arg(diff)));
    }
    // ... and the reference is sensitive: without the sum's last element it disagrees.
    QVERIFY(maxAbsDiff(got[0].unsqueeze(0), referenceForward(*enc, sets[0].narrow(0, 0, 4))) > 1e-3);
}

void TestSelfAttentionEncoder::orderInvariant_data()
{
    addDeviceRows();
}

void TestSelfAttentionEncoder::orderInvariant()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(301));
    enc->to(dev);
    enc->eval();
    const std::vector<torch::Tensor> sets = randomSets({9, 4, 1, 7, 9}, 301);
    std::vector<torch::Tensor> permuted;
    for (const torch::Tensor& s : sets)
        permuted.push_back(s.index_select(0, torch::randperm(s.size(0))));
    QVERIFY(maxAbsDiff(permuted[0], sets[0]) > 0.1); // the permutation moved something
    const torch::Tensor a = enc->forward(padSets(sets, 301, 9, false, dev));
    const torch::Tensor b = enc->forward(padSets(permuted, 301, 9, false, dev));
    QCOMPARE(a.device(), dev);
    QVERIFY2(maxAbsDiff(a, b) < 1e-5, qPrintable(QString::number(maxAbsDiff(a, b))));
    QVERIFY(maxAbsDiff((a.norm(2, 1) - 1), torch::zeros({5})) < 1e-5);
    // Different sets give different embeddings (the check above could not pass by a constant output).
    QVERIFY(maxAbsDiff(a[0], a[1]) > 1e-3);
}

void TestSelfAttentionEncoder::paddingInvariant_data()
{
    addDeviceRows();
}

void TestSelfAttentionEncoder::paddingInvariant()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(301));
    enc->to(dev);
    enc->eval();
    const std::vector<torch::Tensor> sets = randomSets({3, 8, 1, 5}, 301);
    // The reference: each set alone, no padding at all.
    const torch::Tensor alone = testutil::encodeEachAlone(*enc, sets, 301, dev);
    QVERIFY(maxAbsDiff((alone.norm(2, 1) - 1), torch::zeros({4})) < 1e-5);
    // Padded to the longest set, to 20 slots with zeros, to 31 slots holding large random
    // values, and beside a set of 40 elements.
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

void TestSelfAttentionEncoder::collatedBatchMatchesSetsAlone()
{
    // Through nn::collate (the training path): items collated together vs one by one.
    data::DatasetBuilder b;
    b.setDimension(301);
    const std::vector<std::int64_t> sizes{6, 1, 13};
    for (std::int64_t n : sizes) {
        const torch::Tensor v = torch::randn({n, 301});
        const torch::Tensor w = torch::rand({n}) + 0.1;
        b.addItem(v.data_ptr<float>(), w.data_ptr<float>(), static_cast<std::size_t>(n), data::Split::Train);
    }
    const data::Dataset ds = b.finish();
    nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(301));
    enc->eval();
    const torch::Tensor together = enc->forward(nn::collate(ds, {0, 1, 2}, torch::kCPU));
    for (std::int64_t i = 0; i < 3; ++i) {
        const torch::Tensor alone = enc->forward(nn::collate(ds, {i}, torch::kCPU));
        QVERIFY2(maxAbsDiff(together[i].unsqueeze(0), alone) < 1e-5, qPrintable(QString::number(i)));
    }
}

void TestSelfAttentionEncoder::setOfOneAndFullLengthBatch()
{
    nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(301));
    enc->eval();
    // A batch of sets of one element (S = 1, no padding anywhere).
    const std::vector<torch::Tensor> ones = randomSets({1, 1, 1}, 301);
    const torch::Tensor y1 = enc->forward(padSets(ones, 301, 1, false, torch::kCPU));
    QVERIFY(maxAbsDiff(y1, testutil::encodeEachAlone(*enc, ones, 301, torch::kCPU)) < 1e-5);
    QVERIFY(torch::isfinite(y1).all().item<bool>());
    // All sets full length: the same with the mask all true and with no mask at all.
    const std::vector<torch::Tensor> full = randomSets({6, 6, 6}, 301);
    sdk::SetBatch batch = padSets(full, 301, 6, false, torch::kCPU);
    QVERIFY(batch.mask.all().item<bool>());
    const torch::Tensor y2 = enc->forward(batch);
    batch.mask = torch::Tensor();
    QVERIFY(maxAbsDiff(y2, enc->forward(batch)) < 1e-6);
    QVERIFY(maxAbsDiff(y2, testutil::encodeEachAlone(*enc, full, 301, torch::kCPU)) < 1e-5);
}

void TestSelfAttentionEncoder::emptyRowIsFinite()
{
    // A row without real elements is the empty sum: normalize(rho(0)), finite, and the other
    // rows are what they are alone.
    nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(301));
    enc->eval();
    const std::vector<torch::Tensor> sets{torch::randn({4, 301}), torch::zeros({0, 301}), torch::randn({2, 301})};
    const torch::Tensor y = enc->forward(padSets(sets, 301, 4, true, torch::kCPU));
    QVERIFY(torch::isfinite(y).all().item<bool>());
    auto params = enc->named_parameters();
    torch::Tensor r = torch::zeros({301}, torch::kFloat64);
    for (int i : {0, 2, 4}) {
        const std::string pre = "rho." + std::to_string(i) + ".";
        r = params[pre + "weight"].detach().to(torch::kFloat64).matmul(r) + params[pre + "bias"].detach().to(torch::kFloat64);
        if (i < 4)
            r = torch::relu(r);
    }
    QVERIFY(maxAbsDiff(y[1], r / r.norm()) < 1e-5);
    QVERIFY(maxAbsDiff(y[0].unsqueeze(0), testutil::encodeEachAlone(*enc, {sets[0]}, 301, torch::kCPU)) < 1e-5);
    QVERIFY(maxAbsDiff(y[2].unsqueeze(0), testutil::encodeEachAlone(*enc, {sets[2]}, 301, torch::kCPU)) < 1e-5);
    // A batch of nothing but empty rows, in training mode, backward included.
    enc->train();
    const torch::Tensor z = enc->forward(padSets({torch::zeros({0, 301}), torch::zeros({0, 301})}, 301, 3, false, torch::kCPU));
    QVERIFY(torch::isfinite(z).all().item<bool>());
    (z * torch::randn_like(z)).sum().backward();
    for (const auto& p : enc->named_parameters())
        QVERIFY2(!p.value().grad().defined() || torch::isfinite(p.value().grad()).all().item<bool>(), p.key().c_str());
}

void TestSelfAttentionEncoder::gradientsReachEveryParameter()
{
    for (std::int64_t d : {301, 101}) {
        nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(d));
        enc->train();
        // Padding, a set of one and an empty row in one batch.
        const sdk::SetBatch batch = padSets({torch::randn({5, d}), torch::randn({1, d}), torch::zeros({0, d}), torch::randn({3, d})},
                                            d, 5, true, torch::kCPU);
        const torch::Tensor z = enc->forward(batch);
        (z * torch::randn_like(z)).sum().backward();
        for (const auto& p : enc->named_parameters()) {
            const torch::Tensor& g = p.value().grad();
            QVERIFY2(g.defined(), p.key().c_str());
            QVERIFY2(torch::isfinite(g).all().item<bool>(), p.key().c_str());
            QVERIFY2(g.abs().sum().item<double>() > 0, p.key().c_str());
        }
    }
}

void TestSelfAttentionEncoder::groupedRunIsTheSameFunction()
{
    // group_tokens = 12 runs this batch (6 rows x 9 slots = 54 > 12) as groups of rows of
    // similar length; group_tokens = 0 runs it at once. Same weights, eval mode (no dropout):
    // the same outputs and the same gradients.
    const std::int64_t d = 14; // not divisible by 4 heads: the projection is inside the groups too
    const std::map<std::string, std::string> small{{"layers", "2"}, {"heads", "4"}, {"ff", "20"}, {"rho", "12"}};
    auto withGroups = small;
    withGroups["group-tokens"] = "12";
    auto atOnce = small;
    atOnce["group-tokens"] = "0";
    nn::SelfAttentionEncoder grouped(spec<nn::SelfAttentionEncoderImpl>(d, withGroups));
    nn::SelfAttentionEncoder whole(spec<nn::SelfAttentionEncoderImpl>(d, atOnce));
    QCOMPARE(grouped->groupTokens(), std::int64_t(12));
    {
        torch::NoGradGuard noGrad;
        auto src = grouped->named_parameters();
        for (auto& p : whole->named_parameters())
            p.value().copy_(src[p.key()]);
    }
    grouped->eval();
    whole->eval();
    // Sizes 9, 2, 0 (empty), 5, 1, 7; row 3 has its real elements scattered (not a prefix),
    // and padded slots hold garbage.
    std::vector<torch::Tensor> sets = randomSets({9, 2, 0, 5, 1, 7}, d);
    sdk::SetBatch batch = padSets(sets, d, 9, true, torch::kCPU);
    batch.mask[3] = torch::tensor({false, true, false, true, true, false, true, false, true});
    batch.values[3].index_put_({batch.mask[3]}, sets[3]);
    const torch::Tensor a = grouped->forward(batch);
    const torch::Tensor b = whole->forward(batch);
    QVERIFY2(maxAbsDiff(a, b) < 1e-5, qPrintable(QString::number(maxAbsDiff(a, b))));
    QVERIFY(torch::isfinite(a).all().item<bool>());
    // Row 3 is the set alone, wherever its elements sit.
    QVERIFY(maxAbsDiff(a[3].unsqueeze(0), testutil::encodeEachAlone(*whole, {sets[3]}, d, torch::kCPU)) < 1e-5);
    const torch::Tensor w = torch::randn_like(a);
    (a * w).sum().backward();
    (b * w).sum().backward();
    auto gw = whole->named_parameters();
    for (const auto& p : grouped->named_parameters()) {
        const double diff = maxAbsDiff(p.value().grad(), gw[p.key()].grad());
        QVERIFY2(diff < 1e-5, qPrintable(QString("%1: %2").arg(QString::fromStdString(p.key())).arg(diff)));
    }
}

void TestSelfAttentionEncoder::input101Works()
{
    nn::SelfAttentionEncoder enc(spec<nn::SelfAttentionEncoderImpl>(101));
    enc->eval();
    const std::vector<torch::Tensor> sets = randomSets({4, 2, 7}, 101);
    const torch::Tensor y = enc->forward(padSets(sets, 101, 7, false, torch::kCPU));
    QCOMPARE(y.sizes().vec(), (std::vector<std::int64_t>{3, 64}));
    QVERIFY(maxAbsDiff((y.norm(2, 1) - 1), torch::zeros({3})) < 1e-5);
    QVERIFY(maxAbsDiff(y, testutil::encodeEachAlone(*enc, sets, 101, torch::kCPU)) < 1e-5);
    for (std::size_t i = 0; i < sets.size(); ++i)
        QVERIFY(maxAbsDiff(y[static_cast<std::int64_t>(i)].unsqueeze(0), referenceForward(*enc, sets[i])) < 1e-5);
    // The wrong width is refused with a message, not a crash.
    QVERIFY_THROWS_EXCEPTION(c10::Error, enc->forward(padSets(randomSets({3}, 100), 100, 3, false, torch::kCPU)));
}

QTEST_GUILESS_MAIN(TestSelfAttentionEncoder)
#include "tst_SelfAttentionEncoder.moc"
