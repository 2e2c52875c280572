// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/eval/Metrics.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <map>

using namespace setscope;

namespace {

std::map<std::string, double> byName(const std::vector<eval::MetricValue>& v)
{
    std::map<std::string, double> m;
    for (const auto& x : v)
        m[x.name] = x.value;
    return m;
}

std::vector<std::string> names(const std::vector<eval::MetricValue>& v)
{
    std::vector<std::string> out;
    for (const auto& x : v)
        out.push_back(x.name);
    return out;
}

/// 1-d points (one-element sets, so EMD between items is |a − b|): train 0, 0.4, 5, 5.3 (a a b b),
/// test 0.1 (a), 0.3 (a), 5.1 (b), 2.5 (b).
data::Dataset smallDataset(bool withTest)
{
    data::DatasetBuilder b;
    b.setName("small");
    b.setDimension(1);
    b.defineLabelSet("fine", {"a", "b"});
    const float pts[] = {0, 0.4f, 5, 5.3f, 0.1f, 0.3f, 5.1f, 2.5f};
    const int lab[] = {0, 0, 1, 1, 0, 0, 1, 1};
    for (int i = 0; i < 8; ++i)
        b.setLabel("fine", b.addItem(&pts[i], nullptr, 1, withTest && i >= 4 ? data::Split::Test : data::Split::Train), lab[i]);
    return b.finish();
}

} // namespace

class TestMetrics : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void builtinNamesAndOptions();
    void registryRefusesBadDefinitions();
    void unknownMetricOrOption();
    void testVsTrainHandSolved();
    void standardScoresAreKnnOnTheSplits();
    void leaveOneOutWithoutTestSplit();
    void emdMetricsNeedTheCallable();
    void exactEmdOfDataset();
    void parseKs();
};

void TestMetrics::builtinNamesAndOptions()
{
    const auto& r = eval::builtinMetrics();
    std::vector<std::string> got;
    for (const auto& d : r.all()) {
        got.push_back(d.name);
        QVERIFY(!d.doc.empty());
        // Every schema resolves with its defaults.
        sdk::OptionValues::resolve(d.options, {}, "metric " + d.name);
    }
    QCOMPARE(got, (std::vector<std::string>{"knn-accuracy", "recall-hit", "recall-class", "precision",
                                            "neighbourhood-purity", "ndcg", "csl", "nmi", "spread", "emd-mse",
                                            "kde-discrepancy"}));
    QVERIFY(r.require("emd-mse").needsExactEmd);
    QVERIFY(r.require("kde-discrepancy").needsExactEmd);
    QVERIFY(!r.require("recall-class").needsExactEmd);
    QCOMPARE(QString::fromStdString(sdk::findOption(r.require("kde-discrepancy").options, "k")->defaultValue), QString("10"));
    QCOMPARE(QString::fromStdString(sdk::findOption(r.require("kde-discrepancy").options, "sigma")->defaultValue), QString("1"));
    QCOMPARE(QString::fromStdString(sdk::findOption(r.require("knn-accuracy").options, "k")->defaultValue), QString("10"));
    QCOMPARE(QString::fromStdString(sdk::findOption(r.require("recall-hit").options, "ks")->defaultValue), QString("1,2,4,8"));
}

void TestMetrics::registryRefusesBadDefinitions()
{
    eval::MetricRegistry r;
    auto fn = [](const eval::MetricInput&, const sdk::OptionValues&) { return std::vector<eval::MetricValue>{}; };
    r.add({"mine", "doc", {}, false, fn});
    QVERIFY_THROWS_EXCEPTION(std::logic_error, r.add({"mine", "doc", {}, false, fn}));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, r.add({"Bad Name", "doc", {}, false, fn}));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, r.add({"nofn", "doc", {}, false, {}}));
    QVERIFY_THROWS_EXCEPTION(std::logic_error,
                             r.add({"badopt", "doc", {sdk::OptionSpec{"k", sdk::OptionType::Integer, "x", 0, 1, {}, "d"}}, false, fn}));
    eval::registerBuiltinMetrics(r);
    QVERIFY_THROWS_EXCEPTION(std::logic_error, eval::registerBuiltinMetrics(r)); // names taken
}

void TestMetrics::unknownMetricOrOption()
{
    const data::Dataset ds = smallDataset(true);
    const std::vector<float>& v = ds.values();
    eval::MetricRequest req;
    req.metrics = {"recall-everything"};
    try {
        eval::evaluateMetrics(ds, v.data(), 1, "fine", req);
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("unknown metric 'recall-everything' (known: knn-accuracy, recall-hit"), e.what());
    }
    req.metrics = {};
    req.options["recall-class"] = {{"kz", "1"}};
    try {
        eval::evaluateMetrics(ds, v.data(), 1, "fine", req);
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("metric recall-class has no option 'kz' (it has: ks)"), e.what());
    }
    req.options["recall-class"] = {{"ks", "1,x"}};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::evaluateMetrics(ds, v.data(), 1, "fine", req));
    req.options = {{"knn-accuracy", {{"k", "0"}}}};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::evaluateMetrics(ds, v.data(), 1, "fine", req));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::evaluateMetrics(ds, v.data(), 1, "coarse"));
}

