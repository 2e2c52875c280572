// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/builtins/Builtins.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/data/graph/Graph.h"
#include "core/data/graph/Sdf.h"
#include "core/data/graph/TuDataset.h"
#include "core/plugin/Registry.h"

#include <QtTest>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>

using namespace setscope::data;
namespace catalog = setscope::catalog;

namespace {

void writeText(const QString& path, const std::string& text)
{
    std::ofstream f(path.toStdString(), std::ios::binary);
    f << text;
}

/// Dense reference: P = D^-1 A with A from the edge list (loops on the diagonal), and the
/// diagonal of P^k by plain matrix products.
std::vector<double> densePowers(const Graph& g, int K)
{
    const int n = g.nodeCount;
    std::vector<double> A(static_cast<std::size_t>(n * n), 0.0);
    for (const auto& [a, b] : g.edges) {
        A[static_cast<std::size_t>(a * n + b)] = 1;
        A[static_cast<std::size_t>(b * n + a)] = 1;
    }
    std::vector<double> P = A;
    for (int i = 0; i < n; ++i) {
        double d = 0;
        for (int j = 0; j < n; ++j)
            d += A[static_cast<std::size_t>(i * n + j)];
        for (int j = 0; j < n; ++j)
            P[static_cast<std::size_t>(i * n + j)] = d > 0 ? A[static_cast<std::size_t>(i * n + j)] / d : 0.0;
    }
    std::vector<double> M = P, out(static_cast<std::size_t>(n * K), 0.0);
    for (int k = 1; k <= K; ++k) {
        for (int i = 0; i < n; ++i)
            out[static_cast<std::size_t>(i * K + k - 1)] = M[static_cast<std::size_t>(i * n + i)];
        std::vector<double> next(M.size(), 0.0);
        for (int i = 0; i < n; ++i)
            for (int l = 0; l < n; ++l)
                for (int j = 0; j < n; ++j)
                    next[static_cast<std::size_t>(i * n + j)] +=
                        M[static_cast<std::size_t>(i * n + l)] * P[static_cast<std::size_t>(l * n + j)];
        M = std::move(next);
    }
    return out;
}

} // namespace

class TestGraph : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void optionsParse();
    void badOptions_data();
    void badOptions();
    void randomWalkMatchesDenseMatrixPowers();
    void foldsAreStratified();
    void emptyGraphsRefused();
    void registryDispatch();
    void optionsThroughTheCatalog();
    void edgesReachTheDataset();

private:
    QString miniTuDataset();
    QString oneSdf();

    QTemporaryDir m_dir;
};

void TestGraph::optionsParse()
{
    const GraphOptions d = GraphOptions::parse("");
    QVERIFY(d.representation == GraphRepresentation::Features);
    QCOMPARE(d.randomWalkSteps, 4);
    QCOMPARE(d.folds, 10);
    QCOMPARE(d.fold, 0);
    const GraphOptions o = GraphOptions::parse("repr=adjacency, fold=3,seed=9,rw=2,folds=5");
    QVERIFY(o.representation == GraphRepresentation::Adjacency);
    QCOMPARE(o.fold, 3);
    QCOMPARE(o.seed, std::uint64_t(9));
    QCOMPARE(o.randomWalkSteps, 2);
    QCOMPARE(o.folds, 5);
    const GraphOptions s = GraphOptions::parse("class=ACTIVITY,threshold=7.5");
    QCOMPARE(s.classProperty, std::string("ACTIVITY"));
    QVERIFY(s.threshold.has_value());
    QCOMPARE(*s.threshold, 7.5);
}

void TestGraph::badOptions_data()
{
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("expect");
    QTest::newRow("unknown repr") << "repr=laplacian" << "option repr=laplacian: not one of features|adjacency";
    QTest::newRow("fold out of range") << "fold=10" << "expected 0..9";
    QTest::newRow("fold beyond folds") << "folds=5,fold=7" << "expected 0..4";
    QTest::newRow("unknown key") << "bogus=1"
                                 << "no option 'bogus' (it has: repr, rw, folds, fold, seed, class, threshold)";
    QTest::newRow("threshold without class") << "threshold=7" << "needs class=PROPERTY";
    QTest::newRow("threshold not a number") << "class=A,threshold=high" << "threshold=high: expected a number";
    QTest::newRow("no value") << "fold" << "option 'fold' is not key=value";
    QTest::newRow("non-numeric") << "rw=four" << "option rw=four: not a whole number";
    QTest::newRow("one fold") << "folds=1" << "option folds=1: outside [2, 1000]";
    QTest::newRow("too many walk steps") << "rw=65" << "option rw=65: outside [0, 64]";
    QTest::newRow("'&' is not a separator") << "fold=3&rw=2" << "option fold=3&rw=2: not a whole number";
}

