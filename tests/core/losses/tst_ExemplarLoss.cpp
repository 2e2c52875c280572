// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/losses/ExemplarLoss.h"

#include "ClassifierTestUtil.h"

#include <torch/torch.h>

#include <QtTest>

#include <sstream>
#include <stdexcept>

using namespace setscope;
using losses::ExemplarLoss;
using losstest::Matrix;

namespace {

ExemplarLoss make(const std::map<std::string, std::string>& given, std::int64_t datasetSize = 4,
                  std::int64_t embeddingDim = 2)
{
    return ExemplarLoss(losstest::spec(ExemplarLoss::schema(), given, embeddingDim, 0, datasetSize));
}

sdk::LossContext context(const torch::Tensor& emb, const torch::Tensor& aug, const std::vector<std::int64_t>& items)
{
    sdk::LossContext c;
    c.embeddings = emb;
    c.augmented = aug;
    c.items = torch::tensor(items, torch::kInt64).to(emb.device());
    c.labels = torch::full({emb.size(0)}, -1, torch::TensorOptions().dtype(torch::kInt64).device(emb.device()));
    return c;
}

const Matrix kWeight = {{1, 0}, {0, 1}, {-1, -1}, {0.5, -2}};
const std::vector<double> kBias = {0, 0.5, 0, -0.25};

} // namespace

class TestExemplarLoss : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchesScalarReference_data();
    void matchesScalarReference();
    void classifierIsARegisteredParameter();
    void gradientsAndTraining();
    void options();
    void invalidInputThrows();
};

void TestExemplarLoss::matchesScalarReference_data()
{
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("useAugmented");
    QTest::newRow("cpu") << "cpu" << false;
    QTest::newRow("cpu augmented") << "cpu" << true;
    if (torch::cuda::is_available()) {
        QTest::newRow("cuda:0") << "cuda:0" << false;
        QTest::newRow("cuda:0 augmented") << "cuda:0" << true;
    }
}

void TestExemplarLoss::matchesScalarReference()
{
    QFETCH(QString, device);
    QFETCH(bool, useAugmented);
    const torch::Device dev(device.toStdString());
    auto loss = make({{"use-augmented", useAugmented ? "true" : "false"}});
    losstest::setClassifier(loss.classifier(), kWeight, kBias);
    loss.to(dev);
    torch::manual_seed(5);
    const torch::Tensor e = torch::randn({5, 2}), a = torch::randn({5, 2});
    const std::vector<std::int64_t> items = {3, 0, 2, 1, 3}; // dataset indices, one repeated
    const Matrix em = losstest::matrixOf(e), am = losstest::matrixOf(a);
    double sum = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
        sum += losstest::crossEntropy(kWeight, kBias, em[i], items[i]);
        if (useAugmented)
            sum += losstest::crossEntropy(kWeight, kBias, am[i], items[i]);
    }
    const double rows = useAugmented ? 10 : 5;
    const auto out = loss.forward(context(e.to(dev), a.to(dev), items));
    QVERIFY2(std::abs(out.loss.item<double>() - sum / rows) < 1e-5,
             qPrintable(QString("got %1 want %2").arg(out.loss.item<double>()).arg(sum / rows)));
    QCOMPARE(out.terms, std::int64_t(rows));
    QCOMPARE(out.activeTerms, std::int64_t(rows));
}

void TestExemplarLoss::classifierIsARegisteredParameter()
{
    auto loss = make({}, 7, 3);
    const auto named = loss.named_parameters();
    QCOMPARE(int(named.size()), 2);
    QVERIFY(named.contains("classifier.weight") && named.contains("classifier.bias"));
    QCOMPARE(named["classifier.weight"].sizes().vec(), (std::vector<std::int64_t>{7, 3}));
    QCOMPARE(named["classifier.bias"].sizes().vec(), (std::vector<std::int64_t>{7}));
    // Saved and restored with the module (what a checkpoint does).
    torch::serialize::OutputArchive out;
    loss.save(out);
    std::ostringstream bytes;
    out.save_to(bytes);
    auto other = make({}, 7, 3);
    QVERIFY(!torch::equal(other.classifier()->weight, loss.classifier()->weight));
    torch::serialize::InputArchive in;
    std::istringstream read(bytes.str());
    in.load_from(read);
    other.load(in);
    QVERIFY(torch::equal(other.classifier()->weight, loss.classifier()->weight));
    QVERIFY(torch::equal(other.classifier()->bias, loss.classifier()->bias));
}

void TestExemplarLoss::gradientsAndTraining()
{
    torch::manual_seed(21);
    auto loss = make({}, 6, 4);
    const torch::Tensor e = torch::randn({6, 4}, torch::requires_grad());
    const torch::Tensor a = (e.detach() + 0.1 * torch::randn({6, 4})).requires_grad_(true);
    const std::vector<std::int64_t> items = {0, 1, 2, 3, 4, 5};
    const auto first = loss.forward(context(e, a, items));
    first.loss.backward();
    QVERIFY(e.grad().abs().sum().item<double>() > 0);
    QVERIFY(a.grad().abs().sum().item<double>() > 0);
    QVERIFY(loss.classifier()->weight.grad().abs().sum().item<double>() > 0);
    QVERIFY(loss.classifier()->bias.grad().abs().sum().item<double>() > 0);

    // The optimizer sees the classifier through parameters(): training separates the items.
    torch::optim::SGD opt(loss.parameters(), torch::optim::SGDOptions(0.5));
    double last = first.loss.item<double>();
    for (int step = 0; step < 100; ++step) {
        opt.zero_grad();
        const auto out = loss.forward(context(e.detach(), a.detach(), items));
        out.loss.backward();
        opt.step();
        last = out.loss.item<double>();
    }
    QVERIFY2(last < 0.5 * first.loss.item<double>(),
             qPrintable(QString("loss %1 -> %2").arg(first.loss.item<double>()).arg(last)));
}

void TestExemplarLoss::options()
{
    const auto def = make({});
    QVERIFY(def.useAugmented());
    QCOMPARE(def.datasetSize(), std::int64_t(4));
    QVERIFY(def.needs().augmentedView);
    QVERIFY(!def.needs().labels && !def.needs().transport);
    QVERIFY(!make({{"use-augmented", "false"}}).needs().augmentedView);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make({{"use-augmented", "2"}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make({{"augmented", "true"}}));
}

void TestExemplarLoss::invalidInputThrows()
{
    for (const std::int64_t n : {-1, 0, 1})
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make({}, n));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, make({}, 4, 0));
    auto loss = make({});
    const torch::Tensor e = torch::randn({2, 2});
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(context(e, e, {0, 4}))); // item 4 of 4
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(context(e, e, {-1, 0})));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(context(e, torch::Tensor(), {0, 1})));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, loss.forward(context(torch::randn({2, 3}), e, {0, 1})));
    auto plain = make({{"use-augmented", "false"}});
    QCOMPARE(plain.forward(context(e, torch::Tensor(), {0, 1})).terms, std::int64_t(2)); // no view needed
}

QTEST_GUILESS_MAIN(TestExemplarLoss)
#include "tst_ExemplarLoss.moc"
