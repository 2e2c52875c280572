// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// ExactBatchTransport (core/train/BatchTransport.h): the B x B EMD matrix of a batch, its
// nearest sets and flows, against ot::emd pair by pair (brute force); thread counts, the
// pairwise cache, cancel (by counts and signals, never by timing) and error messages.
#include "tests/core/SetFixture.h"
#include "core/train/BatchTransport.h"

#include "core/augment/SetAugmentations.h"
#include "core/data/Dataset.h"
#include "core/job/Job.h"
#include "core/ot/PairwiseMatrix.h"

#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <thread>

using namespace setscope;
using train::BatchTransportOptions;
using train::ExactBatchTransport;

namespace {

using testutil::Set;
using testutil::refs;

/// `count` sets of 3..3+spread elements in 4 clusters, weights in [0.1, 1] (unequal masses).
std::vector<Set> randomBatch(std::uint32_t seed, int count, int d, int minSize = 3, int spread = 9)
{
    std::mt19937 g(seed);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    std::uniform_real_distribution<float> wd(0.1f, 1.0f);
    std::uniform_int_distribution<int> size(minSize, minSize + spread);
    std::vector<Set> b;
    for (int k = 0; k < count; ++k) {
        Set s;
        s.d = d;
        const int n = size(g);
        for (int i = 0; i < n * d; ++i)
            s.p.push_back(nd(g) + 2.0f * float(k % 4));
        for (int i = 0; i < n; ++i)
            s.w.push_back(wd(g));
        b.push_back(std::move(s));
    }
    return b;
}

std::shared_ptr<const data::Dataset> toDataset(const std::vector<Set>& b)
{
    data::DatasetBuilder builder("batch");
    builder.setDimension(b.front().d);
    for (const Set& s : b)
        builder.addItem(s.p.data(), s.w.data(), std::size_t(s.n()), data::Split::Train);
    return std::make_shared<const data::Dataset>(builder.finish());
}

BatchTransportOptions withThreads(int threads)
{
    BatchTransportOptions o;
    o.threads = threads;
    return o;
}

double reference(const std::vector<Set>& b, std::int64_t i, std::int64_t j)
{
    return ot::emd(b[std::size_t(i)].view(), b[std::size_t(j)].view()).emd;
}

template <typename E, typename F>
void expectThrow(F&& f, const QString& part)
{
    try {
        f();
        QFAIL(qPrintable("no exception; expected one containing '" + part + "'"));
    } catch (const E& e) {
        QVERIFY2(QString(e.what()).contains(part), e.what());
    }
}

} // namespace

class TestBatchTransport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matrixIsOtEmdPairByPair();
    void nearestIsTheBruteForceArgmin();
    void threadCountsGiveTheSameMatrix();
    void datasetItems();
    void cachedEntriesAreUsed();
    void pairwiseCacheAdapter();
    void flowsAreSolvedOnceAndMatchOtEmd();
    void cancelWhilePaused();
    void cancelWhileComputing();
    void errorsNameThePositionAndItem();
    void augmentationsReuseTheTransport();
};

