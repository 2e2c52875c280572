// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The builtin samplers through the SDK interface (SamplerInfo::create, sdk::BatchSampler), as
// the trainer and a plugin's recipe see them. Torch-free.
#include "core/builtins/Builtins.h"
#include "core/nn/SizeBuckets.h"
#include "core/plugin/Registry.h"

#include <QtTest>

#include <map>
#include <random>
#include <set>

using namespace setscope;

namespace {

using Batches = std::vector<std::vector<std::int64_t>>;

/// A pool of `n` items with scattered dataset indices (3 * k + 5), sizes from `sizes`.
sdk::SamplerSpec pool(std::int64_t n, std::map<std::string, std::string> options, const sdk::SamplerInfo& info,
                      std::uint64_t seed = 11)
{
    sdk::SamplerSpec s;
    s.options = sdk::OptionValues::resolve(info.options, options, "sampler " + info.name);
    std::mt19937_64 rng(99);
    for (std::int64_t k = 0; k < n; ++k) {
        s.items.push_back(3 * k + 5);
        s.labels.push_back(-1);
        // Mixed sizes: mostly small sets, some large (documents of a few words and long ones).
        s.setSizes.push_back(k % 5 == 0 ? 50 + std::int64_t(rng() % 150) : 1 + std::int64_t(rng() % 12));
    }
    s.seed = seed;
    return s;
}

std::multiset<std::int64_t> flatten(const Batches& b)
{
    std::multiset<std::int64_t> out;
    for (const auto& batch : b)
        out.insert(batch.begin(), batch.end());
    return out;
}

double epochPadding(const Batches& batches, const sdk::SamplerSpec& spec)
{
    std::map<std::int64_t, std::int64_t> size;
    for (std::size_t k = 0; k < spec.items.size(); ++k)
        size[spec.items[k]] = spec.setSizes[k];
    nn::PaddingCount total;
    for (const auto& b : batches) {
        std::vector<std::int64_t> s;
        for (std::int64_t i : b)
            s.push_back(size.at(i));
        total += nn::paddingCount(s);
    }
    return total.share();
}

} // namespace

class TestSamplers : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void coverEachItemOnce_data();
    void coverEachItemOnce();
    void deterministicPerSeedAndEpoch_data();
    void deterministicPerSeedAndEpoch();
    void sizeBucketedPadsLess();
    void tooSmallPool_data();
    void tooSmallPool();
    void classBalancedThroughTheSdk();

private:
    plugin::Registry m_registry;
};

void TestSamplers::initTestCase()
{
    builtins::registerBuiltins(m_registry);
    QVERIFY(!m_registry.requireSampler("random").needsLabels);
    QVERIFY(!m_registry.requireSampler("size-bucketed").needsLabels);
    QVERIFY(m_registry.requireSampler("class-balanced").needsLabels);
}

void TestSamplers::coverEachItemOnce_data()
{
    QTest::addColumn<QString>("sampler");
    QTest::addColumn<int>("items");
    QTest::addColumn<int>("batch");
    QTest::addColumn<int>("chunk");
    QTest::addColumn<int>("batches"); // per epoch
    QTest::addColumn<int>("dropped"); // items of the last batch left out (a batch of one)
    for (const char* s : {"random", "size-bucketed"}) {
        const QByteArray n(s);
        QTest::newRow(n + " exact") << s << 48 << 8 << 2 << 6 << 0;
        QTest::newRow(n + " short last kept") << s << 50 << 8 << 2 << 7 << 0;   // 6 x 8 + 2
        QTest::newRow(n + " short last of 7") << s << 55 << 8 << 2 << 7 << 0;   // 6 x 8 + 7
        QTest::newRow(n + " single left out") << s << 49 << 8 << 2 << 6 << 1;   // 6 x 8 + 1
        QTest::newRow(n + " batch above pool") << s << 5 << 64 << 16 << 1 << 0; // one batch of 5
        QTest::newRow(n + " pool of two") << s << 2 << 64 << 16 << 1 << 0;
        QTest::newRow(n + " big chunk") << s << 203 << 16 << 100 << 13 << 0;  // 12 x 16 + 11
    }
}

void TestSamplers::coverEachItemOnce()
{
    QFETCH(QString, sampler);
    QFETCH(int, items);
    QFETCH(int, batch);
    QFETCH(int, chunk);
    QFETCH(int, batches);
    QFETCH(int, dropped);
    const sdk::SamplerInfo& info = m_registry.requireSampler(sampler.toStdString());
    std::map<std::string, std::string> opt{{"batch-size", std::to_string(batch)}};
    if (sampler == "size-bucketed")
        opt["chunk-batches"] = std::to_string(chunk);
    const sdk::SamplerSpec spec = pool(items, opt, info);
    const auto s = info.create(spec);
    QCOMPARE(s->batchesPerEpoch(), std::int64_t(batches));
    QVERIFY(!s->describe().empty());
    const std::set<std::int64_t> all(spec.items.begin(), spec.items.end());
    for (std::int64_t epoch = 0; epoch < 4; ++epoch) {
        const Batches b = s->epochBatches(epoch);
        QCOMPARE(std::int64_t(b.size()), s->batchesPerEpoch());
        int shorter = 0;
        for (const auto& x : b) {
            QVERIFY(x.size() >= 2);
            QVERIFY(int(x.size()) <= batch);
            shorter += int(x.size()) < std::min(batch, items) ? 1 : 0;
        }
        QVERIFY(shorter <= 1);
        const std::multiset<std::int64_t> seen = flatten(b);
        QCOMPARE(std::set<std::int64_t>(seen.begin(), seen.end()).size(), seen.size()); // no duplicates
        QCOMPARE(int(seen.size()), items - dropped);
        for (std::int64_t i : seen)
            QVERIFY(all.count(i)); // only pool items
    }
}

