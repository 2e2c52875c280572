// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Dataset.h"
#include "core/data/graph/TuDataset.h"
#include "tests/core/data/AllocationCap.h"

#include <QtTest>

#include <chrono>
#include <fstream>
#include <map>
#include <random>

using namespace setscope::data;

namespace {

/// The hand-made dataset "TOY", three graphs (global node ids 1..9):
///   graph 1: path a(1) - b(2) - c(3)                       label  1
///   graph 2: triangle d(4) e(5) f(6) and isolated node g(7)  label -1
///   graph 3: one edge h(8) - i(9)                          label  1
/// Node labels 10 2 10 | 2 2 2 7 | 2 10: present {2, 7, 10}, one-hot in numeric order.
struct Files {
    std::string A = "1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n5, 6\n6, 5\n4, 6\n6, 4\n8, 9\n9, 8\n";
    std::string indicator = "1\n1\n1\n2\n2\n2\n2\n3\n3\n";
    std::string graphLabels = "1\n-1\n1\n";
    std::string nodeLabels = "10\n2\n10\n2\n2\n2\n7\n2\n10\n";
    std::string nodeAttributes; // none by default
    std::string edgeLabels;     // none by default
};

void writeText(const QString& path, const std::string& text)
{
    std::ofstream f(path.toStdString(), std::ios::binary);
    f << text;
}

QString writeDataset(const QString& dir, const Files& f, const QString& ds = "TOY")
{
    QDir().mkpath(dir);
    writeText(dir + "/" + ds + "_A.txt", f.A);
    if (!f.indicator.empty())
        writeText(dir + "/" + ds + "_graph_indicator.txt", f.indicator);
    if (!f.graphLabels.empty())
        writeText(dir + "/" + ds + "_graph_labels.txt", f.graphLabels);
    if (!f.nodeLabels.empty())
        writeText(dir + "/" + ds + "_node_labels.txt", f.nodeLabels);
    if (!f.nodeAttributes.empty())
        writeText(dir + "/" + ds + "_node_attributes.txt", f.nodeAttributes);
    if (!f.edgeLabels.empty())
        writeText(dir + "/" + ds + "_edge_labels.txt", f.edgeLabels);
    return dir;
}

Dataset load(const QString& path, const GraphOptions& o = {})
{
    DatasetBuilder b(path.toStdString());
    loadTuDataset(path.toStdString(), b, o);
    return b.finish();
}

QString errorOf(const QString& path)
{
    try {
        load(path);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

std::vector<float> row(const Dataset& ds, std::size_t item, std::size_t element)
{
    const auto e = ds.item(item).element(element);
    return {e.begin(), e.end()};
}

void compareRow(const std::vector<float>& got, const std::vector<float>& want)
{
    QCOMPARE(got.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k)
        QVERIFY2(std::abs(got[k] - want[k]) < 1e-6f,
                 qPrintable(QString("column %1: got %2, want %3").arg(k).arg(got[k]).arg(want[k])));
}

bool hasNote(const Dataset& ds, const std::string& part)
{
    for (const auto& n : ds.notes())
        if (n.find(part) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestTuDataset : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void featuresByHand();
    void adjacencyRowsByHand();
    void attributesAndIgnoredFiles();
    void folderOrEdgeFile();
    void foldOptionSelectsTest();
    void noLabelsFiles();
    void oneWayEdgesAndSelfLoops();
    void badInput_data();
    void badInput();
    void attributeCountCheckedBeforeAllocating();
    void nci1Sized();

private:
    QTemporaryDir m_dir;
};

void TestTuDataset::featuresByHand()
{
    const QString dir = writeDataset(m_dir.filePath("toy"), Files{});
    const Dataset ds = load(dir);
    QCOMPARE(ds.name(), std::string("TOY"));
    QCOMPARE(ds.size(), std::size_t(3));
    // 3 one-hot labels + 0 attributes + degree + degree/(n-1) + 4 return probabilities
    QCOMPARE(ds.dim(), 3 + 2 + 4);
    QCOMPARE(ds.setSize(0), std::size_t(3));
    QCOMPARE(ds.setSize(1), std::size_t(4));
    QCOMPARE(ds.setSize(2), std::size_t(2));
    // Columns: [label 2, label 7, label 10, degree, degree/(n-1), p^(1), p^(2), p^(3), p^(4)].
    // Path a-b-c: from an end the walk goes to b, then back with 1/2: p_aa = 0, 1/2, 0, 1/2;
    // from b every 2-step walk returns: p_bb = 0, 1, 0, 1.
    compareRow(row(ds, 0, 0), {0, 0, 1, 1, 0.5f, 0, 0.5f, 0, 0.5f});
    compareRow(row(ds, 0, 1), {1, 0, 0, 2, 1.0f, 0, 1, 0, 1});
    compareRow(row(ds, 0, 2), {0, 0, 1, 1, 0.5f, 0, 0.5f, 0, 0.5f});
    // Triangle: closed walks (A^k)_ii = (2^k + 2(-1)^k)/3 = 0, 2, 2, 6 over 2^k walks:
    // 0, 1/2, 1/4, 3/8. n = 4 (with the isolated node), so degree/(n-1) = 2/3.
    for (std::size_t e = 0; e < 3; ++e)
        compareRow(row(ds, 1, e), {1, 0, 0, 2, 2.0f / 3.0f, 0, 0.5f, 0.25f, 0.375f});
    // The isolated node: degree 0 and return probabilities defined as 0.
    compareRow(row(ds, 1, 3), {0, 1, 0, 0, 0, 0, 0, 0, 0});
    // One edge: p = 0, 1, 0, 1; degree 1 of n-1 = 1.
    compareRow(row(ds, 2, 0), {1, 0, 0, 1, 1, 0, 1, 0, 1});
    compareRow(row(ds, 2, 1), {0, 0, 1, 1, 1, 0, 1, 0, 1});
    // Uniform weights 1/n per graph.
    QCOMPARE(ds.item(0).weights[2], 1.0f / 3.0f);
    QCOMPARE(ds.item(1).weights[3], 0.25f);
    QCOMPARE(ds.item(2).weights[0], 0.5f);
    // Graph labels, numeric class order: "-1" before "1".
    const LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames, (std::vector<std::string>{"-1", "1"}));
    QCOMPARE(fine.labels, (std::vector<std::int32_t>{1, 0, 1}));
    QVERIFY(ds.hasElementText());
    QCOMPARE(ds.elementText(6), std::string("node 7 (label 7)"));
    QCOMPARE(ds.sourceFiles().size(), std::size_t(4));
}

void TestTuDataset::adjacencyRowsByHand()
{
    const QString dir = writeDataset(m_dir.filePath("adj"), Files{});
    GraphOptions o;
    o.representation = GraphRepresentation::Adjacency;
    const Dataset ds = load(dir, o);
    QCOMPARE(ds.dim(), 4); // the largest graph has 4 nodes
    compareRow(row(ds, 0, 0), {0, 1, 0, 0});
    compareRow(row(ds, 0, 1), {1, 0, 1, 0});
    compareRow(row(ds, 0, 2), {0, 1, 0, 0});
    compareRow(row(ds, 1, 0), {0, 1, 1, 0});
    compareRow(row(ds, 1, 1), {1, 0, 1, 0});
    compareRow(row(ds, 1, 2), {1, 1, 0, 0});
    compareRow(row(ds, 1, 3), {0, 0, 0, 0}); // isolated
    compareRow(row(ds, 2, 0), {0, 1, 0, 0});
    compareRow(row(ds, 2, 1), {1, 0, 0, 0});
}

void TestTuDataset::attributesAndIgnoredFiles()
{
    Files f;
    f.nodeLabels.clear();
    f.nodeAttributes = "0.5, -1\n1,2\n3, 4\n5, 6\n7, 8\n9, 10\n11, 12\n13, 14\n15, 1e-3\n";
    f.edgeLabels = "1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n1\n";
    const QString dir = writeDataset(m_dir.filePath("attr"), f);
    GraphOptions o;
    o.randomWalkSteps = 2;
    const Dataset ds = load(dir, o);
    // No labels: [attribute 1, attribute 2, degree, degree/(n-1), p^(1), p^(2)].
    QCOMPARE(ds.dim(), 2 + 2 + 2);
    compareRow(row(ds, 0, 0), {0.5f, -1, 1, 0.5f, 0, 0.5f});
    compareRow(row(ds, 2, 1), {15, 1e-3f, 1, 1, 0, 1});
    QVERIFY(hasNote(ds, "TOY_edge_labels.txt is not used"));
    QCOMPARE(ds.elementText(0), std::string("node 1"));
}

void TestTuDataset::folderOrEdgeFile()
{
    const QString dir = writeDataset(m_dir.filePath("paths"), Files{});
    QVERIFY(looksLikeTuDataset(dir.toStdString()));
    QVERIFY(looksLikeTuDataset((dir + "/TOY_A.txt").toStdString()));
    QVERIFY(!looksLikeTuDataset((dir + "/TOY_graph_labels.txt").toStdString()));
    QVERIFY(!looksLikeTuDataset(m_dir.path().toStdString())); // no *_A.txt directly inside
    const Dataset a = load(dir);
    const Dataset b = load(dir + "/TOY_A.txt");
    QCOMPARE(a.values(), b.values());
    QCOMPARE(a.contentHash(), b.contentHash());
}

void TestTuDataset::foldOptionSelectsTest()
{
    // 40 graphs of one node pair each, labels 0 (25 graphs) and 1 (15 graphs).
    Files f;
    f.A.clear();
    f.indicator.clear();
    f.graphLabels.clear();
    f.nodeLabels.clear();
    for (int g = 0; g < 40; ++g) {
        const int a = 2 * g + 1, b = 2 * g + 2;
        f.A += std::to_string(a) + ", " + std::to_string(b) + "\n" + std::to_string(b) + ", " + std::to_string(a) + "\n";
        f.indicator += std::to_string(g + 1) + "\n" + std::to_string(g + 1) + "\n";
        f.graphLabels += g < 25 ? "0\n" : "1\n";
    }
    const QString dir = writeDataset(m_dir.filePath("folds"), f);
    for (int fold : {0, 3, 9}) {
        GraphOptions o;
        o.fold = fold;
        const Dataset ds = load(dir, o);
        const LabelSet& cv = ds.requireLabelSet("cv-fold");
        QCOMPARE(cv.numClasses(), 10);
        QCOMPARE(cv.classNames[3], std::string("fold 3"));
        std::size_t tests = 0;
        for (std::size_t i = 0; i < ds.size(); ++i) {
            QCOMPARE(ds.split(i) == Split::Test, cv.labels[i] == fold);
            tests += ds.split(i) == Split::Test;
        }
        QCOMPARE(tests, std::size_t(4)); // 40 graphs / 10 folds
        // Stratified: 25 of class 0 -> 2 or 3 per fold; 15 of class 1 -> 1 or 2 per fold.
        const LabelSet& fine = ds.requireLabelSet("fine");
        std::map<std::pair<int, int>, int> perFoldClass;
        for (std::size_t i = 0; i < ds.size(); ++i)
            ++perFoldClass[{cv.labels[i], fine.labels[i]}];
        for (int k = 0; k < 10; ++k) {
            const int c0 = perFoldClass[std::make_pair(k, 0)], c1 = perFoldClass[std::make_pair(k, 1)];
            QVERIFY(c0 == 2 || c0 == 3);
            QVERIFY(c1 == 1 || c1 == 2);
        }
    }
    // Same seed, same folds; the fold labels do not depend on which fold is the test split.
    GraphOptions a, b;
    b.fold = 5;
    QCOMPARE(load(dir, a).requireLabelSet("cv-fold").labels, load(dir, b).requireLabelSet("cv-fold").labels);
    GraphOptions c;
    c.seed = 7;
    QVERIFY(load(dir, a).requireLabelSet("cv-fold").labels != load(dir, c).requireLabelSet("cv-fold").labels);
}

void TestTuDataset::noLabelsFiles()
{
    Files f;
    f.graphLabels.clear();
    f.nodeLabels.clear();
    const QString dir = writeDataset(m_dir.filePath("nolabels"), f);
    const Dataset ds = load(dir);
    QCOMPARE(ds.dim(), 2 + 4);
    QVERIFY(ds.labelSet("fine") == nullptr);
    QVERIFY(ds.labelSet("cv-fold") != nullptr);
    QVERIFY(hasNote(ds, "graphs are unlabelled"));
}

void TestTuDataset::oneWayEdgesAndSelfLoops()
{
    // Edges listed once, a repeated line and a self-loop on node 3 (whitespace-separated ids).
    Files f;
    f.A = "1 2\n2 3\n1 2\n3 3\n4, 5\n5, 6\n6, 4\n8, 9\n";
    const QString dir = writeDataset(m_dir.filePath("oneway"), f);
    const Dataset ds = load(dir);
    QVERIFY(hasNote(ds, "1 lines repeat an edge"));
    QVERIFY(hasNote(ds, "1 self-loops kept"));
    QVERIFY(hasNote(ds, "listed in one direction only"));
    // Path a-b-c with a loop on c: degrees 1, 2, 2 (the loop counts once).
    // c's walk: P(c->c) = P(c->b) = 1/2, P(b->a) = P(b->c) = 1/2, P(a->b) = 1. Distribution
    // after k steps from c: k=1 {c 1/2, b 1/2}, k=2 {c 1/2, b 1/4, a 1/4}, k=3 {c 3/8, b 1/2,
    // a 1/8}, k=4 c = 3/8*1/2 + 1/2*1/2 = 7/16.
    compareRow(row(ds, 0, 2), {0, 0, 1, 2, 1.0f, 0.5f, 0.5f, 0.375f, 0.4375f});
    // a: after 2 steps a 1/2, c 1/2; after 3 steps b 3/4, c 1/4 (p^(3) = 0); after 4 steps a gets
    // 3/4 * 1/2 = 3/8.
    compareRow(row(ds, 0, 0), {0, 0, 1, 1, 0.5f, 0, 0.5f, 0, 0.375f});
}

void TestTuDataset::badInput_data()
{
    QTest::addColumn<QString>("file");   // the file that must be named
    QTest::addColumn<QString>("field");  // which fixture field to replace
    QTest::addColumn<QString>("text");   // its new content ("-" = delete the file)
    QTest::addColumn<QString>("expect"); // part of the message
    QTest::addColumn<int>("line");       // the line that must be named (0 = none)

    QTest::newRow("indicator non-numeric") << "graph_indicator" << "indicator" << "1\n1\nx\n2\n2\n2\n2\n3\n3\n"
                                           << "is not a graph id" << 3;
    QTest::newRow("indicator graph id 0") << "graph_indicator" << "indicator" << "1\n1\n1\n0\n2\n2\n2\n3\n3\n"
                                          << "out of range" << 4;
    QTest::newRow("empty graph (id skipped)") << "graph_indicator" << "indicator" << "1\n1\n1\n3\n3\n3\n3\n4\n4\n"
                                              << "graph 2 has no nodes" << 0;
    // One line holding graph id 10^8: the reader allocated room for 10^8 graphs (400 MB)
    // before it noticed that graphs 4..99999999 have no nodes.
    QTest::newRow("indicator graph id 10^8") << "graph_indicator" << "indicator" << "1\n1\n1\n2\n2\n2\n2\n3\n100000000\n"
                                             << "graph id 100000000 out of range: the file lists 9 nodes" << 9;
    QTest::newRow("indicator empty") << "graph_indicator" << "indicator" << "\n" << "no nodes" << 0;
    QTest::newRow("indicator missing") << "graph_indicator" << "indicator" << "-" << "missing" << 0;
    QTest::newRow("blank line inside") << "graph_indicator" << "indicator" << "1\n1\n\n1\n2\n2\n2\n2\n3\n3\n"
                                       << "empty line inside" << 3;
    QTest::newRow("node labels truncated") << "node_labels" << "nodeLabels" << "10\n2\n10\n2\n2\n2\n7\n2\n"
                                           << "truncated: 8 lines, expected 9" << 9;
    QTest::newRow("node labels too many") << "node_labels" << "nodeLabels" << "10\n2\n10\n2\n2\n2\n7\n2\n10\n4\n"
                                          << "more lines than nodes" << 10;
    QTest::newRow("node label non-numeric") << "node_labels" << "nodeLabels" << "10\n2\nC\n2\n2\n2\n7\n2\n10\n"
                                            << "is not a node label" << 3;
    QTest::newRow("graph labels too few") << "graph_labels" << "graphLabels" << "1\n-1\n"
                                          << "truncated: 2 lines, expected 3 (one per graph" << 3;
    QTest::newRow("graph labels too many") << "graph_labels" << "graphLabels" << "1\n-1\n1\n1\n"
                                           << "more lines than graphs" << 4;
    QTest::newRow("graph label non-numeric") << "graph_labels" << "graphLabels" << "1\nactive\n1\n"
                                             << "is not a graph label" << 2;
    QTest::newRow("edge across graphs") << "A" << "A" << "1, 2\n2, 1\n3, 4\n"
                                        << "an edge must join nodes of one graph" << 3;
    QTest::newRow("node id 0") << "A" << "A" << "1, 2\n0, 1\n" << "node id 0 out of range" << 2;
    QTest::newRow("node id too large") << "A" << "A" << "1, 2\n9, 10\n" << "node id 10 out of range" << 2;
    QTest::newRow("edge non-numeric") << "A" << "A" << "1, 2\n2, b\n" << "'b' is not a node id" << 2;
    QTest::newRow("edge truncated line") << "A" << "A" << "1, 2\n2, 1\n2," << "truncated line" << 3;
    QTest::newRow("edge three fields") << "A" << "A" << "1, 2, 3\n" << "expected 'i, j'" << 1;
    QTest::newRow("attributes wrong count") << "node_attributes" << "nodeAttributes"
                                            << "1, 2\n1, 2\n1, 2\n1\n1, 2\n1, 2\n1, 2\n1, 2\n1, 2\n"
                                            << "1 values, but the first line has 2" << 4;
    QTest::newRow("attribute non-numeric") << "node_attributes" << "nodeAttributes"
                                           << "1, 2\n1, 2\n1, 2\n1, 2\n1, nan?\n1, 2\n1, 2\n1, 2\n1, 2\n"
                                           << "is not a number" << 5;
    QTest::newRow("attributes truncated") << "node_attributes" << "nodeAttributes" << "1, 2\n1, 2\n"
                                          << "truncated: 2 lines, expected 9" << 3;
}

void TestTuDataset::badInput()
{
    QFETCH(QString, file);
    QFETCH(QString, field);
    QFETCH(QString, text);
    QFETCH(QString, expect);
    QFETCH(int, line);
    Files f;
    const std::string t = text == "-" ? std::string() : text.toStdString();
    if (field == "indicator")
        f.indicator = t;
    else if (field == "nodeLabels")
        f.nodeLabels = t;
    else if (field == "graphLabels")
        f.graphLabels = t;
    else if (field == "A")
        f.A = t;
    else if (field == "nodeAttributes")
        f.nodeAttributes = t;
    const QString dir = m_dir.filePath(QString("bad-%1").arg(QTest::currentDataTag()).replace(' ', '_'));
    writeDataset(dir, f);
    if (text != "-" && t.find_first_not_of('\n') == std::string::npos)
        writeText(dir + "/TOY_graph_indicator.txt", t); // an empty file still exists
    QString msg;
    {
        const setscope::testing::AllocationCap cap; // what a crafted file claims must not be allocated
        QVERIFY(cap.active());
        msg = errorOf(dir);
    }
    QVERIFY2(!msg.isEmpty(), "bad input accepted");
    QVERIFY2(msg.contains(expect), qPrintable(msg));
    QVERIFY2(msg.startsWith(dir + "/TOY_" + file + ".txt"), qPrintable(msg)); // names the file
    if (line > 0)
        QVERIFY2(msg.contains(QString("(line %1)").arg(line)), qPrintable(msg));
}

void TestTuDataset::attributeCountCheckedBeforeAllocating()
{
    // 10^5 nodes in one graph and a first attribute line of 100 001 values: N x A = 10^10
    // floats (40 GB) were allocated before the second line showed 1 value.
    Files f;
    f.indicator.clear();
    for (int i = 0; i < 100000; ++i)
        f.indicator += "1\n";
    f.A = "1, 2\n2, 1\n";
    f.graphLabels = "1\n";
    f.nodeLabels.clear();
    f.nodeAttributes = "0";
    for (int a = 0; a < 100000; ++a)
        f.nodeAttributes += ",0";
    f.nodeAttributes += "\n";
    for (int i = 1; i < 100000; ++i)
        f.nodeAttributes += "0\n";
    const QString dir = writeDataset(m_dir.filePath("wide-attributes"), f);
    QString msg;
    {
        const setscope::testing::AllocationCap cap;
        QVERIFY(cap.active());
        msg = errorOf(dir);
    }
    QVERIFY2(msg.startsWith(dir + "/TOY_node_attributes.txt (line 2): 1 values, but the first line has 100001"),
             qPrintable(msg));
}

void TestTuDataset::nci1Sized()
{
    // NCI1's size: 4 110 graphs of 30 nodes (a ring with chords, ~32 edges listed both ways),
    // node labels from 37 values, two classes. Checks the counts at that scale and reports
    // the load time (informative only: timing lives in bench/, not in a test's verdict).
    const int G = 4110, n = 30;
    std::mt19937 rng(1);
    std::string A, ind, nl, gl;
    A.reserve(G * 70 * 8);
    std::size_t undirected = 0;
    for (int g = 0; g < G; ++g) {
        const int base = g * n;
        auto edge = [&](int a, int b) {
            A += std::to_string(base + a + 1) + ", " + std::to_string(base + b + 1) + "\n";
            A += std::to_string(base + b + 1) + ", " + std::to_string(base + a + 1) + "\n";
            ++undirected;
        };
        for (int i = 0; i < n; ++i)
            edge(i, (i + 1) % n);
        edge(0, n / 2);
        edge(5, 20);
        for (int i = 0; i < n; ++i) {
            ind += std::to_string(g + 1) + "\n";
            nl += std::to_string(rng() % 37) + "\n";
        }
        gl += (g % 2) ? "1\n" : "0\n";
    }
    Files f;
    f.A = A;
    f.indicator = ind;
    f.nodeLabels = nl;
    f.graphLabels = gl;
    const QString dir = writeDataset(m_dir.filePath("nci1"), f, "NCI1SIZED");
    const auto t0 = std::chrono::steady_clock::now();
    const Dataset ds = load(dir);
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    QCOMPARE(ds.size(), std::size_t(G));
    QCOMPARE(ds.elementCount(), std::size_t(G) * n);
    QCOMPARE(ds.dim(), 37 + 2 + 4);
    QCOMPARE(ds.count(Split::Test), std::size_t(G / 10)); // 411 in fold 0 (4110 = 10 x 411)
    QCOMPARE(undirected, std::size_t(G) * 32);
    GraphOptions adj;
    adj.representation = GraphRepresentation::Adjacency;
    const auto t1 = std::chrono::steady_clock::now();
    const Dataset da = load(dir, adj);
    const double sec2 = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    QCOMPARE(da.dim(), n);
    qInfo("NCI1-sized (4110 graphs x 30 nodes, %zu edge lines): features %.3f s, adjacency %.3f s", undirected * 2, sec,
          sec2);
}

QTEST_GUILESS_MAIN(TestTuDataset)
#include "tst_TuDataset.moc"