void TestBatchTransport::matrixIsOtEmdPairByPair()
{
    const std::vector<Set> b = randomBatch(1, 14, 3);
    ExactBatchTransport t(refs(b), withThreads(2));
    QVERIFY(!t.hasMatrix());
    QCOMPARE(t.size(), std::int64_t(14));
    QCOMPARE(t.emd(3, 3), 0.0); // no matrix needed for the diagonal
    QVERIFY(!t.hasMatrix());
    const std::vector<double>& m = t.matrix();
    QVERIFY(t.hasMatrix());
    QCOMPARE(m.size(), std::size_t(14 * 14));
    for (std::int64_t i = 0; i < 14; ++i) {
        QCOMPARE(m[std::size_t(i * 14 + i)], 0.0);
        for (std::int64_t j = i + 1; j < 14; ++j) {
            // Bit for bit what ot::emd gives for (i, j), mirrored.
            QCOMPARE(m[std::size_t(i * 14 + j)], reference(b, i, j));
            QVERIFY(m[std::size_t(i * 14 + j)] == reference(b, i, j));
            QVERIFY(m[std::size_t(j * 14 + i)] == m[std::size_t(i * 14 + j)]);
            QVERIFY(t.emd(i, j) == m[std::size_t(i * 14 + j)]);
            QVERIFY(t.emd(j, i) == m[std::size_t(i * 14 + j)]);
            // The other direction solves the same problem transposed: equal up to rounding.
            QVERIFY(std::abs(reference(b, j, i) - m[std::size_t(i * 14 + j)]) <= 1e-9 * (1 + m[std::size_t(i * 14 + j)]));
        }
    }
    QCOMPARE(t.solved(), std::int64_t(14 * 13 / 2));
    QCOMPARE(t.cached(), std::int64_t(0));
    QCOMPARE(t.flowSolves(), std::int64_t(0));
    QVERIFY(t.seconds() >= 0.0);
    t.computeMatrix(); // once per object
    QCOMPARE(t.solved(), std::int64_t(14 * 13 / 2));
}

void TestBatchTransport::nearestIsTheBruteForceArgmin()
{
    std::vector<Set> b = randomBatch(2, 12, 2);
    // Ties: sets 7 and 10 are copies of set 2 (EMD 0 among them): the lowest index wins.
    b[7] = b[2];
    b[10] = b[2];
    ExactBatchTransport t(refs(b), withThreads(2));
    for (std::int64_t a = 0; a < 12; ++a) {
        std::int64_t best = -1;
        double bestD = 0;
        for (std::int64_t c = 0; c < 12; ++c)
            if (c != a) {
                const double d = c < a ? reference(b, c, a) : reference(b, a, c);
                if (best < 0 || d < bestD) {
                    best = c;
                    bestD = d;
                }
            }
        QCOMPARE(t.nearest(a), best);
    }
    QCOMPARE(t.nearest(2), std::int64_t(7));
    QCOMPARE(t.nearest(7), std::int64_t(2));
    QCOMPARE(t.nearest(10), std::int64_t(2));
}

void TestBatchTransport::threadCountsGiveTheSameMatrix()
{
    const std::vector<Set> b = randomBatch(3, 24, 4, 5, 20);
    ExactBatchTransport one(refs(b), withThreads(1)), two(refs(b), withThreads(2)), all(refs(b), withThreads(0)),
        many(refs(b), withThreads(7));
    const std::vector<double>& m1 = one.matrix();
    for (ExactBatchTransport* t : {&two, &all, &many}) {
        QCOMPARE(t->matrix().size(), m1.size());
        QVERIFY(std::memcmp(t->matrix().data(), m1.data(), m1.size() * sizeof(double)) == 0);
        QCOMPARE(t->solved(), one.solved());
    }
}

void TestBatchTransport::datasetItems()
{
    const std::vector<Set> b = randomBatch(4, 10, 3);
    const auto ds = toDataset(b);
    const std::vector<std::int64_t> items{9, 2, 5, 2, 0};
    ExactBatchTransport t(*ds, items, withThreads(2));
    for (std::int64_t i = 0; i < 5; ++i)
        for (std::int64_t j = i + 1; j < 5; ++j) {
            const double want = items[std::size_t(i)] == items[std::size_t(j)]
                                    ? 0.0
                                    : reference(b, items[std::size_t(i)], items[std::size_t(j)]);
            QVERIFY(t.emd(i, j) == want);
        }
    QCOMPARE(t.solved(), std::int64_t(10 - 1)); // positions 1 and 3 hold the same item: no solve
    QCOMPARE(t.nearest(1), std::int64_t(3));
    QCOMPARE(t.describe(3), std::string("batch set 3 (item 2)"));
    expectThrow<std::out_of_range>([&] { (void)ExactBatchTransport(*ds, {1, 10}); }, "batch set 1: item 10 is not in the dataset of 10 items");
}

