// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Pruned EMD kNN against brute force and against an independent reference (ot::emd on
// every pair, sorted here), on clustered, unequal-mass and tie-heavy datasets.
#include "core/data/Dataset.h"
#include "core/data/Synthetic.h"
#include "core/ot/Bounds.h"
#include "core/ot/Chamfer.h"
#include "core/ot/CostMatrix.h"
#include "core/ot/Emd.h"
#include "core/ot/EmdKnn.h"
#include "core/job/Job.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

using namespace setscope;
using ot::EmdKnnResult;
using ot::EmdNeighbour;

namespace {

std::vector<std::int64_t> allItems(const data::Dataset& ds)
{
    std::vector<std::int64_t> v(ds.size());
    std::iota(v.begin(), v.end(), 0);
    return v;
}

/// Item i without its zero-weight elements (the same measure, so the same EMD; ot::emd's
/// own handling of zero weights is tst_Emd's business).
struct Present {
    std::vector<float> x, w;
    ot::PointSet view;
    Present(const data::Dataset& ds, std::int64_t i)
    {
        const ot::PointSet s = ot::pointSet(ds, std::size_t(i));
        for (std::int64_t e = 0; e < s.n; ++e)
            if (s.weights[e] > 0) {
                x.insert(x.end(), s.points + e * s.d, s.points + (e + 1) * s.d);
                w.push_back(s.weights[e]);
            }
        view = {x.data(), w.data(), std::int64_t(w.size()), s.d};
    }
};

/// Independent reference: ot::emd (its own solver and cost matrix) to every candidate but
/// the query, sorted by (distance, index), cut at k.
std::vector<EmdNeighbour> reference(const data::Dataset& ds, std::int64_t query,
                                    const std::vector<std::int64_t>& candidates, int k)
{
    std::vector<std::int64_t> items(candidates);
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
    std::vector<EmdNeighbour> all;
    for (const std::int64_t c : items)
        if (c != query)
            all.push_back({c, ot::emd(Present(ds, query).view, Present(ds, c).view).emd});
    std::sort(all.begin(), all.end(), [](const EmdNeighbour& x, const EmdNeighbour& y) {
        return x.emd != y.emd ? x.emd < y.emd : x.item < y.item;
    });
    all.resize(std::min(all.size(), std::size_t(k)));
    return all;
}

QString describe(const std::vector<EmdNeighbour>& v)
{
    QStringList parts;
    for (const auto& n : v)
        parts << QStringLiteral("%1:%2").arg(n.item).arg(n.emd, 0, 'g', 17);
    return parts.join(' ');
}

/// Exact equality: same items in the same order, bit-identical distances.
bool same(const std::vector<EmdNeighbour>& x, const std::vector<EmdNeighbour>& y)
{
    if (x.size() != y.size())
        return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (x[i].item != y[i].item || x[i].emd != y[i].emd)
            return false;
    return true;
}

void checkStats(const EmdKnnResult& r, std::int64_t candidates)
{
    QCOMPARE(r.stats.candidates, candidates);
    QCOMPARE(r.stats.exactSolves + r.stats.prunedByWcd + r.stats.prunedByRwmd, candidates);
}

data::Dataset clustered(int setSize, int dim = 3, std::uint64_t seed = 7)
{
    data::SyntheticSpec spec;
    spec.dim = dim;
    spec.coarseClasses = 4;
    spec.finePerCoarse = 2;
    spec.pointsPerFine = 20;
    spec.setSize = setSize;
    spec.testFraction = 0;
    spec.seed = seed;
    return data::makeHierarchicalGaussians(spec);
}

/// Sets of 1..9 elements with random (float) weights, so masses are unequal, around a few
/// centres; plus exact copies of earlier items, a copy with its elements permuted and
/// items with a zero-weight element: ties and zero distances.
data::Dataset unequalMasses(std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0.f, 1.f);
    std::uniform_real_distribution<float> u(0.2f, 2.f);
    const int d = 4;
    data::DatasetBuilder b("unequal-masses");
    b.setDimension(d);
    std::vector<std::vector<float>> xs, ws;
    for (int item = 0; item < 120; ++item) {
        std::vector<float> x, w;
        if (item % 10 == 9) { // an exact copy of an earlier item
            const auto src = std::size_t(rng() % std::uint64_t(item));
            x = xs[src];
            w = ws[src];
        } else if (item % 10 == 4) { // an earlier item with its elements reversed
            const auto src = std::size_t(rng() % std::uint64_t(item));
            const std::size_t n = ws[src].size();
            for (std::size_t e = n; e-- > 0;) {
                x.insert(x.end(), xs[src].begin() + std::ptrdiff_t(e * d), xs[src].begin() + std::ptrdiff_t((e + 1) * d));
                w.push_back(ws[src][e]);
            }
        } else {
            const int n = 1 + int(rng() % 9);
            const float centre = float(item % 4) * 3.f;
            for (int e = 0; e < n; ++e) {
                for (int k = 0; k < d; ++k)
                    x.push_back(centre + g(rng));
                w.push_back(item % 7 == 0 && e == 0 && n > 1 ? 0.f : u(rng));
            }
        }
        b.addItem(x.data(), w.data(), w.size(), data::Split::Train);
        xs.push_back(x);
        ws.push_back(w);
    }
    return b.finish();
}

/// One-element sets on a coarse grid (WCD = RWMD = EMD: the bounds are exactly tight) with
/// many duplicates: distances tie, and ties must go to the smaller index.
data::Dataset gridVectors()
{
    std::mt19937_64 rng(3);
    data::DatasetBuilder b("grid");
    b.setDimension(2);
    for (int item = 0; item < 150; ++item) {
        const float x[2] = {float(rng() % 6) * 0.5f, float(rng() % 6) * 0.5f};
        b.addItem(x, nullptr, 1, data::Split::Train);
    }
    return b.finish();
}

/// Independent of core/ot/Bounds: the centroid distance (WCD) and Kusner's RWMD of two sets
/// of equal mass, from the points, with distances computed directly in double.
struct PlainBounds {
    double wcd = 0, rwmd = 0;
};

