// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/CrossEntropyLoss.h"

#include "ClassifierTestUtil.h"

#include <torch/torch.h>

#include <QtTest>

#include <stdexcept>
#include <string>

using namespace setscope;
using losses::CrossEntropyLoss;
using losstest::Matrix;

namespace {

CrossEntropyLoss make(std::int64_t numClasses = 3, std::int64_t embeddingDim = 2)
{
    return CrossEntropyLoss(losstest::spec(CrossEntropyLoss::schema(), {}, embeddingDim, numClasses));
}

sdk::LossContext context(const torch::Tensor& emb, const std::vector<std::int64_t>& labels)
{
    sdk::LossContext c;
    c.embeddings = emb;
    c.labels = torch::tensor(labels, torch::kInt64).to(emb.device());
    c.items = torch::arange(emb.size(0), torch::TensorOptions().dtype(torch::kInt64).device(emb.device()));
    return c;
}

const Matrix kWeight = {{1, -1}, {0, 2}, {-1.5, 0.5}};
const std::vector<double> kBias = {0.1, -0.2, 0};

} // namespace

class TestCrossEntropyLoss : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void handSolved();
    void matchesScalarReference_data() { losstest::addDeviceRows(); }
    void matchesScalarReference();
    void unlabelledBatchGivesZero();
    void classifierIsTrained();
    void invalidInputThrows();
};

void TestCrossEntropyLoss::handSolved()
{
    // W = 0, b = 0: uniform logits, -log(1/3) per labelled row whatever the embedding.
    auto loss = make();
    losstest::setClassifier(loss.classifier(), {{0, 0}, {0, 0}, {0, 0}}, {0, 0, 0});
    const auto out = loss.forward(context(torch::randn({4, 2}), {2, -1, 0, 1}));
    QVERIFY(std::abs(out.loss.item<double>() - std::log(3.0)) < 1e-6);
    QCOMPARE(out.terms, std::int64_t(3));
    // W = I-like on 2 classes, x = (1, 0), label 0: logits (1, 0) -> log(1 + e^-1).
    auto two = make(2);
    losstest::setClassifier(two.classifier(), {{1, 0}, {0, 1}}, {0, 0});
    const auto o2 = two.forward(context(torch::tensor({1.f, 0.f}).view({1, 2}), {0}));
    QVERIFY(std::abs(o2.loss.item<double>() - std::log(1 + std::exp(-1.0))) < 1e-6);
}

void TestCrossEntropyLoss::matchesScalarReference()
{
    QFETCH(QString, device);
    const torch::Device dev(device.toStdString());
    auto loss = make();
    losstest::setClassifier(loss.classifier(), kWeight, kBias);
    loss.to(dev);
    torch::manual_seed(9);
    const torch::Tensor e = torch::randn({6, 2});
    const std::vector<std::int64_t> labels = {2, -1, 0, 1, -1, 2};
    const Matrix em = losstest::matrixOf(e);
    double sum = 0;
    int n = 0;
    for (std::size_t i = 0; i < labels.size(); ++i)
        if (labels[i] >= 0) {
            sum += losstest::crossEntropy(kWeight, kBias, em[i], labels[i]);
            ++n;
        }
    const auto out = loss.forward(context(e.to(dev), labels));
    QVERIFY2(std::abs(out.loss.item<double>() - sum / n) < 1e-5,
             qPrintable(QString("got %1 want %2").arg(out.loss.item<double>()).arg(sum / n)));
    QCOMPARE(out.terms, std::int64_t(4));
}

void TestCrossEntropyLoss::unlabelledBatchGivesZero()
{
    auto loss = make();
    const torch::Tensor e = torch::randn({3, 2}, torch::requires_grad());
    const auto out = loss.forward(context(e, {-1, -1, -1}));
    QCOMPARE(out.terms, std::int64_t(0));
    QCOMPARE(out.loss.item<double>(), 0.0);
    out.loss.backward();
    QCOMPARE(e.grad().abs().sum().item<double>(), 0.0);
}

void TestCrossEntropyLoss::classifierIsTrained()
{
    auto loss = make(4, 3);
    QVERIFY(loss.needs().labels);
    QVERIFY(!loss.needs().transport && !loss.needs().augmentedView);
    QVERIFY(loss.schema().empty());
    const auto named = loss.named_parameters();
    QCOMPARE(int(named.size()), 2);
    QCOMPARE(named["classifier.weight"].sizes().vec(), (std::vector<std::int64_t>{4, 3}));
    QCOMPARE(named["classifier.bias"].sizes().vec(), (std::vector<std::int64_t>{4}));
    torch::manual_seed(4);
    const torch::Tensor e = torch::randn({5, 3}, torch::requires_grad());
    loss.forward(context(e, {0, 1, -1, 3, 2})).loss.backward();
    QVERIFY(e.grad().abs().sum().item<double>() > 0);
    QCOMPARE(e.grad()[2].abs().sum().item<double>(), 0.0); // the unlabelled row gets nothing
    QVERIFY(named["classifier.weight"].grad().abs().sum().item<double>() > 0);
    QVERIFY(named["classifier.bias"].grad().abs().sum().item<double>() > 0);
}

void TestCrossEntropyLoss::invalidInputThrows()
{
    for (const std::int64_t k : {0, 1}) {
        try {
            make(k);
            QFAIL("no exception for too few classes");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(std::string(e.what()).find("at least 2 classes") != std::string::npos, e.what());
        }
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make(3, 0));
    auto loss = make();
    const torch::Tensor e = torch::randn({2, 2});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(context(e, {0, 3})));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(context(e, {-2, 0})));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(context(torch::randn({2, 5}), {0, 1})));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(context(e, {0})));
}

QTEST_GUILESS_MAIN(TestCrossEntropyLoss)
#include "tst_CrossEntropyLoss.moc"