void TestBatchTransport::cachedEntriesAreUsed()
{
    const std::vector<Set> b = randomBatch(5, 9, 3);
    const std::vector<std::int64_t> items{40, 41, 42, 43, 44, 45, 46, 47, 48};
    // The cache knows the pairs of items (40 + i, 40 + j) with i + j even, with values of
    // its own (so a test can see where a value came from); asked for (a, b) with a < b.
    std::map<std::pair<std::int64_t, std::int64_t>, double> cache;
    for (std::int64_t i = 0; i < 9; ++i)
        for (std::int64_t j = i + 1; j < 9; ++j)
            if ((i + j) % 2 == 0)
                cache[{40 + i, 40 + j}] = 1000.0 + double(i * 9 + j);
    int lookups = 0;
    BatchTransportOptions o = withThreads(2);
    o.cached = [&](std::int64_t a, std::int64_t c) -> std::optional<double> {
        ++lookups;
        const auto it = cache.find({a, c});
        if (it == cache.end())
            return std::nullopt;
        return it->second;
    };
    ExactBatchTransport t(refs(b), o, items);
    const std::vector<double>& m = t.matrix();
    QCOMPARE(lookups, 36);
    QCOMPARE(t.cached(), std::int64_t(cache.size()));
    QCOMPARE(t.solved(), std::int64_t(36) - std::int64_t(cache.size()));
    for (std::int64_t i = 0; i < 9; ++i)
        for (std::int64_t j = i + 1; j < 9; ++j) {
            const double want = (i + j) % 2 == 0 ? cache[{40 + i, 40 + j}] : reference(b, i, j);
            QVERIFY(m[std::size_t(i * 9 + j)] == want);
            QVERIFY(m[std::size_t(j * 9 + i)] == want);
        }

    // Without item indices there is nothing to look up.
    lookups = 0;
    ExactBatchTransport noItems(refs(b), o);
    noItems.computeMatrix();
    QCOMPARE(lookups, 0);
    QCOMPARE(noItems.solved(), std::int64_t(36));

    // A cached value that is no distance is refused, naming both sets.
    o.cached = [](std::int64_t, std::int64_t) -> std::optional<double> { return std::nan(""); };
    ExactBatchTransport bad(refs(b), o, items);
    expectThrow<ot::OtError>([&] { bad.computeMatrix(); }, "the cached EMD between batch set 0 (item 40) and batch set 1 (item 41)");
}

void TestBatchTransport::pairwiseCacheAdapter()
{
    // A finished PairwiseJob matrix of the dataset feeds the batch: no solve at all, and
    // every value is the file's float32.
    const std::vector<Set> b = randomBatch(6, 12, 3);
    const auto ds = toDataset(b);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ot::PairwiseOptions po;
    po.threads = 2;
    po.cacheDir = dir.path().toStdString();
    ot::PairwiseJob job(ds, po);
    QCOMPARE(job.runHere(nullptr), job::JobStatus::Finished);
    const std::shared_ptr<const ot::DistanceMatrix> cache = job.result();
    QVERIFY(cache);
    const train::CachedEmd lookup = train::cachedEmdFrom(cache);
    QVERIFY(!lookup(0, 12).has_value());
    QVERIFY(!lookup(-1, 0).has_value());
    QVERIFY(!train::cachedEmdFrom(nullptr));

    BatchTransportOptions o = withThreads(2);
    o.cached = lookup;
    const std::vector<std::int64_t> items{11, 3, 7, 0, 5};
    ExactBatchTransport t(*ds, items, o);
    for (std::int64_t i = 0; i < 5; ++i)
        for (std::int64_t j = 0; j < 5; ++j) {
            if (i == j)
                continue;
            const std::int64_t a = items[std::size_t(std::min(i, j))], c = items[std::size_t(std::max(i, j))];
            QVERIFY(t.emd(i, j) == double(cache->at(a, c)));
            const double exact = reference(b, a, c);
            QVERIFY(std::abs(t.emd(i, j) - exact) <= 1e-6 * exact);
        }
    QCOMPARE(t.cached(), std::int64_t(10));
    QCOMPARE(t.solved(), std::int64_t(0));
}