void TestGraph::badOptions()
{
    QFETCH(QString, spec);
    QFETCH(QString, expect);
    try {
        GraphOptions::parse(spec.toStdString());
        QFAIL("accepted");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains(expect), e.what());
    }
}

void TestGraph::randomWalkMatchesDenseMatrixPowers()
{
    std::mt19937 rng(3);
    for (int trial = 0; trial < 20; ++trial) {
        Graph g;
        g.nodeCount = 2 + static_cast<int>(rng() % 12);
        for (int a = 0; a < g.nodeCount; ++a)
            for (int b = a; b < g.nodeCount; ++b)
                if (rng() % 100 < (a == b ? 8u : 30u))
                    g.edges.emplace_back(a, b); // sorted, unique, some self-loops, maybe isolated nodes
        const int K = 6;
        const std::vector<double> got = randomWalkReturnProbabilities(g, K);
        const std::vector<double> want = densePowers(g, K);
        QCOMPARE(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i)
            QVERIFY2(std::abs(got[i] - want[i]) < 1e-12,
                     qPrintable(QString("trial %1 entry %2: %3 vs %4").arg(trial).arg(i).arg(got[i]).arg(want[i])));
    }
}

void TestGraph::foldsAreStratified()
{
    // Classes of 23, 7, 1 and 40 items and 5 unlabelled, interleaved.
    std::vector<std::int32_t> labels;
    const std::map<std::int32_t, int> sizes{{0, 23}, {1, 7}, {2, 1}, {3, 40}, {-1, 5}};
    for (const auto& [c, n] : sizes)
        for (int i = 0; i < n; ++i)
            labels.push_back(c);
    std::shuffle(labels.begin(), labels.end(), std::mt19937(11));
    for (int K : {10, 3}) {
        const std::vector<std::int32_t> fold = stratifiedFolds(labels, K, 42);
        QCOMPARE(fold.size(), labels.size()); // every item gets exactly one fold
        std::map<std::int32_t, std::vector<int>> perClass;
        std::vector<int> total(static_cast<std::size_t>(K), 0);
        for (std::size_t i = 0; i < labels.size(); ++i) {
            QVERIFY(fold[i] >= 0 && fold[i] < K);
            auto& v = perClass[labels[i]];
            v.resize(static_cast<std::size_t>(K), 0);
            ++v[static_cast<std::size_t>(fold[i])];
            ++total[static_cast<std::size_t>(fold[i])];
        }
        for (const auto& [c, v] : perClass) {
            const int n = sizes.at(c);
            for (int f = 0; f < K; ++f) // as even as possible: floor(n/K) or ceil(n/K)
                QVERIFY2(v[static_cast<std::size_t>(f)] == n / K || v[static_cast<std::size_t>(f)] == (n + K - 1) / K,
                         qPrintable(QString("class %1 fold %2: %3 of %4").arg(c).arg(f).arg(v[static_cast<std::size_t>(f)]).arg(n)));
        }
        const int N = static_cast<int>(labels.size());
        for (int f = 0; f < K; ++f)
            QVERIFY(total[static_cast<std::size_t>(f)] == N / K || total[static_cast<std::size_t>(f)] == (N + K - 1) / K);
        QCOMPARE(stratifiedFolds(labels, K, 42), fold); // deterministic
        QVERIFY(stratifiedFolds(labels, K, 43) != fold);
    }
}