void TestMetrics::testVsTrainHandSolved()
{
    // Test items 0.1 (a), 0.3 (a), 5.1 (b), 2.5 (b) against train 0 a, 0.4 a, 5 b, 5.3 b.
    // kNN, k = 1: 0.1 -> 0 (a), 0.3 -> 0.4 (a), 5.1 -> 5 (b), 2.5 -> 0.4 (a, 2.1 < 2.5): 3/4.
    // Within the test split, two nearest: 0.1 -> 0.3 a, 2.5 b; 0.3 -> 0.1 a, 2.5 b;
    // 5.1 -> 2.5 b, 0.3 a; 2.5 -> 0.3 a, 0.1 a. Each class has one other member, so
    //   recall-hit@1 = recall-class@1 = precision@1 = 3/4, recall-hit@2 = recall-class@2 = 3/4,
    //   precision@2 = (1/2 + 1/2 + 1/2 + 0) / 4.
    const data::Dataset ds = smallDataset(true);
    eval::MetricRequest req;
    req.options["knn-accuracy"] = {{"k", "1"}};
    req.options["recall-hit"] = {{"ks", "1,2"}};
    req.options["recall-class"] = {{"ks", "1,2"}};
    req.options["precision"] = {{"ks", "1,2"}};
    const auto v = eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", req);
    // No metric named: every one that needs neither exact EMD nor coarse labels.
    QCOMPARE(names(v), (std::vector<std::string>{"knn-accuracy", "recall-hit@1", "recall-hit@2", "recall-class@1",
                                                  "recall-class@2", "precision@1", "precision@2", "neighbourhood-purity",
                                                  "csl-average", "csl-total", "nmi", "spread"}));
    const auto m = byName(v);
    // Spread: the mean of |0.1-0.3| 0.2, |0.1-5.1| 5, |0.1-2.5| 2.4, |0.3-5.1| 4.8, |0.3-2.5| 2.2,
    // |5.1-2.5| 2.6 over the six pairs of the test split.
    QVERIFY(std::abs(m.at("spread") - 17.2 / 6) < 1e-6); // float32 inputs
    QCOMPARE(m.at("knn-accuracy"), 0.75);
    QCOMPARE(m.at("recall-hit@1"), 0.75);
    QCOMPARE(m.at("recall-hit@2"), 0.75);
    QCOMPARE(m.at("recall-class@1"), 0.75);
    QCOMPARE(m.at("recall-class@2"), 0.75);
    QCOMPARE(m.at("precision@1"), 0.75);
    QCOMPARE(m.at("precision@2"), 0.375);
    // Within the test split too. Purity, k = 10 cut to the 3 others: each test item has one
    // same-class item among three, 1/3. CSL, nearest neighbour: only 2.5 (b) -> 0.3 (a) is
    // wrong; two classes meet at the root (1): average 1, total 1/4.
    QCOMPARE(m.at("neighbourhood-purity"), 1.0 / 3.0);
    QCOMPARE(m.at("csl-average"), 1.0);
    QCOMPARE(m.at("csl-total"), 0.25);
    for (const auto& x : v)
        QVERIFY2(x.doc.find(x.name.rfind("knn", 0) == 0 ? "test-vs-train" : "within the test split") != std::string::npos,
                 x.doc.c_str());
}

void TestMetrics::standardScoresAreKnnOnTheSplits()
{
    // The standard scores are the classifier and recall of Knn.h on the test split against the
    // train split (k = 10, Recall@1/2/4/8 the hit kind), whatever the request plumbing does.
    const data::Dataset ds = data::makeHierarchicalGaussians(data::SyntheticSpec::parse("dim=4,coarse=3,fine=2,points=40"));
    const auto m = byName(eval::evaluateRawMetrics(ds, "fine"));
    const auto tr = ds.indices(data::Split::Train), te = ds.indices(data::Split::Test);
    const eval::MatrixView all{ds.values().data(), std::int64_t(ds.size()), ds.dim()};
    const auto trX = eval::gatherRows(all, tr), teX = eval::gatherRows(all, te);
    std::vector<std::int32_t> trY, teY;
    for (auto i : tr)
        trY.push_back(ds.labelSet("fine")->labels[std::size_t(i)]);
    for (auto i : te)
        teY.push_back(ds.labelSet("fine")->labels[std::size_t(i)]);
    const auto knn = eval::knnClassify({trX.data(), std::int64_t(tr.size()), ds.dim()}, trY,
                                       {teX.data(), std::int64_t(te.size()), ds.dim()}, teY, 10, false);
    QCOMPARE(m.at("knn-accuracy"), knn.accuracy);
    const std::vector<int> ks{1, 2, 4, 8};
    const auto r = eval::recallAtK({teX.data(), std::int64_t(te.size()), ds.dim()}, teY, ks);
    for (std::size_t t = 0; t < ks.size(); ++t)
        QCOMPARE(m.at("recall-hit@" + std::to_string(ks[t])), r[t]);
    QCOMPARE(m.size(), std::size_t(13)); // knn-accuracy and three families of four
    QVERIFY(!m.count("emd-mse"));
}