void TestBatchTransport::flowsAreSolvedOnceAndMatchOtEmd()
{
    const std::vector<Set> b = randomBatch(7, 6, 3);
    ExactBatchTransport t(refs(b), withThreads(2));
    ot::EmdOptions eo;
    eo.flows = true;
    for (const auto& [a, c] : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 3}, {3, 0}, {2, 5}}) {
        const std::vector<sdk::TransportArc>& f = t.flows(a, c);
        const ot::EmdResult r = ot::emd(b[std::size_t(a)].view(), b[std::size_t(c)].view(), eo);
        QCOMPARE(f.size(), r.flows.size());
        for (std::size_t k = 0; k < f.size(); ++k) {
            QCOMPARE(f[k].i, r.flows[k].i);
            QCOMPARE(f[k].j, r.flows[k].j);
            QVERIFY(f[k].amount == r.flows[k].amount);
        }
        QCOMPARE(&t.flows(a, c), &f); // kept for the step
    }
    QCOMPARE(t.flowSolves(), std::int64_t(3));
    QCOMPARE(t.solved(), std::int64_t(3));
    QVERIFY(!t.hasMatrix()); // flows do not need the matrix
}

void TestBatchTransport::cancelWhilePaused()
{
    // Deterministic: the workers park at their first poll, then the cancel wakes them.
    const std::vector<Set> b = randomBatch(8, 16, 3);
    job::JobControl control;
    BatchTransportOptions o = withThreads(2);
    o.control = &control;
    ExactBatchTransport t(refs(b), o);
    control.pause();
    std::atomic<int> outcome{0}; // 1 cancelled, 2 finished, 3 other
    std::thread worker([&] {
        try {
            t.computeMatrix();
            outcome = 2;
        } catch (const job::Cancelled&) {
            outcome = 1;
        } catch (...) {
            outcome = 3;
        }
    });
    QTRY_VERIFY_WITH_TIMEOUT(control.parked(), 60000); // a signal, not a duration
    control.requestCancel();
    worker.join();
    QCOMPARE(outcome.load(), 1);
    QCOMPARE(t.solved(), std::int64_t(0));
    QVERIFY(!t.hasMatrix());
}

void TestBatchTransport::cancelWhileComputing()
{
    // Big enough that the matrix takes far longer than the gap between seeing the first pair
    // done and the cancel (300 pairs of 150-300 elements).
    const std::vector<Set> b = randomBatch(9, 25, 8, 150, 150);
    const std::int64_t pairs = 25 * 24 / 2;
    job::JobControl control;
    const int threads = 2;
    BatchTransportOptions o = withThreads(threads);
    o.control = &control;
    ExactBatchTransport t(refs(b), o);
    std::atomic<int> outcome{0};
    std::thread worker([&] {
        try {
            t.computeMatrix();
            outcome = 2;
        } catch (const job::Cancelled&) {
            outcome = 1;
        } catch (...) {
            outcome = 3;
        }
    });
    QTRY_VERIFY_WITH_TIMEOUT(t.solved() > 0, 60000); // progress: the computation is under way
    control.requestCancel();
    const std::int64_t atCancel = t.solved();
    worker.join();
    QCOMPARE(outcome.load(), 1);
    // Each thread ends at most the pair in its hands (a solve polls every few thousand pivots).
    QVERIFY2(t.solved() <= atCancel + threads,
             qPrintable(QString("%1 pairs solved after the cancel").arg(t.solved() - atCancel)));
    QVERIFY(t.solved() < pairs);
    QVERIFY(!t.hasMatrix()); // not kept: a later call computes it again
}