void TestGraph::emptyGraphsRefused()
{
    GraphCollection c;
    c.name = "none";
    DatasetBuilder b;
    try {
        emitGraphs(c, {}, b);
        QFAIL("no graphs accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("no graphs"), e.what());
    }
    c.graphs.resize(2);
    c.graphs[0].name = "graph 1";
    c.graphs[0].nodeCount = 1;
    c.graphs[1].name = "graph 2";
    DatasetBuilder b2;
    try {
        emitGraphs(c, {}, b2);
        QFAIL("empty graph accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString(e.what()).contains("graph 2 has no nodes"), e.what());
    }
}

QString TestGraph::miniTuDataset()
{
    // Graph 1: nodes 1-2 joined; graph 2: node 3 alone. No node labels or attributes.
    const QString dir = m_dir.filePath("MINI");
    QDir().mkpath(dir);
    writeText(dir + "/MINI_A.txt", "1, 2\n2, 1\n");
    writeText(dir + "/MINI_graph_indicator.txt", "1\n1\n2\n");
    writeText(dir + "/MINI_graph_labels.txt", "0\n1\n");
    return dir;
}

QString TestGraph::oneSdf()
{
    // One molecule of one carbon atom.
    const QString sdf = m_dir.filePath("one.sdf");
    writeText(sdf, "x\n\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n    0.0000    0.0000    0.0000 C   0  0\nM  END\n$$$$\n");
    return sdf;
}

void TestGraph::registryDispatch()
{
    const QString dir = miniTuDataset();
    const QString sdf = oneSdf();
    setscope::plugin::Registry r;
    setscope::builtins::registerBuiltins(r);
    QCOMPARE(r.loaderFor(dir.toStdString()).name, std::string("tudataset"));
    QCOMPARE(r.loaderFor((dir + "/MINI_A.txt").toStdString()).name, std::string("tudataset"));
    QCOMPARE(r.loaderFor(sdf.toStdString()).name, std::string("sdf"));
    bool refused = false;
    try {
        r.loaderFor((dir + "/MINI_graph_labels.txt").toStdString());
    } catch (const InputError&) {
        refused = true;
    }
    QVERIFY(refused);
    const Dataset ds = catalog::openDataset(dir.toStdString(), r);
    QCOMPARE(ds.size(), std::size_t(2));
    QCOMPARE(ds.setSize(1), std::size_t(1)); // a one-node graph with no edges
    const Dataset mol = catalog::openDataset(sdf.toStdString(), r);
    QCOMPARE(mol.size(), std::size_t(1));
}

void TestGraph::optionsThroughTheCatalog()
{
    const std::string mini = miniTuDataset().toStdString();
    const std::string sdf = oneSdf().toStdString();
    setscope::plugin::Registry r;
    setscope::builtins::registerBuiltins(r);
    auto open = [&](const std::string& spec) { return catalog::openDataset(spec, r); };
    auto error = [&](const std::string& spec) {
        try {
            open(spec);
        } catch (const std::invalid_argument& e) {
            return QString(e.what());
        }
        return QString("no error");
    };

    // features: L labels + A attributes + degree, degree/(n-1) + rw return probabilities.
    // MINI has no labels or attributes: 2 + 4 by default (rw=4), 2 + K with rw=K.
    QCOMPARE(open(mini).dim(), 6);
    QCOMPARE(open(mini + "?rw=0").dim(), 2);
    QCOMPARE(open(mini + "?rw=2").dim(), 4);
    // adjacency: a row of the adjacency matrix, padded to the largest node count (2).
    const Dataset adj = open(mini + "?repr=adjacency");
    QCOMPARE(adj.dim(), 2);
    QCOMPARE(std::vector<float>(adj.item(0).values, adj.item(0).values + 4), (std::vector<float>{0, 1, 1, 0}));
    // folds / fold / seed: 10 folds by default; with folds=2 each graph is in fold 0 or 1 and
    // exactly the graphs of the chosen fold are test.
    QCOMPARE(open(mini).requireLabelSet("cv-fold").numClasses(), 10);
    for (int fold : {0, 1}) {
        const Dataset ds = open(mini + "?folds=2,seed=5,fold=" + std::to_string(fold));
        const LabelSet& folds = ds.requireLabelSet("cv-fold");
        QCOMPARE(folds.numClasses(), 2);
        for (std::size_t i = 0; i < ds.size(); ++i)
            QCOMPARE(ds.split(i) == Split::Test, folds.labels[i] == fold);
    }
    QCOMPARE(open(mini + "?seed=0").values(), open(mini).values()); // seed 0 is the default

    const QString tu = QString::fromStdString(mini) + ": loader tudataset";
    QCOMPARE(error(mini + "?rw=65"), tu + ": option rw=65: outside [0, 64]");
    QCOMPARE(error(mini + "?folds=1"), tu + ": option folds=1: outside [2, 1000]");
    QCOMPARE(error(mini + "?repr=laplacian"), tu + ": option repr=laplacian: not one of features|adjacency");
    QVERIFY2(error(mini + "?folds=2,fold=2").contains("fold=2: expected 0..1"), qPrintable(error(mini + "?folds=2,fold=2")));
    // class and threshold are the SDF's: a TUDataset's class is its graph labels.
    QCOMPARE(error(mini + "?class=x"), tu + " has no option 'class' (it has: repr, rw, folds, fold, seed)");

    // SDF: one carbon: 1 element + 2 attributes (formal charge, aromatic bonds) + 2 + K.
    QCOMPARE(open(sdf).dim(), 9);
    QCOMPARE(open(sdf + "?rw=1").dim(), 6);
    QCOMPARE(open(sdf + "?repr=adjacency").dim(), 1);
    QVERIFY2(error(sdf + "?threshold=7").contains("needs class=PROPERTY"), qPrintable(error(sdf + "?threshold=7")));
    QVERIFY2(error(sdf + "?class=A,threshold=high").contains("threshold=high: expected a number"),
             qPrintable(error(sdf + "?class=A,threshold=high")));
    QCOMPARE(error(sdf + "?klass=A"), QString::fromStdString(sdf) + ": loader sdf has no option 'klass' (it has: repr, "
                                                                    "rw, folds, fold, seed, class, threshold)");
}

void TestGraph::edgesReachTheDataset()
{
    // TUDataset: graph 1 = triangle on global nodes 1..3 (each edge listed both ways),
    // graph 2 = path 4-5-6 listed one way, graph 3 = node 7 alone. Element i of an item is
    // local node i, so the item's edges are the graph's in local ids.
    const QString dir = m_dir.filePath("TRI");
    QDir().mkpath(dir);
    writeText(dir + "/TRI_A.txt", "1, 2\n2, 1\n2, 3\n3, 2\n1, 3\n3, 1\n4, 5\n6, 5\n");
    writeText(dir + "/TRI_graph_indicator.txt", "1\n1\n1\n2\n2\n2\n3\n");
    writeText(dir + "/TRI_graph_labels.txt", "0\n1\n1\n");
    setscope::plugin::Registry r;
    setscope::builtins::registerBuiltins(r);
    const Dataset tu = catalog::openDataset(dir.toStdString(), r);
    QVERIFY(tu.hasEdges());
    QCOMPARE(tu.size(), std::size_t(3));
    auto edgesOf = [](const Dataset& ds, std::size_t i) {
        const auto e = ds.edges(i);
        return std::vector<std::int32_t>(e.begin(), e.end());
    };
    QCOMPARE(edgesOf(tu, 0), (std::vector<std::int32_t>{0, 1, 0, 2, 1, 2}));
    QCOMPARE(edgesOf(tu, 1), (std::vector<std::int32_t>{0, 1, 1, 2}));
    QCOMPARE(tu.edgeCount(2), std::size_t(0));
    // The adjacency representation has the same edges (and the rows agree with them).
    const Dataset adj = catalog::openDataset(dir.toStdString() + "?repr=adjacency", r);
    QCOMPARE(adj.edgePairs(), tu.edgePairs());

    // SDF: C-C-O, bonds 1-2 and 3-2 (atom numbers 1-based in the file).
    const QString sdf = m_dir.filePath("cco.sdf");
    writeText(sdf, "ethanol\n\n\n  3  2  0  0  0  0  0  0  0  0999 V2000\n"
                   "    0.0000    0.0000    0.0000 C   0  0\n"
                   "    1.0000    0.0000    0.0000 C   0  0\n"
                   "    2.0000    0.0000    0.0000 O   0  0\n"
                   "  1  2  1  0\n  3  2  1  0\nM  END\n$$$$\n");
    const Dataset mol = catalog::openDataset(sdf.toStdString(), r);
    QCOMPARE(mol.setSize(0), std::size_t(3));
    QCOMPARE(edgesOf(mol, 0), (std::vector<std::int32_t>{0, 1, 1, 2}));
}

QTEST_GUILESS_MAIN(TestGraph)
#include "tst_Graph.moc"