PlainBounds plainBounds(const ot::PointSet& a, const ot::PointSet& b)
{
    const auto mass = [](const ot::PointSet& s) {
        double m = 0;
        for (std::int64_t i = 0; i < s.n; ++i)
            m += s.weights[i];
        return m;
    };
    const double ma = mass(a), mb = mass(b);
    std::vector<double> ca(std::size_t(a.d), 0.0), cb(std::size_t(b.d), 0.0);
    for (std::int64_t i = 0; i < a.n; ++i)
        for (int k = 0; k < a.d; ++k)
            ca[std::size_t(k)] += a.weights[i] / ma * a.points[i * a.d + k];
    for (std::int64_t j = 0; j < b.n; ++j)
        for (int k = 0; k < b.d; ++k)
            cb[std::size_t(k)] += b.weights[j] / mb * b.points[j * b.d + k];
    PlainBounds out;
    for (int k = 0; k < a.d; ++k)
        out.wcd += (ca[std::size_t(k)] - cb[std::size_t(k)]) * (ca[std::size_t(k)] - cb[std::size_t(k)]);
    out.wcd = std::sqrt(out.wcd);
    std::vector<double> rowMin(std::size_t(a.n), INFINITY), colMin(std::size_t(b.n), INFINITY);
    for (std::int64_t i = 0; i < a.n; ++i)
        for (std::int64_t j = 0; j < b.n; ++j) {
            double d2 = 0;
            for (int k = 0; k < a.d; ++k) {
                const double x = double(a.points[i * a.d + k]) - double(b.points[j * b.d + k]);
                d2 += x * x;
            }
            const double d = std::sqrt(d2);
            rowMin[std::size_t(i)] = std::min(rowMin[std::size_t(i)], d);
            colMin[std::size_t(j)] = std::min(colMin[std::size_t(j)], d);
        }
    double la = 0, lb = 0;
    for (std::int64_t i = 0; i < a.n; ++i)
        la += a.weights[i] / ma * rowMin[std::size_t(i)];
    for (std::int64_t j = 0; j < b.n; ++j)
        lb += b.weights[j] / mb * colMin[std::size_t(j)];
    out.rwmd = std::max(la, lb);
    return out;
}

/// The largest point norm of the dataset (emdKnn's rounding margin scales with it).
double largestNorm(const data::Dataset& ds)
{
    double out = 0;
    for (std::size_t i = 0; i < ds.size(); ++i) {
        const ot::PointSet s = ot::pointSet(ds, i);
        for (std::int64_t e = 0; e < s.n; ++e) {
            double n2 = 0;
            for (int k = 0; k < s.d; ++k)
                n2 += double(s.points[e * s.d + k]) * s.points[e * s.d + k];
            out = std::max(out, std::sqrt(n2));
        }
    }
    return out;
}

/// Equal-weight grid sets of `n` points each: the row-minimum start of the exact solver
/// leaves one component per element, and without a cancel poll its joins take seconds.
data::Dataset slowPair(int n)
{
    std::mt19937_64 rng(21);
    data::DatasetBuilder b("slow-pair");
    b.setDimension(2);
    for (int item = 0; item < 2; ++item) {
        std::vector<float> x;
        for (int e = 0; e < 2 * n; ++e)
            x.push_back(float(rng() % 4));
        b.addItem(x.data(), nullptr, std::size_t(n), data::Split::Train);
    }
    return b.finish();
}


/// The serial prefetch-and-prune loop of docs/OT_BOUNDS.md, written out here from the public
/// pieces (summarize, centroidBound, costMatrix, relaxedEmd, ot::emd) with a sorted vector for
/// the k best: the neighbours and the counters that every thread count must reproduce.
EmdKnnResult serialSearch(const data::Dataset& ds, std::int64_t query, const std::vector<std::int64_t>& candidates,
                          int k)
{
    std::vector<std::int64_t> items(candidates);
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
    items.erase(std::remove(items.begin(), items.end(), query), items.end());
    const ot::CentroidSummary qs = ot::summarize(ot::pointSet(ds, std::size_t(query)));
    double scale = qs.scale;
    std::vector<std::pair<double, std::int64_t>> order;
    for (const std::int64_t c : items) {
        const ot::CentroidSummary cs = ot::summarize(ot::pointSet(ds, std::size_t(c)));
        scale = std::max(scale, cs.scale);
        order.push_back({ot::centroidBound(qs, cs, ot::GroundDistance::Euclidean), c});
    }
    std::sort(order.begin(), order.end());
    const auto exceeds = [&](double bound, double kth) { return bound > kth + 1e-9 * (kth + scale); };
    const Present q(ds, query);
    EmdKnnResult out;
    out.stats.candidates = std::int64_t(items.size());
    std::vector<EmdNeighbour>& best = out.neighbours;
    std::vector<double> cost;
    for (std::size_t t = 0; t < order.size(); ++t) {
        const bool full = best.size() == std::size_t(k);
        if (full && exceeds(order[t].first, best.back().emd)) {
            out.stats.prunedByWcd = std::int64_t(order.size() - t);
            break;
        }
        const Present c(ds, order[t].second);
        ot::costMatrix(q.view, c.view, ot::GroundDistance::Euclidean, cost);
        if (full && exceeds(ot::relaxedEmd(cost.data(), q.w.data(), q.view.n, c.w.data(), c.view.n), best.back().emd)) {
            ++out.stats.prunedByRwmd;
            continue;
        }
        ++out.stats.exactSolves;
        const EmdNeighbour n{order[t].second, ot::emd(q.view, c.view).emd};
        best.insert(std::upper_bound(best.begin(), best.end(), n,
                                     [](const EmdNeighbour& x, const EmdNeighbour& y) {
                                         return x.emd != y.emd ? x.emd < y.emd : x.item < y.item;
                                     }),
                    n);
        if (best.size() > std::size_t(k))
            best.pop_back();
    }
    return out;
}

/// The counters of the serial search (all but speculativeSolves) as text, for comparisons.
QString serialCounters(const ot::EmdKnnStats& s)
{
    return QStringLiteral("candidates %1, exact %2, wcd %3, rwmd %4")
        .arg(s.candidates)
        .arg(s.exactSolves)
        .arg(s.prunedByWcd)
        .arg(s.prunedByRwmd);
}

ot::EmdKnnOptions threadsOptions(int threads, ot::EmdKnnMethod method, job::JobControl* control = nullptr)
{
    ot::EmdKnnOptions o;
    o.threads = threads;
    o.method = method;
    o.control = control;
    return o;
}

/// What a progress callback saw: every report, checked for monotone counts.
struct ProgressLog {
    std::vector<ot::EmdKnnProgress> reports;
    bool monotone = true;
    void add(const ot::EmdKnnProgress& p)
    {
        if (!reports.empty()) {
            const auto& last = reports.back();
            monotone = monotone && p.queriesDone >= last.queriesDone && p.candidatesDone >= last.candidatesDone &&
                p.queries == last.queries && p.candidates == last.candidates;
        }
        reports.push_back(p);
    }
};