void TestBatchTransport::errorsNameThePositionAndItem()
{
    std::vector<Set> b = randomBatch(10, 6, 3);
    {
        std::vector<Set> nan = b;
        nan[4].p[2] = std::nanf("");
        ExactBatchTransport t(refs(nan), withThreads(2), {10, 11, 12, 13, 17, 15});
        expectThrow<ot::OtError>([&] { t.computeMatrix(); }, "batch set 4 (item 17)");
        expectThrow<ot::OtError>([&] { t.nearest(0); }, "batch set 4 (item 17)");
        expectThrow<ot::OtError>([&] { t.flows(0, 1); }, "batch set 4 (item 17)"); // every set is checked first
        QVERIFY(!t.hasMatrix());
    }
    {
        std::vector<sdk::SetRef> r = refs(b);
        r[2].count = 0;
        ExactBatchTransport t(r, withThreads(1), {10, 11, 12, 13, 14, 15});
        expectThrow<ot::OtError>([&] { t.emd(0, 1); }, "batch set 2 (item 12)");
        ExactBatchTransport noItems(r, withThreads(1));
        expectThrow<ot::OtError>([&] { noItems.emd(0, 1); }, "batch set 2");
    }
    {
        std::vector<sdk::SetRef> r = refs(b);
        r[5].dim = 2;
        ExactBatchTransport t(r, withThreads(1));
        expectThrow<ot::OtError>([&] { t.computeMatrix(); }, "batch set 5 has dimension 2 but batch set 0 has 3");
    }
    ExactBatchTransport t(refs(b), withThreads(1));
    expectThrow<std::out_of_range>([&] { t.emd(0, 6); }, "set 6 is not in the batch of 6");
    expectThrow<std::out_of_range>([&] { t.nearest(-1); }, "set -1 is not in the batch of 6");
    expectThrow<std::out_of_range>([&] { t.flows(6, 0); }, "set 6 is not in the batch of 6");
    const std::vector<Set> one(b.begin(), b.begin() + 1);
    ExactBatchTransport single(refs(one), withThreads(1));
    expectThrow<ot::OtError>([&] { single.nearest(0); }, "the batch has no other set");
    expectThrow<std::invalid_argument>([&] { (void)ExactBatchTransport(refs(b), {}, {1, 2}); }, "2 item indices for 6 sets");
    std::vector<sdk::SetRef> zero = refs(b);
    std::vector<float> noWeight(std::size_t(b[1].n()), 0.0f);
    zero[1].weights = noWeight.data();
    ExactBatchTransport z(zero, withThreads(2), {0, 1, 2, 3, 4, 5});
    expectThrow<ot::OtError>([&] { z.computeMatrix(); }, "batch set 1 (item 1)");
}

void TestBatchTransport::augmentationsReuseTheTransport()
{
    // The registered augmentations on the real transport: partners are the matrix's nearest
    // sets, each (set, partner) flow is solved once, and nothing else is solved.
    const std::vector<Set> b = randomBatch(11, 10, 3);
    const std::vector<sdk::SetRef> sets = refs(b);
    ExactBatchTransport t(sets, withThreads(2));
    augment::PointSwapAugmentation swap(sdk::OptionValues::resolve(augment::PointSwapAugmentation::schema(), {}, "t"));
    augment::PointMixupAugmentation mix(sdk::OptionValues::resolve(augment::PointMixupAugmentation::schema(), {}, "t"));
    for (std::int64_t i = 0; i < 10; ++i) {
        const sdk::AugmentedSet a = swap.augment({sets, &t}, i, 77 + std::uint64_t(i));
        QCOMPARE(a.partner, t.nearest(i));
        const std::vector<sdk::TransportArc>& f = t.flows(i, a.partner);
        for (const auto& c : a.changes) {
            bool found = false;
            for (const auto& arc : f)
                found = found || (arc.i == c.element && arc.j == c.partnerElement && arc.amount > 0);
            QVERIFY(found);
        }
        QCOMPARE(mix.augment({sets, &t}, i, 0).partner, a.partner);
    }
    QCOMPARE(t.flowSolves(), std::int64_t(10));
    QCOMPARE(t.solved(), std::int64_t(45 + 10));
}

QTEST_GUILESS_MAIN(TestBatchTransport)
#include "tst_BatchTransport.moc"