void TestMetrics::leaveOneOutWithoutTestSplit()
{
    // All 8 items, leave-one-out. kNN k=1: 0->0.1 a, 0.4->0.3 a, 5->5.1 b, 5.3->5.1 b,
    // 0.1->0 a, 0.3->0.4 a, 5.1->5 b, 2.5->0.4 a: 7/8.
    const data::Dataset ds = smallDataset(false);
    eval::MetricRequest req;
    req.metrics = {"knn-accuracy"};
    req.options["knn-accuracy"] = {{"k", "1"}};
    const auto v = eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", req);
    QCOMPARE(v.size(), std::size_t(1));
    QCOMPARE(v[0].value, 0.875);
    QVERIFY2(v[0].doc.find("leave-one-out") != std::string::npos, v[0].doc.c_str());
}

void TestMetrics::emdMetricsNeedTheCallable()
{
    const data::Dataset ds = smallDataset(true);
    eval::MetricRequest req;
    req.metrics = {"emd-mse"};
    try {
        eval::evaluateMetrics(ds, ds.values().data(), 1, "fine", req);
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("emd-mse needs exact EMD"), e.what());
    }
    // With the callable: MSE over the 6 test pairs, density of test queries against the 4
    // train items. A 2-d embedding that is the point and 0: squared distance vs |a - b|.
    std::vector<float> emb;
    for (float p : ds.values()) {
        emb.push_back(p);
        emb.push_back(0);
    }
    req.metrics = {};
    req.exactEmd = eval::exactEmdOf(ds);
    req.options["kde-discrepancy"] = {{"k", "2"}};
    const auto v = eval::evaluateMetrics(ds, emb.data(), 2, "fine", req);
    const auto m = byName(v);
    const float test[] = {0.1f, 0.3f, 5.1f, 2.5f};
    double s = 0;
    for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) {
            const double e = std::abs(double(test[a]) - test[b]);
            s += (e - e * e) * (e - e * e);
        }
    QVERIFY2(std::abs(m.at("emd-mse") - s / 6) < 1e-6, qPrintable(QString::number(m.at("emd-mse"))));
    // KDE with k = 2 against train 0, 0.4, 5, 5.3, G(x) = exp(-x²/2)/sqrt(2π): the two nearest
    // are the same items under |a-b| and (a-b)²; true uses |a-b|, the estimate (a-b)².
    const float train[] = {0, 0.4f, 5, 5.3f};
    auto G = [](double x) { return std::exp(-x * x / 2) / std::sqrt(2 * M_PI); };
    double disc = 0;
    for (float q : test) {
        std::vector<double> d;
        for (float t : train)
            d.push_back(std::abs(double(q) - t));
        std::sort(d.begin(), d.end());
        const double tr = (G(d[0]) + G(d[1])) / 2, es = (G(d[0] * d[0]) + G(d[1] * d[1])) / 2;
        disc += std::abs(es - tr) / tr;
    }
    QVERIFY2(std::abs(m.at("kde-discrepancy") - disc / 4) < 1e-6, qPrintable(QString::number(m.at("kde-discrepancy"))));
    QCOMPARE(names(v).back(), std::string("kde-discrepancy"));
}

void TestMetrics::exactEmdOfDataset()
{
    // Two items of two 1-d points each: {0, 10} and {1, 12}, unit weights: EMD (1 + 2) / 2.
    data::DatasetBuilder b;
    b.setDimension(1);
    const float a[] = {0, 10}, c[] = {1, 12};
    b.addItem(a, nullptr, 2, data::Split::Train);
    b.addItem(c, nullptr, 2, data::Split::Train);
    const data::Dataset ds = b.finish();
    const auto emd = eval::exactEmdOf(ds);
    QCOMPARE(emd(0, 1), 1.5);
    QCOMPARE(emd(1, 0), 1.5);
    QCOMPARE(emd(1, 1), 0.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, emd(0, 2));
}

void TestMetrics::parseKs()
{
    QCOMPARE(eval::parseKs("1,2,4,8"), (std::vector<int>{1, 2, 4, 8}));
    QCOMPARE(eval::parseKs("50"), (std::vector<int>{50}));
    for (const char* bad : {"", "1,", ",1", "0", "-1", "1;2", "a", "1.5"})
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, eval::parseKs(bad));
}

QTEST_GUILESS_MAIN(TestMetrics)
#include "tst_Metrics.moc"
