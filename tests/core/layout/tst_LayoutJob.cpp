// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/layout/LayoutJob.h"
#include "core/layout/Pca.h"
#include "tests/support/TimeFactor.h"

#include <QtTest/QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <unordered_map>
#include <vector>

using setscope::layout::Layout;
using setscope::layout::LayoutJob;
using setscope::layout::LayoutMethod;
using setscope::job::EmbeddingSnapshot;
using setscope::job::JobStatus;

namespace {

using Clock = std::chrono::steady_clock;

std::shared_ptr<const EmbeddingSnapshot> snapshot(std::int64_t step, std::vector<std::int64_t> items,
                                                  int dim, std::vector<float> vectors)
{
    auto s = std::make_shared<EmbeddingSnapshot>();
    s->step = step;
    s->items = std::move(items);
    s->dim = dim;
    s->vectors = std::move(vectors);
    return s;
}

// `clusters` unit Gaussian blobs centred at 8 e_c; items are numbered 100 + index.
std::shared_ptr<const EmbeddingSnapshot> clusterSnapshot(std::int64_t step, int clusters, int perCluster,
                                                         int dim, std::uint64_t seed,
                                                         std::vector<int>* labels)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<std::int64_t> items;
    std::vector<float> v;
    labels->clear();
    for (int c = 0; c < clusters; ++c)
        for (int k = 0; k < perCluster; ++k) {
            items.push_back(100 + static_cast<std::int64_t>(items.size()));
            labels->push_back(c);
            for (int i = 0; i < dim; ++i)
                v.push_back(normal(rng) + (i == c % dim ? 8.0f : 0.0f));
        }
    return snapshot(step, std::move(items), dim, std::move(v));
}

// Waits for a layout that satisfies `pred`. The deadline only matters when the test fails:
// on a loaded machine a map can take many times longer than on an idle one.
std::shared_ptr<const Layout> waitFor(const LayoutJob& job, const std::function<bool(const Layout&)>& pred)
{
    const auto deadline = Clock::now() + std::chrono::milliseconds(setscope::testing::scaledMs(120000));
    while (Clock::now() < deadline) {
        if (auto l = job.layouts().latest(); l && pred(*l))
            return l;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return nullptr;
}

std::shared_ptr<const Layout> waitConverged(const LayoutJob& job, std::int64_t step)
{
    return waitFor(job, [step](const Layout& l) { return l.sourceStep == step && l.converged; });
}

double rmsRadius(const std::vector<float>& y)
{
    const std::size_t n = y.size() / 2;
    double cx = 0.0, cy = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        cx += y[2 * i];
        cy += y[2 * i + 1];
    }
    cx /= n;
    cy /= n;
    double s = 0.0;
    for (std::size_t i = 0; i < n; ++i)
        s += (y[2 * i] - cx) * (y[2 * i] - cx) + (y[2 * i + 1] - cy) * (y[2 * i + 1] - cy);
    return std::sqrt(s / n);
}

// Mean distance moved by the items two layouts share (matched by id).
double meanDisplacementById(const Layout& a, const Layout& b)
{
    std::unordered_map<std::int64_t, std::size_t> where;
    for (std::size_t k = 0; k < a.items.size(); ++k)
        where.emplace(a.items[k], k);
    double s = 0.0;
    int m = 0;
    for (std::size_t k = 0; k < b.items.size(); ++k) {
        const auto it = where.find(b.items[k]);
        if (it == where.end())
            continue;
        s += std::hypot(double(a.xy[2 * it->second]) - b.xy[2 * k],
                        double(a.xy[2 * it->second + 1]) - b.xy[2 * k + 1]);
        ++m;
    }
    return m ? s / m : 0.0;
}