void TestSamplers::deterministicPerSeedAndEpoch_data()
{
    QTest::addColumn<QString>("sampler");
    QTest::newRow("random") << "random";
    QTest::newRow("size-bucketed") << "size-bucketed";
    QTest::newRow("class-balanced") << "class-balanced";
}

// A resumed run draws the batches of an uninterrupted one: a pure function of (seed, epoch),
// whatever was asked before; epochs and seeds differ.
void TestSamplers::deterministicPerSeedAndEpoch()
{
    QFETCH(QString, sampler);
    const sdk::SamplerInfo& info = m_registry.requireSampler(sampler.toStdString());
    std::map<std::string, std::string> opt;
    if (sampler == "class-balanced")
        opt = {{"classes", "3"}, {"per-class", "4"}};
    else
        opt = {{"batch-size", "8"}};
    sdk::SamplerSpec spec = pool(100, opt, info, 5);
    for (std::size_t k = 0; k < spec.labels.size(); ++k)
        spec.labels[k] = std::int32_t(k % 5);
    const auto a = info.create(spec);
    const auto b = info.create(spec);
    const Batches a3 = a->epochBatches(3);
    QCOMPARE(b->epochBatches(3), a3); // another instance, nothing asked before
    (void)a->epochBatches(0);
    QCOMPARE(a->epochBatches(3), a3); // asking other epochs first changes nothing
    QVERIFY(a->epochBatches(4) != a3);
    QVERIFY(a->epochBatches(0) != a->epochBatches(1));
    spec.seed = 6;
    QVERIFY(info.create(spec)->epochBatches(3) != a3);
}

// On mixed set sizes the size-bucketed batches pad less than random ones (what the
// attention encoder pays for), and with one batch per chunk they are plain random batches.
void TestSamplers::sizeBucketedPadsLess()
{
    const sdk::SamplerInfo& random = m_registry.requireSampler("random");
    const sdk::SamplerInfo& bucketed = m_registry.requireSampler("size-bucketed");
    const sdk::SamplerSpec r = pool(640, {{"batch-size", "16"}}, random);
    const sdk::SamplerSpec b = pool(640, {{"batch-size", "16"}, {"chunk-batches", "8"}}, bucketed);
    const sdk::SamplerSpec b1 = pool(640, {{"batch-size", "16"}, {"chunk-batches", "1"}}, bucketed);
    const auto rs = random.create(r);
    const auto bs = bucketed.create(b);
    const auto b1s = bucketed.create(b1);
    for (std::int64_t epoch = 0; epoch < 3; ++epoch) {
        const double pr = epochPadding(rs->epochBatches(epoch), r);
        const double pb = epochPadding(bs->epochBatches(epoch), b);
        const double p1 = epochPadding(b1s->epochBatches(epoch), b1);
        QVERIFY2(pb < 0.5 * pr, qPrintable(QStringLiteral("bucketed %1, random %2").arg(pb).arg(pr)));
        QVERIFY2(p1 > 0.7 * pr, qPrintable(QStringLiteral("chunks of one batch %1, random %2").arg(p1).arg(pr)));
    }
}

void TestSamplers::tooSmallPool_data()
{
    QTest::addColumn<QString>("sampler");
    QTest::newRow("random") << "random";
    QTest::newRow("size-bucketed") << "size-bucketed";
}

void TestSamplers::tooSmallPool()
{
    QFETCH(QString, sampler);
    const sdk::SamplerInfo& info = m_registry.requireSampler(sampler.toStdString());
    try {
        (void)info.create(pool(1, {}, info));
        QFAIL("a pool of one item was accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("training pool has 1 items"), e.what());
    }
}

// P x K batches through the SDK: every batch has `classes` classes with `per-class` items,
// no item twice in a batch, items only from the pool (labels as the trainer passes them).
void TestSamplers::classBalancedThroughTheSdk()
{
    const sdk::SamplerInfo& info = m_registry.requireSampler("class-balanced");
    sdk::SamplerSpec spec;
    spec.options = sdk::OptionValues::resolve(info.options, {{"classes", "3"}, {"per-class", "4"}}, "class-balanced");
    std::map<std::int64_t, std::int32_t> labelOf;
    for (std::int64_t k = 0; k < 60; ++k) {
        const std::int64_t item = 1000 + 7 * k;
        const std::int32_t label = std::int32_t(k % 6);
        spec.items.push_back(item);
        spec.labels.push_back(label);
        spec.setSizes.push_back(1);
        labelOf[item] = label;
    }
    spec.seed = 3;
    const auto s = info.create(spec);
    QCOMPARE(s->batchesPerEpoch(), std::int64_t(60 / 12));
    QVERIFY2(QString::fromStdString(s->describe()).contains("3 classes x 4"), s->describe().c_str());
    for (std::int64_t epoch = 0; epoch < 3; ++epoch) {
        const Batches b = s->epochBatches(epoch);
        QCOMPARE(std::int64_t(b.size()), s->batchesPerEpoch());
        for (const auto& batch : b) {
            QCOMPARE(batch.size(), std::size_t(12));
            QCOMPARE(std::set<std::int64_t>(batch.begin(), batch.end()).size(), batch.size());
            std::map<std::int32_t, int> perClass;
            for (std::int64_t i : batch) {
                QVERIFY(labelOf.count(i));
                ++perClass[labelOf.at(i)];
            }
            QCOMPARE(perClass.size(), std::size_t(3));
            for (const auto& [c, n] : perClass)
                QCOMPARE(n, 4);
        }
    }
}

QTEST_GUILESS_MAIN(TestSamplers)
#include "tst_Samplers.moc"
