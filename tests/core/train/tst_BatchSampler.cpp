// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/BatchSampler.h"

#include <QtTest>

#include <map>
#include <set>

using namespace setscope::train;

class TestBatchSampler : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void pkStructure();
    void epochCoversItemsWithoutReplacement();
    void deterministicPerEpoch();
    void smallClasses();
    void tooFewClasses();
};

namespace {
void make(int classes, int perClass, std::vector<std::int64_t>& items, std::vector<std::int32_t>& labels)
{
    for (int c = 0; c < classes; ++c)
        for (int i = 0; i < perClass; ++i) {
            items.push_back(std::int64_t(1000 + items.size()));
            labels.push_back(c);
        }
}
} // namespace

void TestBatchSampler::pkStructure()
{
    std::vector<std::int64_t> items;
    std::vector<std::int32_t> labels;
    make(10, 100, items, labels);
    const BatchSampler s(items, labels, 4, 8, 1);
    QCOMPARE(s.batchSize(), 32);
    QCOMPARE(s.batchesPerEpoch(), std::int64_t(1000 / 32));
    std::map<std::int64_t, int> labelOf;
    for (std::size_t i = 0; i < items.size(); ++i)
        labelOf[items[i]] = labels[i];
    for (const auto& batch : s.epochBatches(0)) {
        QCOMPARE(int(batch.size()), 32);
        std::map<int, int> perClass;
        for (auto it : batch)
            ++perClass[labelOf[it]];
        QCOMPARE(int(perClass.size()), 4); // exactly P classes ...
        for (auto& [c, n] : perClass)
            QCOMPARE(n, 8); // ... with K items each
        QCOMPARE(int(std::set<std::int64_t>(batch.begin(), batch.end()).size()), 32);
    }
}

void TestBatchSampler::epochCoversItemsWithoutReplacement()
{
    // 4 classes x 16 items, P x K = 4 x 4: one epoch = 4 batches = 64 draws, every class gets
    // 16 draws in expectation; no item may repeat before its class pool is exhausted.
    std::vector<std::int64_t> items;
    std::vector<std::int32_t> labels;
    make(4, 16, items, labels);
    const BatchSampler s(items, labels, 4, 4, 5);
    std::set<std::int64_t> seen;
    for (const auto& b : s.epochBatches(3))
        for (auto it : b)
            QVERIFY2(seen.insert(it).second, "item drawn twice within a pass over its class");
    QCOMPARE(int(seen.size()), 64);
}

void TestBatchSampler::deterministicPerEpoch()
{
    std::vector<std::int64_t> items;
    std::vector<std::int32_t> labels;
    make(6, 30, items, labels);
    const BatchSampler a(items, labels, 3, 5, 42);
    const BatchSampler b(items, labels, 3, 5, 42);
    QCOMPARE(a.epochBatches(2), b.epochBatches(2)); // resumable: epoch e depends on (seed, e) only
    QVERIFY(a.epochBatches(2) != a.epochBatches(3));
    const BatchSampler c(items, labels, 3, 5, 43);
    QVERIFY(a.epochBatches(2) != c.epochBatches(2));
}

void TestBatchSampler::smallClasses()
{
    // Class 2 has one item (cannot form a positive): never drawn. Class 1 has 3 < K items.
    std::vector<std::int64_t> items{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    std::vector<std::int32_t> labels{0, 0, 0, 0, 0, 0, 1, 1, 1, 2};
    const BatchSampler s(items, labels, 8, 4, 1);
    QCOMPARE(s.usableClasses(), 2);
    for (const auto& b : s.epochBatches(0)) {
        QVERIFY(std::find(b.begin(), b.end(), 9) == b.end());
        QCOMPARE(int(b.size()), 4 + 3);
    }
}

void TestBatchSampler::tooFewClasses()
{
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, BatchSampler({1, 2, 3}, {0, 0, 0}, 2, 2, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, BatchSampler({1, 2}, {0}, 2, 2, 1));
}

QTEST_GUILESS_MAIN(TestBatchSampler)
#include "tst_BatchSampler.moc"