// Label of each point's nearest neighbour in the map, compared with its own.
// As meanDisplacementById after removing the best uniform scaling about the centroid:
// t-SNE maps keep expanding slowly, which is not the layout moving.
double residualAfterScalingById(const Layout& a, const Layout& b)
{
    std::unordered_map<std::int64_t, std::size_t> where;
    for (std::size_t k = 0; k < a.items.size(); ++k)
        where.emplace(a.items[k], k);
    std::vector<double> pa, pb;
    for (std::size_t k = 0; k < b.items.size(); ++k) {
        const auto it = where.find(b.items[k]);
        if (it == where.end())
            continue;
        pa.insert(pa.end(), {a.xy[2 * it->second], a.xy[2 * it->second + 1]});
        pb.insert(pb.end(), {b.xy[2 * k], b.xy[2 * k + 1]});
    }
    const std::size_t m = pa.size() / 2;
    double ca[2] = {0, 0}, cb[2] = {0, 0};
    for (std::size_t i = 0; i < m; ++i)
        for (int c = 0; c < 2; ++c) {
            ca[c] += pa[2 * i + c] / m;
            cb[c] += pb[2 * i + c] / m;
        }
    double ab = 0.0, aa = 0.0;
    for (std::size_t i = 0; i < m; ++i)
        for (int c = 0; c < 2; ++c) {
            ab += (pa[2 * i + c] - ca[c]) * (pb[2 * i + c] - cb[c]);
            aa += (pa[2 * i + c] - ca[c]) * (pa[2 * i + c] - ca[c]);
        }
    const double scale = ab / aa;
    double s = 0.0;
    for (std::size_t i = 0; i < m; ++i)
        s += std::hypot(pb[2 * i] - cb[0] - scale * (pa[2 * i] - ca[0]),
                        pb[2 * i + 1] - cb[1] - scale * (pa[2 * i + 1] - ca[1]));
    return s / m;
}

double oneNnAgreement(const std::vector<float>& y, const std::vector<int>& labels)
{
    const std::size_t n = labels.size();
    int same = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t best = i;
        double bestD = 1e300;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i)
                continue;
            const double d = std::hypot(double(y[2 * i]) - y[2 * j], double(y[2 * i + 1]) - y[2 * j + 1]);
            if (d < bestD) {
                bestD = d;
                best = j;
            }
        }
        same += labels[best] == labels[i];
    }
    return double(same) / n;
}

bool allFinite(const std::vector<float>& v)
{
    for (float x : v)
        if (!std::isfinite(x))
            return false;
    return true;
}

} // namespace

class TestLayoutJob : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void pcaModeMatchesPca();
    void coldTsneSeparatesClusters();
    void warmStartFollowsSnapshot();
    void tinySnapshots();
    void cancelIdleWithinOneSecond();
    void cancelBusyWithinOneSecond();
    void cancelWhileComputingAffinities();
    void submitFromAnotherThread();
    void malformedSnapshotFailsWithMessage();
    void mapsEveryItemOfALargeSnapshot();
};

void TestLayoutJob::pcaModeMatchesPca()
{
    LayoutJob::Options opt;
    opt.method = LayoutMethod::Pca;
    LayoutJob job(opt);
    job.start(nullptr);

    std::mt19937_64 rng(1);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    const int n = 100, dim = 8;
    std::vector<std::int64_t> items;
    std::vector<float> v(std::size_t(n) * dim);
    for (int i = 0; i < n; ++i)
        items.push_back(5000 - 3 * i);
    for (std::size_t k = 0; k < v.size(); ++k)
        v[k] = normal(rng) * float(1 + k % dim);
    auto s = snapshot(7, items, dim, v);
    job.submit(s);
    auto l = waitFor(job, [](const Layout& l) { return l.sourceStep == 7; });
    QVERIFY(l);
    QVERIFY(l->items == items);
    QVERIFY(l->xy == setscope::layout::pca(v.data(), n, dim, 2));
    QCOMPARE(l->iteration, 0);
    QVERIFY(l->converged);

    auto s2 = snapshot(8, items, dim, std::vector<float>(v.rbegin(), v.rend()));
    job.submit(s2);
    l = waitFor(job, [](const Layout& l) { return l.sourceStep == 8; });
    QVERIFY(l);
    QVERIFY(l->xy == setscope::layout::pca(s2->vectors.data(), n, dim, 2));
    QCOMPARE(job.status(), JobStatus::Running);
}