/// Sets of `n` points with equal weights, far apart per item except where `near` says: an
/// exact solve of two of them takes a few pivots; one of these against a one-point set
/// takes none. Item i's points sit around (offset(i), 0).
void addCloud(data::DatasetBuilder& b, std::mt19937_64& rng, int n, float x0)
{
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    std::vector<float> x;
    for (int e = 0; e < n; ++e) {
        x.push_back(x0 + u(rng));
        x.push_back(u(rng));
    }
    b.addItem(x.data(), nullptr, std::size_t(n), data::Split::Train);
}

void addPoint(data::DatasetBuilder& b, float x0, float y0)
{
    const float x[2] = {x0, y0};
    b.addItem(x, nullptr, 1, data::Split::Train);
}

} // namespace

class TestEmdKnn : public QObject {
    Q_OBJECT

private Q_SLOTS:
    // Chamfer kNN (seed 001's CD baseline): the brute-force search under Chamfer distance ranks
    // the candidates as an independent loop over ot::chamfer() does, on any thread count; the
    // pruned search refuses it (its bounds are the EMD's).
    void chamferMatchesItsBruteForce()
    {
        const data::Dataset ds = clustered(12);
        const auto candidates = allItems(ds);
        const auto n = std::int64_t(ds.size());
        const std::vector<std::int64_t> queries{0, n / 3, n - 1, 9};
        for (const int threads : {1, 2}) {
            ot::EmdKnnOptions o;
            o.method = ot::EmdKnnMethod::BruteForce;
            o.distance = ot::SetDistance::Chamfer;
            o.threads = threads;
            const auto got = ot::emdKnnQueries(ds, queries, candidates, 5, o);
            QCOMPARE(got.size(), queries.size());
            for (std::size_t qi = 0; qi < queries.size(); ++qi) {
                std::vector<EmdNeighbour> all;
                for (const std::int64_t c : candidates)
                    if (c != queries[qi])
                        all.push_back({c, ot::chamfer(ot::pointSet(ds, std::size_t(queries[qi])), ot::pointSet(ds, std::size_t(c)))});
                std::sort(all.begin(), all.end(), [](const EmdNeighbour& x, const EmdNeighbour& y) {
                    return x.emd != y.emd ? x.emd < y.emd : x.item < y.item;
                });
                const auto& nb = got[qi].neighbours;
                QCOMPARE(nb.size(), std::size_t(5));
                for (std::size_t r = 0; r < nb.size(); ++r) {
                    QVERIFY2(std::abs(nb[r].emd - all[r].emd) <= 1e-9 * (1 + all[r].emd),
                             qPrintable(QStringLiteral("query %1 rank %2: %3 vs %4").arg(queries[qi]).arg(r).arg(nb[r].emd).arg(all[r].emd)));
                    if (r + 1 < all.size() && all[r + 1].emd - all[r].emd > 1e-6 && (r == 0 || all[r].emd - all[r - 1].emd > 1e-6))
                        QCOMPARE(nb[r].item, all[r].item);
                }
                QCOMPARE(got[qi].stats.exactSolves, n - 1);
            }
        }
        ot::EmdKnnOptions pruned;
        pruned.distance = ot::SetDistance::Chamfer;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, ot::emdKnnQueries(ds, queries, candidates, 5, pruned));
    }

    void matchesBruteForce_data()
    {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<int>("k");
        for (const char* ds : {"clustered", "unequal", "grid"})
            for (const int k : {1, 3, 10})
                QTest::newRow(qPrintable(QStringLiteral("%1 k=%2").arg(ds).arg(k))) << QString(ds) << k;
    }

    void matchesBruteForce()
    {
        QFETCH(QString, dataset);
        QFETCH(int, k);
        const data::Dataset ds = dataset == "clustered" ? clustered(12)
            : dataset == "unequal"                      ? unequalMasses(17)
                                                        : gridVectors();
        const auto candidates = allItems(ds);
        const auto n = std::int64_t(ds.size());
        std::int64_t solves = 0, considered = 0;
        for (const std::int64_t q : {std::int64_t(0), n / 3, n / 2 + 1, n - 1, std::int64_t(9), std::int64_t(19)}) {
            const EmdKnnResult brute = ot::emdKnnBruteForce(ds, q, candidates, k);
            const EmdKnnResult pruned = ot::emdKnn(ds, q, candidates, k);
            const auto want = reference(ds, q, candidates, k);
            QVERIFY2(same(brute.neighbours, want),
                     qPrintable(QStringLiteral("query %1\nbrute %2\nref   %3").arg(q).arg(describe(brute.neighbours), describe(want))));
            QVERIFY2(same(pruned.neighbours, want),
                     qPrintable(QStringLiteral("query %1\npruned %2\nref    %3").arg(q).arg(describe(pruned.neighbours), describe(want))));
            checkStats(brute, n - 1);
            QCOMPARE(brute.stats.exactSolves, n - 1);
            checkStats(pruned, n - 1);
            QVERIFY(pruned.stats.exactSolves >= std::min<std::int64_t>(k, n - 1));
            solves += pruned.stats.exactSolves;
            considered += pruned.stats.candidates;
        }
        qInfo("%s k=%d: %lld exact solves for %lld candidates", qPrintable(dataset), k, (long long)solves,
              (long long)considered);
    }

    void tiesGoToTheSmallerIndex()
    {
        // Three copies of one set and the query itself among them: the copies are at
        // distance 0 and must come in index order, whatever order the bounds see them in.
        data::DatasetBuilder b("ties");
        b.setDimension(2);
        const float far[4] = {50, 50, 51, 50};
        const float set[4] = {0, 0, 1, 0};
        const float w[2] = {1, 3};
        for (int i = 0; i < 6; ++i)
            b.addItem(i % 2 ? set : far, w, 2, data::Split::Train); // items 1, 3, 5: the copies
        const data::Dataset ds = b.finish();
        for (const int k : {1, 2, 3}) {
            const auto r = ot::emdKnn(ds, 3, allItems(ds), k);
            QCOMPARE(int(r.neighbours.size()), k);
            const std::int64_t expected[] = {1, 5, 0};
            for (int i = 0; i < k; ++i)
                QCOMPARE(r.neighbours[std::size_t(i)].item, expected[i]);
            QVERIFY(same(r.neighbours, ot::emdKnnBruteForce(ds, 3, allItems(ds), k).neighbours));
        }
    }

    void boundsEqualToTheKthDistanceDoNotPrune()
    {
        // Query Q = {(0,0)}; every other item is at EMD exactly 5 (3-4-5 triangles: exact in
        // float and double). X = {(-5,0), (5,0)} has the loosest bound (WCD 0) and the
        // largest index, so it fills the k-th slot first; D = {(3,4), (-3,4)} has WCD 4 and
        // RWMD exactly 5; C = {(0,5)} has WCD exactly 5. Both tie with X and have smaller
        // indices, so pruning at "bound ≥ k-th" (Kusner's wording) would return X instead.
        data::DatasetBuilder b("ties-at-kth");
        b.setDimension(2);
        const float c[2] = {0, 5}, d[4] = {3, 4, -3, 4}, q[2] = {0, 0}, x[4] = {-5, 0, 5, 0};
        b.addItem(c, nullptr, 1, data::Split::Train); // 0
        b.addItem(d, nullptr, 2, data::Split::Train); // 1
        b.addItem(q, nullptr, 1, data::Split::Train); // 2: the query
        b.addItem(x, nullptr, 2, data::Split::Train); // 3
        const data::Dataset ds = b.finish();
        for (const int k : {1, 2, 3}) {
            const auto r = ot::emdKnn(ds, 2, allItems(ds), k);
            const auto want = reference(ds, 2, allItems(ds), k);
            QVERIFY2(same(r.neighbours, want), qPrintable(describe(r.neighbours)));
            QCOMPARE(r.neighbours.front().item, std::int64_t(0));
            QCOMPARE(r.neighbours.front().emd, 5.0);
            QCOMPARE(r.stats.exactSolves, std::int64_t(3));
        }
    }

    void prunesOnClusteredData()
    {
        const data::Dataset ds = clustered(12);
        const auto candidates = allItems(ds);
        std::int64_t solves = 0, wcd = 0, rwmd = 0, total = 0;
        for (std::int64_t q = 0; q < std::int64_t(ds.size()); q += 16) {
            const auto r = ot::emdKnn(ds, q, candidates, 5);
            solves += r.stats.exactSolves;
            wcd += r.stats.prunedByWcd;
            rwmd += r.stats.prunedByRwmd;
            total += r.stats.candidates;
            QVERIFY(r.stats.exactSolves < r.stats.candidates);
        }
        QVERIFY(wcd > 0);
        QVERIFY(solves * 4 < total); // well over three quarters pruned
        qInfo("clustered (160 sets of 12 points in 3-D, k=5): %lld candidates, %lld exact (%.1f%%), "
              "%lld stopped by WCD, %lld skipped by RWMD",
              (long long)total, (long long)solves, 100.0 * double(solves) / double(total), (long long)wcd,
              (long long)rwmd);
    }

    void pruningReport_data()
    {
        QTest::addColumn<QString>("spec"); // a synthetic spec, or "grid" (one-element sets with ties)
        QTest::addColumn<int>("k");
        QTest::newRow("dim=3 set=12 k=5") << QString("dim=3,coarse=4,fine=2,points=40,set=12,test=0") << 5;
        QTest::newRow("dim=8 set=16 k=10") << QString("dim=8,coarse=4,fine=2,points=40,set=16,test=0") << 10;
        QTest::newRow("dim=8 set=16 point_spread=3 k=10")
            << QString("dim=8,coarse=4,fine=2,points=40,set=16,point_spread=3,test=0") << 10;
        QTest::newRow("grid ties k=5") << QString("grid") << 5;
    }

    /// The measurement quoted in docs/OT_BOUNDS.md (run this function alone to see it), and
    /// what makes it true. Every 20th set is a query against all others. For each:
    /// - the neighbours equal brute-force exact EMD kNN (same items in the same order,
    ///   bit-identical distances) and ot::emd to every candidate sorted here by
    ///   (distance, index);
    /// - with D_k the true k-th distance, m emdKnn's rounding margin (1e-9 (D_k + largest
    ///   point norm)) and the bounds WCD and RWMD computed here from the points (equal
    ///   masses): the search must stop exactly at the first centroid key above D_k + m, so
    ///   #{WCD > D_k + 2m} ≤ prunedByWcd ≤ #{WCD > D_k}; every candidate with WCD ≤ D_k and
    ///   RWMD ≤ D_k must be solved (exactSolves ≥ that count, and ≥ k); a candidate skipped by
    ///   RWMD was visited and has RWMD > D_k (prunedByRwmd ≤ #{WCD ≤ D_k + 2m, RWMD > D_k}).
    void pruningReport()
    {
        QFETCH(QString, spec);
        QFETCH(int, k);
        const data::Dataset ds = spec == "grid"
            ? gridVectors()
            : data::makeHierarchicalGaussians(data::SyntheticSpec::parse(spec.toStdString()));
        const auto candidates = allItems(ds);
        const double scale = largestNorm(ds);
        std::int64_t solves = 0, wcd = 0, rwmd = 0, total = 0, mustSolve = 0, bracketWidth = 0;
        int queries = 0;
        for (std::int64_t q = 0; q < std::int64_t(ds.size()); q += 20, ++queries) {
            const auto r = ot::emdKnn(ds, q, candidates, k);
            const auto brute = ot::emdKnnBruteForce(ds, q, candidates, k);
            const auto want = reference(ds, q, candidates, k);
            QVERIFY2(same(r.neighbours, brute.neighbours),
                     qPrintable(QStringLiteral("query %1\npruned %2\nbrute  %3").arg(q).arg(describe(r.neighbours), describe(brute.neighbours))));
            QVERIFY2(same(r.neighbours, want),
                     qPrintable(QStringLiteral("query %1\npruned %2\nref    %3").arg(q).arg(describe(r.neighbours), describe(want))));
            checkStats(r, std::int64_t(ds.size()) - 1);

            const double Dk = want.back().emd;
            const double m = 1e-9 * (Dk + scale);
            const ot::PointSet qs = ot::pointSet(ds, std::size_t(q));
            std::int64_t stopHi = 0, stopLo = 0, must = 0, skipHi = 0;
            for (const std::int64_t c : candidates) {
                if (c == q)
                    continue;
                const ot::PointSet cs = ot::pointSet(ds, std::size_t(c));
                QCOMPARE(std::accumulate(cs.weights, cs.weights + cs.n, 0.0),
                         std::accumulate(qs.weights, qs.weights + qs.n, 0.0)); // equal masses: plain WCD, RWMD
                const PlainBounds b = plainBounds(qs, cs);
                stopHi += b.wcd > Dk;
                stopLo += b.wcd > Dk + 2 * m;
                must += b.wcd <= Dk && b.rwmd <= Dk;
                skipHi += b.wcd <= Dk + 2 * m && b.rwmd > Dk;
            }
            QVERIFY2(stopLo <= r.stats.prunedByWcd && r.stats.prunedByWcd <= stopHi,
                     qPrintable(QStringLiteral("query %1: stopped %2, expected %3..%4")
                                    .arg(q).arg(r.stats.prunedByWcd).arg(stopLo).arg(stopHi)));
            QVERIFY2(r.stats.exactSolves >= std::max<std::int64_t>(must, k),
                     qPrintable(QStringLiteral("query %1: %2 exact solves, but %3 candidates have both bounds "
                                               "below the k-th distance").arg(q).arg(r.stats.exactSolves).arg(must)));
            QVERIFY2(r.stats.prunedByRwmd <= skipHi,
                     qPrintable(QStringLiteral("query %1: %2 skipped by RWMD, at most %3 can be")
                                    .arg(q).arg(r.stats.prunedByRwmd).arg(skipHi)));
            solves += r.stats.exactSolves;
            wcd += r.stats.prunedByWcd;
            rwmd += r.stats.prunedByRwmd;
            total += r.stats.candidates;
            mustSolve += must;
            bracketWidth += stopHi - stopLo;
        }
        QVERIFY(solves < total);
        qInfo("%s, k=%d, %d queries: %lld candidates, exact %lld (%.1f%%; %lld forced by the bounds), stopped by WCD "
              "%lld (%.1f%%; bracket width %lld), skipped by RWMD %lld (%.1f%%)",
              qPrintable(spec), k, queries, (long long)total, (long long)solves, 100.0 * double(solves) / double(total),
              (long long)mustSolve, (long long)wcd, 100.0 * double(wcd) / double(total), (long long)bracketWidth,
              (long long)rwmd, 100.0 * double(rwmd) / double(total));
    }

    void queryIsNeverItsOwnNeighbour()
    {
        const data::Dataset ds = clustered(5);
        const auto candidates = allItems(ds);
        for (const std::int64_t q : {0, 7, 80}) {
            const auto r = ot::emdKnn(ds, q, candidates, 4);
            for (const auto& nb : r.neighbours)
                QVERIFY(nb.item != q);
            QCOMPARE(r.stats.candidates, std::int64_t(ds.size()) - 1);
        }
        // Only the query as candidate: nothing.
        const auto r = ot::emdKnn(ds, 5, {5}, 3);
        QVERIFY(r.neighbours.empty());
        QCOMPARE(r.stats.candidates, std::int64_t(0));
    }

    void kLargerThanCandidates()
    {
        const data::Dataset ds = unequalMasses(5);
        const std::vector<std::int64_t> candidates{40, 3, 17, 3, 99, 2, 64, 40, 11}; // repeats count once
        const auto want = reference(ds, 2, candidates, 1000);
        QCOMPARE(want.size(), std::size_t(6));
        const auto r = ot::emdKnn(ds, 2, candidates, 1000);
        QVERIFY2(same(r.neighbours, want), qPrintable(describe(r.neighbours)));
        QCOMPARE(r.stats.candidates, std::int64_t(6));
        QCOMPARE(r.stats.exactSolves, std::int64_t(6)); // never k distances: nothing to prune against
        QVERIFY(same(ot::emdKnnBruteForce(ds, 2, candidates, 1000).neighbours, want));
    }

    void badArguments()
    {
        const data::Dataset ds = clustered(3);
        const auto candidates = allItems(ds);
        QVERIFY_THROWS_EXCEPTION(ot::OtError, ot::emdKnn(ds, 0, candidates, 0));
        QVERIFY_THROWS_EXCEPTION(ot::OtError, ot::emdKnn(ds, -1, candidates, 3));
        QVERIFY_THROWS_EXCEPTION(ot::OtError, ot::emdKnn(ds, std::int64_t(ds.size()), candidates, 3));
        QVERIFY_THROWS_EXCEPTION(ot::OtError, ot::emdKnn(ds, 0, {1, 2, std::int64_t(ds.size())}, 3));
        QVERIFY_THROWS_EXCEPTION(ot::OtError, ot::emdKnnBruteForce(ds, 0, {-4}, 3));
        QVERIFY_THROWS_EXCEPTION(ot::OtError, ot::emdKnnBruteForce(ds, 0, candidates, -2));
    }

    void cancelBeforeStart()
    {
        const data::Dataset ds = clustered(4);
        job::JobControl control;
        control.requestCancel();
        QVERIFY_THROWS_EXCEPTION(job::Cancelled, ot::emdKnn(ds, 0, allItems(ds), 3, &control));
        QVERIFY_THROWS_EXCEPTION(job::Cancelled, ot::emdKnnBruteForce(ds, 0, allItems(ds), 3, &control));
    }

    void cancelWhileRunningEndsTheCurrentQuery()
    {
        // Queries run back to back on a worker; once some have finished, cancel. Every
        // query polls before each candidate, so after the cancel at most the query in
        // progress can still complete (it may have been past its last poll): counted, not
        // timed.
        const data::Dataset ds = clustered(40);
        const auto candidates = allItems(ds);
        job::JobControl control;
        std::atomic<std::int64_t> completed{0};
        std::atomic<bool> cancelled{false}, finished{false}, giveUp{false};
        std::thread worker([&] {
            try {
                for (std::int64_t run = 0; !giveUp; ++run) {
                    ot::emdKnnBruteForce(ds, run % std::int64_t(ds.size()), candidates, 5, &control);
                    ++completed;
                }
            } catch (const job::Cancelled&) {
                cancelled = true;
            }
            finished = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(completed.load() >= 2, 60000);
        control.requestCancel();
        const std::int64_t atCancel = completed.load(); // read after the request
        QTRY_VERIFY_WITH_TIMEOUT(finished.load(), 60000);
        giveUp = true;
        worker.join();
        QVERIFY(cancelled.load());
        qInfo("cancel after %lld queries; %lld more completed", (long long)atCancel,
              (long long)(completed.load() - atCancel));
        QVERIFY(completed.load() - atCancel <= 1);
    }

    void cancelReachesASolveInProgress()
    {
        // One candidate whose exact solve takes seconds without a poll inside (2 000
        // equal-weight points: 2 000 component joins over a 2 000 x 2 000 matrix) and
        // milliseconds between polls with one. The cancel comes while the query runs; it
        // must end it by Cancelled whether it lands before the candidate (the poll before
        // each candidate) or inside its solve (the control emdKnn passes down). The wait
        // before the cancel only makes the second case likely; no outcome depends on it.
        const data::Dataset ds = slowPair(2000);
        for (const bool pruned : {false, true}) {
            job::JobControl control;
            std::atomic<bool> started{false}, finished{false}, cancelled{false};
            std::thread worker([&] {
                started = true;
                try {
                    if (pruned)
                        ot::emdKnn(ds, 0, {1}, 1, &control);
                    else
                        ot::emdKnnBruteForce(ds, 0, {1}, 1, &control);
                } catch (const job::Cancelled&) {
                    cancelled = true;
                }
                finished = true;
            });
            QTRY_VERIFY_WITH_TIMEOUT(started.load(), 60000);
            QTest::qWait(100);
            control.requestCancel();
            QTRY_VERIFY_WITH_TIMEOUT(finished.load(), 60000);
            worker.join();
            QVERIFY2(cancelled.load(), pruned ? "emdKnn finished its solve despite the cancel"
                                              : "emdKnnBruteForce finished its solve despite the cancel");
        }
    }

    void threadsGiveTheSerialSearch_data()
    {
        QTest::addColumn<QString>("dataset");
        QTest::addColumn<int>("k");
        for (const char* ds : {"clustered", "unequal", "grid", "larger sets"})
            for (const int k : {1, 5})
                QTest::newRow(qPrintable(QStringLiteral("%1 k=%2").arg(ds).arg(k))) << QString(ds) << k;
    }

    /// 1, 2 and 4 threads, pruned and brute force, each query alone (so the threads without a
    /// query of their own evaluate ahead on it) and all queries in one call. Every result must
    /// be ot::emd to every candidate, sorted here (bit for bit, ties by index); the pruned
    /// counters those of serialSearch(), the loop written out in this file; brute force
    /// solves every candidate and never speculates; one thread never speculates.
    void threadsGiveTheSerialSearch()
    {
        QFETCH(QString, dataset);
        QFETCH(int, k);
        // "larger sets": solves slow enough that threads without a query of their own often
        // evaluate ahead of the commit, against a stale k-th best.
        const data::Dataset ds = dataset == "clustered" ? clustered(12)
            : dataset == "unequal"                      ? unequalMasses(17)
            : dataset == "grid"                         ? gridVectors()
                                                        : clustered(48, 16, 11);
        const auto candidates = allItems(ds);
        const auto n = std::int64_t(ds.size());
        // Query 9 twice: a repeated query gets its own result.
        const std::vector<std::int64_t> queries{0, n / 3, n / 2 + 1, n - 1, 9, 19, 9};
        std::vector<EmdKnnResult> serial;
        std::vector<std::vector<EmdNeighbour>> want;
        for (const std::int64_t q : queries) {
            serial.push_back(serialSearch(ds, q, candidates, k));
            want.push_back(reference(ds, q, candidates, k));
            QVERIFY2(same(serial.back().neighbours, want.back()), "the serial loop of this test is wrong");
        }
        std::int64_t speculative = 0, solves = 0;
        for (const int threads : {1, 2, 4})
            for (const auto method : {ot::EmdKnnMethod::Pruned, ot::EmdKnnMethod::BruteForce})
                for (const bool batch : {false, true}) {
                    const auto o = threadsOptions(threads, method);
                    std::vector<EmdKnnResult> got;
                    if (batch)
                        got = ot::emdKnnQueries(ds, queries, candidates, k, o);
                    else
                        for (const std::int64_t q : queries)
                            got.push_back(ot::emdKnnQueries(ds, {q}, candidates, k, o).front());
                    QCOMPARE(got.size(), queries.size());
                    const bool pruned = method == ot::EmdKnnMethod::Pruned;
                    for (std::size_t i = 0; i < queries.size(); ++i) {
                        const QString where = QStringLiteral("%1 threads, %2, %3, query %4")
                                                  .arg(threads)
                                                  .arg(pruned ? "pruned" : "brute force")
                                                  .arg(batch ? "one call" : "one call per query")
                                                  .arg(queries[i]);
                        QVERIFY2(same(got[i].neighbours, want[i]),
                                 qPrintable(where + "\ngot  " + describe(got[i].neighbours) + "\nwant " + describe(want[i])));
                        if (pruned) {
                            QVERIFY2(serialCounters(got[i].stats) == serialCounters(serial[i].stats),
                                     qPrintable(where + ": " + serialCounters(got[i].stats) + ", serial " +
                                                serialCounters(serial[i].stats)));
                            speculative += got[i].stats.speculativeSolves;
                            solves += got[i].stats.exactSolves;
                        } else {
                            QCOMPARE(got[i].stats.candidates, serial[i].stats.candidates);
                            QCOMPARE(got[i].stats.exactSolves, got[i].stats.candidates);
                            QCOMPARE(got[i].stats.speculativeSolves, std::int64_t(0));
                        }
                        if (threads == 1)
                            QCOMPARE(got[i].stats.speculativeSolves, std::int64_t(0));
                    }
                }
        qInfo("%s k=%d: %lld exact solves over the pruned runs, %lld more solved speculatively", qPrintable(dataset), k,
              (long long)solves, (long long)speculative);
    }

    /// The prune order and the counters. Query 0 is a cloud of 300 points in 256-D with
    /// centroid c; every candidate has centroid bound 0, so the serial order is by index:
    /// 1 = two points at c ± 100 e_1 (EMD ~100), 2 = the query's own points with weight 2
    /// (EMD 0, but its cost matrix takes milliseconds), 3..14 = two points at c ± δ u (RWMD
    /// tens). With k = 1 the serial search solves 1, then 2 (k-th best 0), then skips 3..14
    /// by RWMD. A thread evaluating 3.. while 2 is being solved sees the k-th best of 1 and
    /// solves them: the counts must still be the serial ones (those are speculative solves).
    void aStaleBoundDoesNotChangeTheCounters()
    {
        std::mt19937_64 rng(12);
        std::normal_distribution<float> g(0.f, 1.f);
        const int d = 256, n = 300;
        std::vector<float> cloud(std::size_t(n) * d);
        for (float& x : cloud)
            x = g(rng);
        std::vector<double> c(d, 0.0);
        for (int e = 0; e < n; ++e)
            for (int j = 0; j < d; ++j)
                c[std::size_t(j)] += cloud[std::size_t(e) * d + std::size_t(j)] / n;
        const auto pair = [&](const std::vector<float>& u, float delta) {
            std::vector<float> x(2 * std::size_t(d));
            for (int j = 0; j < d; ++j) {
                x[std::size_t(j)] = float(c[std::size_t(j)] + delta * u[std::size_t(j)]);
                x[std::size_t(d + j)] = float(c[std::size_t(j)] - delta * u[std::size_t(j)]);
            }
            return x;
        };
        data::DatasetBuilder b("stale-bound");
        b.setDimension(d);
        b.addItem(cloud.data(), nullptr, std::size_t(n), data::Split::Train); // 0
        std::vector<float> e1(d, 0.f);
        e1[0] = 1.f;
        b.addItem(pair(e1, 100.f).data(), nullptr, 2, data::Split::Train); // 1
        const std::vector<float> twice(std::size_t(n), 2.f);
        b.addItem(cloud.data(), twice.data(), std::size_t(n), data::Split::Train); // 2
        for (int i = 3; i < 15; ++i) { // 3..14
            std::vector<float> u(d);
            double norm = 0;
            for (float& x : u) {
                x = g(rng);
                norm += double(x) * x;
            }
            for (float& x : u)
                x = float(x / std::sqrt(norm));
            b.addItem(pair(u, 0.5f * float(i)).data(), nullptr, 2, data::Split::Train);
        }
        const data::Dataset ds = b.finish();
        const auto candidates = allItems(ds);
        const EmdKnnResult serial = serialSearch(ds, 0, candidates, 1);
        // The construction works as described (else the test would prove nothing).
        QCOMPARE(serial.neighbours.front().item, std::int64_t(2));
        QCOMPARE(serial.stats.exactSolves, std::int64_t(2));
        QCOMPARE(serial.stats.prunedByRwmd, std::int64_t(12));
        std::int64_t speculative = 0;
        for (const int threads : {2, 4})
            for (int rep = 0; rep < 5; ++rep) {
                const auto r = ot::emdKnnQueries(ds, {0}, candidates, 1, threadsOptions(threads, ot::EmdKnnMethod::Pruned));
                QVERIFY(same(r.front().neighbours, serial.neighbours));
                QCOMPARE(serialCounters(r.front().stats), serialCounters(serial.stats));
                speculative += r.front().stats.speculativeSolves;
            }
        qInfo("%lld speculative solves in 10 runs (at most 12 each)", (long long)speculative);
    }

    void cancelFromAProgressReport_data()
    {
        QTest::addColumn<int>("threads");
        QTest::addColumn<bool>("pruned");
        for (const int t : {1, 2, 4})
            for (const bool pruned : {true, false})
                QTest::newRow(qPrintable(QStringLiteral("%1 threads %2").arg(t).arg(pruned ? "pruned" : "brute force")))
                    << t << pruned;
    }

    /// Many queries in one call; the first progress report with two queries done requests the
    /// cancel. A report runs under the search's lock, so no query finishes between the count
    /// it shows and the request; each worker then finishes at most the candidate in hand, so
    /// at most one query per thread completes afterwards. The last report (made after the
    /// workers stopped) counts them: counted, not timed.
    void cancelFromAProgressReport()
    {
        QFETCH(int, threads);
        QFETCH(bool, pruned);
        const data::Dataset ds = clustered(40);
        const auto candidates = allItems(ds);
        std::vector<std::int64_t> queries;
        for (int rep = 0; rep < 20; ++rep)
            for (const std::int64_t q : candidates)
                queries.push_back(q);
        job::JobControl control;
        ProgressLog log;
        std::int64_t atRequest = -1;
        std::size_t reportsAtRequest = 0;
        auto o = threadsOptions(threads, pruned ? ot::EmdKnnMethod::Pruned : ot::EmdKnnMethod::BruteForce, &control);
        o.progress = [&](const ot::EmdKnnProgress& p) {
            log.add(p);
            if (atRequest < 0 && p.queriesDone >= 2) {
                control.requestCancel();
                atRequest = p.queriesDone;
                reportsAtRequest = log.reports.size();
            }
        };
        QVERIFY_THROWS_EXCEPTION(job::Cancelled, ot::emdKnnQueries(ds, queries, candidates, 5, o));
        QVERIFY(atRequest >= 2);
        QVERIFY2(log.monotone, "progress went backwards");
        QCOMPARE(log.reports.front().queriesDone, std::int64_t(0));
        QCOMPARE(log.reports.front().queries, std::int64_t(queries.size()));
        QVERIFY(log.reports.size() >= reportsAtRequest);
        const std::int64_t after = log.reports.back().queriesDone - atRequest;
        qInfo("%d threads: cancel requested at %lld of %zu queries; %lld more completed", threads, (long long)atRequest,
              queries.size(), (long long)after);
        QVERIFY(after >= 0);
        QVERIFY2(after <= threads, "more queries finished after the cancel than there are threads");
    }

    /// The first report with a query done pauses the search. Every candidate starts with a
    /// poll, so the search cannot finish while paused; a worker parks. Resumed, it ends with
    /// the results of a run that was never paused.
    void pauseFromAProgressReport()
    {
        const data::Dataset ds = clustered(24);
        const auto candidates = allItems(ds);
        std::vector<std::int64_t> queries;
        for (int rep = 0; rep < 4; ++rep)
            for (const std::int64_t q : candidates)
                queries.push_back(q);
        const auto want = ot::emdKnnQueries(ds, queries, candidates, 5, threadsOptions(2, ot::EmdKnnMethod::Pruned));
        job::JobControl control;
        std::atomic<bool> pausedByReport{false}, finished{false};
        std::vector<EmdKnnResult> got;
        auto o = threadsOptions(2, ot::EmdKnnMethod::Pruned, &control);
        o.progress = [&](const ot::EmdKnnProgress& p) {
            if (!pausedByReport && p.queriesDone >= 1) {
                control.pause();
                pausedByReport = true;
            }
        };
        std::thread worker([&] {
            got = ot::emdKnnQueries(ds, queries, candidates, 5, o);
            finished = true;
        });
        QTRY_VERIFY_WITH_TIMEOUT(control.parked() || finished.load(), 60000);
        QVERIFY(pausedByReport.load());
        QVERIFY2(!finished.load(), "the search finished while paused");
        control.resume();
        QTRY_VERIFY_WITH_TIMEOUT(finished.load(), 60000);
        worker.join();
        QCOMPARE(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            QVERIFY(same(got[i].neighbours, want[i].neighbours));
            QCOMPARE(serialCounters(got[i].stats), serialCounters(want[i].stats));
        }
    }

    /// Items 0 and 5 are 20-point clouds side by side (their exact EMD takes pivots), the
    /// others single points (an EMD against one point takes a few). With a pivot cap of the
    /// most any other pair needs (checked first), the solve of the pair (0, 5) throws inside a
    /// worker. Both searches need
    /// it (5 is 0's nearest), so every thread count must report it, naming the pair; with
    /// several failing queries, the error is that of the first one listed.
    void aFailedSolveNamesItsPair()
    {
        std::mt19937_64 rng(4);
        data::DatasetBuilder b("failing-pair");
        b.setDimension(2);
        addCloud(b, rng, 20, 0.f); // 0
        for (int i = 1; i <= 4; ++i)
            addPoint(b, 3.f + float(i), 0.f);
        addCloud(b, rng, 20, 0.5f); // 5
        for (int i = 6; i <= 11; ++i)
            addPoint(b, 3.f + float(i), 1.f);
        const data::Dataset ds = b.finish();
        const auto candidates = allItems(ds);
        const auto pivots = [&](std::int64_t x, std::int64_t y) {
            return ot::emd(Present(ds, x).view, Present(ds, y).view).pivots;
        };
        // The cap: the most pivots any other pair needs.
        std::int64_t cap = 1; // (maxPivots = 0 would mean the default cap)
        for (const std::int64_t x : candidates)
            for (const std::int64_t y : candidates)
                if (x != y && !((x == 0 && y == 5) || (x == 5 && y == 0)))
                    cap = std::max(cap, pivots(x, y));
        QVERIFY2(pivots(0, 5) > cap && pivots(5, 0) > cap,
                 qPrintable(QStringLiteral("cap %1, pairs (0, 5) and (5, 0): %2 and %3 pivots")
                                .arg(cap).arg(pivots(0, 5)).arg(pivots(5, 0))));
        struct Case {
            std::vector<std::int64_t> queries;
            const char* expected;
        };
        const Case cases[] = {{{0}, "query item 0, candidate item 5: "},
                              {{5, 0}, "query item 5, candidate item 0: "},
                              {{1, 2, 0, 3, 5}, "query item 0, candidate item 5: "}};
        for (const int threads : {1, 2, 4})
            for (const auto method : {ot::EmdKnnMethod::Pruned, ot::EmdKnnMethod::BruteForce})
                for (const Case& c : cases) {
                    auto o = threadsOptions(threads, method);
                    o.maxPivots = cap;
                    QString message;
                    try {
                        ot::emdKnnQueries(ds, c.queries, candidates, 3, o);
                    } catch (const ot::OtError& e) {
                        message = e.what();
                    }
                    QVERIFY2(message.startsWith(c.expected) && message.contains("did not converge"),
                             qPrintable(QStringLiteral("%1 threads: '%2'").arg(threads).arg(message)));
                }
        // Without the cap both searches succeed (the cases above fail for the cap alone).
        const auto r = ot::emdKnnQueries(ds, {0}, candidates, 3, threadsOptions(4, ot::EmdKnnMethod::Pruned));
        QCOMPARE(r.front().neighbours.front().item, std::int64_t(5));
    }

    /// Query 0 is a cloud of 200 points in 512-D, item 1 an exact copy of it (its cost matrix
    /// takes milliseconds, its solve few pivots), item 2 five points far away, whose solve
    /// against 0 needs more pivots than the pair (0, 1): with the cap at the pivots of
    /// (0, 1), it fails. With k = 1 the serial search solves 1, then stops before 2 (its
    /// centroid bound is far above 0). A second thread usually takes item 2 while item 1 is
    /// still being solved and solves it against no bound at all: that failure is not the
    /// serial search's and must not surface (counted as a speculative solve). Timing decides
    /// how often the race happens, so the runs are repeated and the count only printed.
    /// Brute force, which needs the pair, fails every time.
    void anErrorOnlyASpeculatingThreadMetIsNoError()
    {
        std::mt19937_64 rng(8);
        std::normal_distribution<float> g(0.f, 1.f);
        const int d = 512;
        data::DatasetBuilder b("speculative-failure");
        b.setDimension(d);
        std::vector<float> cloud, far;
        for (int e = 0; e < 200 * d; ++e)
            cloud.push_back(g(rng));
        for (int e = 0; e < 5 * d; ++e)
            far.push_back(100.f + g(rng));
        const std::vector<float> twice(200, 2.f);
        b.addItem(cloud.data(), nullptr, 200, data::Split::Train);      // 0
        b.addItem(cloud.data(), twice.data(), 200, data::Split::Train); // 1
        b.addItem(far.data(), nullptr, 5, data::Split::Train);          // 2
        const data::Dataset ds = b.finish();
        const auto candidates = allItems(ds);
        // (maxPivots = 0 would mean the default cap.)
        const std::int64_t cap = std::max<std::int64_t>(1, ot::emd(Present(ds, 0).view, Present(ds, 1).view).pivots);
        const std::int64_t needed = ot::emd(Present(ds, 0).view, Present(ds, 2).view).pivots;
        QVERIFY2(needed > cap, qPrintable(QStringLiteral("cap %1, needed %2").arg(cap).arg(needed)));
        std::int64_t speculative = 0, runs = 0;
        for (int rep = 0; rep < 30; ++rep) {
            auto o = threadsOptions(2, ot::EmdKnnMethod::Pruned);
            o.maxPivots = cap;
            const auto r = ot::emdKnnQueries(ds, {0}, candidates, 1, o).front();
            QCOMPARE(r.neighbours.size(), std::size_t(1));
            QCOMPARE(r.neighbours.front().item, std::int64_t(1));
            QCOMPARE(r.neighbours.front().emd, 0.0);
            QCOMPARE(r.stats.exactSolves, std::int64_t(1));
            QCOMPARE(r.stats.prunedByWcd, std::int64_t(1));
            speculative += r.stats.speculativeSolves;
            runs += r.stats.speculativeSolves > 0;
        }
        qInfo("cap %lld pivots, the failing pair needs %lld; it was solved speculatively in %lld of 30 runs",
              (long long)cap, (long long)needed, (long long)runs);
        QVERIFY(speculative == runs); // at most the one failing solve per run
        auto o = threadsOptions(2, ot::EmdKnnMethod::BruteForce);
        o.maxPivots = cap;
        QVERIFY_THROWS_EXCEPTION(ot::OtError, ot::emdKnnQueries(ds, {0}, candidates, 1, o));
    }
};

QTEST_GUILESS_MAIN(TestEmdKnn)
#include "tst_EmdKnn.moc"