void TestLayoutJob::coldTsneSeparatesClusters()
{
    LayoutJob::Options opt;
    opt.tsne.maxIterations = 600;
    LayoutJob job(opt);
    job.start(nullptr);
    std::vector<int> labels;
    auto s = clusterSnapshot(1, 4, 40, 6, 2, &labels);
    job.submit(s);
    auto l = waitConverged(job, 1);
    QVERIFY(l);
    QVERIFY(l->items == s->items);
    QCOMPARE(l->iteration, 600);
    QCOMPARE(l->xy.size(), s->items.size() * 2);
    QVERIFY(allFinite(l->xy));
    // Published along the way, every publishEvery (10) iterations, plus the start.
    QVERIFY(job.layouts().sequence() >= 60);
    const double agreement = oneNnAgreement(l->xy, labels);
    QVERIFY2(agreement > 0.95, qPrintable(QString::number(agreement)));
}

// A converged map, then a slightly perturbed snapshot with its items in a different order
// and some new items: items keep their places (matched by id), new items land in their
// cluster, and the map moves far less than an independent cold run of the same snapshot.
void TestLayoutJob::warmStartFollowsSnapshot()
{
    LayoutJob::Options opt;
    opt.tsne.maxIterations = 600;
    opt.warmIterations = 200;
    LayoutJob job(opt);
    job.start(nullptr);
    std::vector<int> labels;
    auto s1 = clusterSnapshot(1, 4, 40, 6, 3, &labels);
    job.submit(s1);
    auto l1 = waitConverged(job, 1);
    QVERIFY(l1);

    // Perturb, reverse the order, add two new items per cluster (copies plus noise).
    std::mt19937_64 rng(4);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    const int n = static_cast<int>(s1->items.size()), dim = s1->dim;
    std::vector<std::int64_t> items;
    std::vector<float> v;
    std::vector<int> labels2;
    for (int i = n - 1; i >= 0; --i) {
        items.push_back(s1->items[i]);
        labels2.push_back(labels[i]);
        for (int k = 0; k < dim; ++k)
            v.push_back(s1->vectors[std::size_t(i) * dim + k] + noise(rng));
    }
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 2; ++r) {
            const int src = c * 40 + 5 * r;
            items.push_back(9000 + 2 * c + r);
            labels2.push_back(c);
            for (int k = 0; k < dim; ++k)
                v.push_back(s1->vectors[std::size_t(src) * dim + k] + 4.0f * noise(rng));
        }
    auto s2 = snapshot(2, items, dim, v);
    job.submit(s2);
    auto l2 = waitConverged(job, 2);
    QVERIFY(l2);
    QVERIFY(l2->items == items);
    QCOMPARE(l2->iteration, 200);
    QVERIFY(allFinite(l2->xy));

    LayoutJob coldJob(opt);
    coldJob.start(nullptr);
    coldJob.submit(s2);
    auto cold = waitConverged(coldJob, 2);
    QVERIFY(cold);

    const double radius = rmsRadius(l1->xy);
    const double warmMove = meanDisplacementById(*l1, *l2);
    const double coldMove = meanDisplacementById(*l1, *cold);
    const double warmResidual = residualAfterScalingById(*l1, *l2);
    const double coldResidual = residualAfterScalingById(*l1, *cold);
    qInfo("radius %.3f, mean displacement warm %.4f, cold %.4f; after removing the expansion "
          "warm %.4f, cold %.4f", radius, warmMove, coldMove, warmResidual, coldResidual);
    QVERIFY(warmMove < 0.5 * coldMove);
    QVERIFY2(warmResidual < 0.05 * radius, qPrintable(QString::number(warmResidual / radius)));
    QVERIFY(warmResidual < 0.25 * coldResidual);
    const double agreement = oneNnAgreement(l2->xy, labels2);
    QVERIFY2(agreement > 0.95, qPrintable(QString::number(agreement)));
}

void TestLayoutJob::tinySnapshots()
{
    LayoutJob::Options opt;
    opt.tsne.maxIterations = 300;
    opt.warmIterations = 50;
    LayoutJob job(opt);
    job.start(nullptr);

    job.submit(snapshot(1, {42}, 3, {1.0f, 2.0f, 3.0f}));
    auto l = waitConverged(job, 1);
    QVERIFY(l);
    QVERIFY(l->items == std::vector<std::int64_t>{42});
    QVERIFY(l->xy == (std::vector<float>{0.0f, 0.0f}));

    job.submit(snapshot(2, {42, 43}, 3, {1.0f, 2.0f, 3.0f, -1.0f, 0.0f, 2.0f}));
    l = waitConverged(job, 2);
    QVERIFY(l);
    QCOMPARE(l->xy.size(), std::size_t(4));
    QVERIFY(allFinite(l->xy));

    job.submit(snapshot(3, {7, 42, 43}, 3, {0.0f, 0.0f, 9.0f, 1.0f, 2.0f, 3.0f, -1.0f, 0.0f, 2.0f}));
    l = waitConverged(job, 3);
    QVERIFY(l);
    QCOMPARE(l->xy.size(), std::size_t(6));
    QVERIFY(allFinite(l->xy));

    // A 1-D embedding (PCA needs two columns for two components) and an empty one.
    job.submit(snapshot(4, {1, 2, 3, 4}, 1, {0.0f, 1.0f, 3.0f, 7.0f}));
    l = waitConverged(job, 4);
    QVERIFY(l);
    QCOMPARE(l->xy.size(), std::size_t(8));
    QVERIFY(allFinite(l->xy));

    job.submit(snapshot(5, {}, 4, {}));
    l = waitConverged(job, 5);
    QVERIFY(l);
    QVERIFY(l->items.empty() && l->xy.empty());
    QCOMPARE(job.status(), JobStatus::Running);
}

// Cancel is checked without a clock: the job ends (an idle loop that did not poll would
// never end: CTest's timeout), and a busy job stops at the poll after the cancel. The
// seconds are measured in bench/jobs.
void TestLayoutJob::cancelIdleWithinOneSecond()
{
    LayoutJob job(LayoutJob::Options{});
    job.start(nullptr);
    job.cancel();
    job.wait();
    QCOMPARE(job.status(), JobStatus::Cancelled);
}

namespace {

/// Cancels its job from the job's own progress report once t-SNE has run `atIteration`
/// iterations, and records where that was.
class CancelAtIteration final : public setscope::job::ProgressSink {
public:
    CancelAtIteration(LayoutJob& job, int atIteration)
        : m_job(job)
        , m_at(atIteration)
    {
    }
    std::atomic<std::int64_t> cancelledAt{-1};
    void progress(std::int64_t done, std::int64_t, const std::string&) override
    {
        if (done >= m_at && cancelledAt.load() < 0) {
            cancelledAt = done;
            m_job.cancel();
        }
    }

private:
    LayoutJob& m_job;
    int m_at;
};

} // namespace

void TestLayoutJob::cancelBusyWithinOneSecond()
{
    LayoutJob::Options opt;
    opt.tsne.maxIterations = 1000000;
    LayoutJob job(opt);
    CancelAtIteration sink(job, 20);
    job.start(&sink);
    std::vector<int> labels;
    job.submit(clusterSnapshot(1, 5, 300, 16, 5, &labels));
    job.wait(); // ends only through the cancel
    QCOMPARE(job.status(), JobStatus::Cancelled);
    QVERIFY(sink.cancelledAt.load() >= 20);
    // The report came right after a publish; the job polled before its next iteration.
    const auto last = job.layouts().latest();
    QVERIFY(last);
    QCOMPARE(static_cast<std::int64_t>(last->iteration), sink.cancelledAt.load());
}

// Cancel while the job is still computing the input affinities of a large snapshot (one
// poll per 64 rows: tst_Tsne counts them).
void TestLayoutJob::cancelWhileComputingAffinities()
{
    LayoutJob job(LayoutJob::Options{});
    job.start(nullptr);
    std::vector<int> labels;
    job.submit(clusterSnapshot(1, 4, 1000, 32, 8, &labels));
    job.cancel();
    job.wait();
    QCOMPARE(job.status(), JobStatus::Cancelled);
}

// A producer thread submits a stream of snapshots while the job runs: the job keeps up with
// the newest, and the last one is mapped to convergence.
void TestLayoutJob::submitFromAnotherThread()
{
    LayoutJob::Options opt;
    opt.tsne.maxIterations = 300;
    opt.warmIterations = 100;
    opt.minIterationsPerSnapshot = 20;
    LayoutJob job(opt);
    job.start(nullptr);

    std::vector<int> labels;
    auto base = clusterSnapshot(0, 3, 60, 8, 6, &labels);
    const int count = 30;
    std::thread producer([&] {
        for (int s = 1; s <= count; ++s) {
            auto next = std::make_shared<EmbeddingSnapshot>(*base);
            next->step = s;
            for (std::size_t k = 0; k < next->vectors.size(); ++k)
                next->vectors[k] += 0.02f * s * std::sin(float(k));
            job.submit(std::move(next));
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    });

    std::int64_t lastSeen = -1;
    bool monotonic = true;
    const auto deadline = Clock::now() + std::chrono::milliseconds(setscope::testing::scaledMs(120000));
    std::shared_ptr<const Layout> l;
    while (Clock::now() < deadline) {
        l = job.layouts().latest();
        if (l) {
            monotonic = monotonic && l->sourceStep >= lastSeen;
            lastSeen = l->sourceStep;
            if (l->sourceStep == count && l->converged)
                break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    producer.join();
    QVERIFY(l && l->sourceStep == count && l->converged);
    QVERIFY(monotonic);
    QVERIFY(allFinite(l->xy));
    QVERIFY(oneNnAgreement(l->xy, labels) > 0.95);
    // submit() never waits for the worker: it returns while the worker is parked by a pause.
    job.pause();
    QVERIFY(QTest::qWaitFor([&] { return job.parked(); }, 60000));
    auto last = std::make_shared<EmbeddingSnapshot>(*base);
    last->step = count + 1;
    job.submit(std::move(last));
    job.resume();
    QVERIFY(waitConverged(job, count + 1));
    QCOMPARE(job.status(), JobStatus::Running);
}

void TestLayoutJob::malformedSnapshotFailsWithMessage()
{
    LayoutJob job(LayoutJob::Options{});
    job.start(nullptr);
    job.submit(snapshot(12, {1, 2, 3}, 4, std::vector<float>(10, 0.0f)));
    job.wait();
    QCOMPARE(job.status(), JobStatus::Failed);
    QVERIFY2(job.error().find("step 12") != std::string::npos, job.error().c_str());
}

// No size limit any more (the exact t-SNE refused more than 10 000 items): a 12 000-item
// snapshot is mapped whole, by the FFT path, item for item.
void TestLayoutJob::mapsEveryItemOfALargeSnapshot()
{
    LayoutJob::Options opt;
    opt.tsne.maxIterations = 20;
    LayoutJob job(opt);
    job.start(nullptr);
    std::vector<int> labels;
    auto s = clusterSnapshot(13, 6, 2000, 8, 9, &labels);
    QCOMPARE(s->items.size(), std::size_t(12000));
    job.submit(s);
    auto l = waitConverged(job, 13);
    QVERIFY(l);
    QVERIFY(l->items == s->items);
    QCOMPARE(l->xy.size(), s->items.size() * 2);
    QCOMPARE(l->iteration, 20);
    QVERIFY(allFinite(l->xy));
    QCOMPARE(job.status(), JobStatus::Running);
}

QTEST_GUILESS_MAIN(TestLayoutJob)
#include "tst_LayoutJob.moc"
