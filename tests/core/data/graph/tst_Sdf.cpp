// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/data/Dataset.h"
#include "core/data/graph/Sdf.h"

#include <QtTest>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace setscope::data;

namespace {

std::string atomLine(const char* symbol, int chargeCode = 0, double x = 0)
{
    char buf[128];
    std::snprintf(buf, sizeof buf, "%10.4f%10.4f%10.4f %-3s 0%3d  0  0  0  0  0  0  0  0  0  0", x, 1.5, -2.25, symbol,
                  chargeCode);
    return buf;
}

std::string bondLine(int a, int b, int type)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%3d%3d%3d  0", a, b, type);
    return buf;
}

std::string countsLine(int atoms, int bonds)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%3d%3d  0  0  0  0  0  0  0  0999 V2000", atoms, bonds);
    return buf;
}

/// Record 1 "acetate" (lines 1..19): C1-C2, C2=O3, C2-O4, O4 charged -1 by M  CHG.
/// Record 2 "ring" (lines 20..): aromatic 3-ring C1 C2 N3, N3 charged +1 by its atom-block code 3.
struct Pair {
    std::vector<std::string> lines{
        "acetate", "  setscope-test", "", countsLine(4, 3),
        atomLine("C"), atomLine("C"), atomLine("O"), atomLine("O", 0),
        bondLine(1, 2, 1), bondLine(2, 3, 2), bondLine(2, 4, 1),
        "M  CHG  1   4  -1", "M  END",
        "> <ACTIVITY>", "7.5", "",
        "> <NAME>", "acetate", "",
        "$$$$",
        "ring", "  setscope-test", "", countsLine(3, 3),
        atomLine("C"), atomLine("C"), atomLine("N", 3),
        bondLine(1, 2, 4), bondLine(2, 3, 4), bondLine(3, 1, 4),
        "M  END",
        ">  <ACTIVITY>  (2)", "6.2", "",
        "$$$$",
    };
    std::string text() const
    {
        std::string t;
        for (const auto& l : lines)
            t += l + "\n";
        return t;
    }
};

QString writeFile(const QString& path, const std::string& text)
{
    std::ofstream f(path.toStdString(), std::ios::binary);
    f << text;
    return path;
}

Dataset load(const QString& path, const GraphOptions& o = {})
{
    DatasetBuilder b(path.toStdString());
    loadSdf(path.toStdString(), b, o);
    return b.finish();
}

QString errorOf(const QString& path, const GraphOptions& o)
{
    try {
        load(path, o);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

void compareRow(const Dataset& ds, std::size_t item, std::size_t element, const std::vector<float>& want)
{
    const auto got = ds.item(item).element(element);
    QCOMPARE(got.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k)
        QVERIFY2(std::abs(got[k] - want[k]) < 1e-6f,
                 qPrintable(QString("item %1 element %2 column %3: got %4, want %5")
                                .arg(item).arg(element).arg(k).arg(got[k]).arg(want[k])));
}

GraphOptions activity7()
{
    GraphOptions o;
    o.classProperty = "ACTIVITY";
    o.threshold = 7.0;
    return o;
}

} // namespace

class TestSdf : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init() { QVERIFY(m_dir.isValid()); }
    void moleculePairByHand();
    void categoricalClassAndUnlabelled();
    void singleMolfile();
    void fixedColumnsBeyond99Atoms();
    void badInput_data();
    void badInput();

private:
    QTemporaryDir m_dir;
};

void TestSdf::moleculePairByHand()
{
    const QString path = writeFile(m_dir.filePath("pair.sdf"), Pair{}.text());
    QVERIFY(looksLikeSdf(path.toStdString()));
    const Dataset ds = load(path, activity7());
    QCOMPARE(ds.size(), std::size_t(2));
    // [C, N, O] one-hot + [formal charge, aromatic bonds] + [degree, degree/(n-1)] + p^(1..4).
    QCOMPARE(ds.dim(), 3 + 2 + 2 + 4);
    // Acetate is a star around C2: a leaf returns after 2 steps with 1/3, the centre with 1.
    const float t = 1.0f / 3.0f;
    compareRow(ds, 0, 0, {1, 0, 0, 0, 0, 1, t, 0, t, 0, t});
    compareRow(ds, 0, 1, {1, 0, 0, 0, 0, 3, 1, 0, 1, 0, 1});
    compareRow(ds, 0, 2, {0, 0, 1, 0, 0, 1, t, 0, t, 0, t});
    compareRow(ds, 0, 3, {0, 0, 1, -1, 0, 1, t, 0, t, 0, t}); // M  CHG: -1
    // The ring: a triangle, every atom on two aromatic bonds; p = 0, 1/2, 1/4, 3/8.
    compareRow(ds, 1, 0, {1, 0, 0, 0, 2, 2, 1, 0, 0.5f, 0.25f, 0.375f});
    compareRow(ds, 1, 2, {0, 1, 0, 1, 2, 2, 1, 0, 0.5f, 0.25f, 0.375f}); // atom-block code 3 = +1
    const LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames, (std::vector<std::string>{"ACTIVITY < 7", "ACTIVITY >= 7"}));
    QCOMPARE(fine.labels, (std::vector<std::int32_t>{1, 0}));
    QCOMPARE(ds.elementText(3), std::string("O4-1"));
    QCOMPARE(ds.elementText(6), std::string("N3+1"));
    QCOMPARE(ds.item(0).weights[0], 0.25f);

    GraphOptions adj = activity7();
    adj.representation = GraphRepresentation::Adjacency;
    const Dataset da = load(path, adj);
    QCOMPARE(da.dim(), 4);
    compareRow(da, 0, 1, {1, 0, 1, 1});
    compareRow(da, 1, 2, {1, 1, 0, 0});
}

void TestSdf::categoricalClassAndUnlabelled()
{
    const QString path = writeFile(m_dir.filePath("cat.sdf"), Pair{}.text());
    GraphOptions o;
    o.classProperty = "ACTIVITY";
    const Dataset ds = load(path, o);
    QCOMPARE(ds.requireLabelSet("fine").classNames, (std::vector<std::string>{"6.2", "7.5"}));
    const Dataset un = load(path);
    QVERIFY(un.labelSet("fine") == nullptr);
    bool told = false;
    for (const auto& n : un.notes())
        told = told || n.find("<ACTIVITY>, <NAME>") != std::string::npos;
    QVERIFY2(told, "the note should list the data items a user can choose");
}

void TestSdf::singleMolfile()
{
    Pair p;
    p.lines.resize(13); // the acetate record up to M  END, no data, no $$$$
    const QString path = writeFile(m_dir.filePath("acetate.mol"), p.text());
    const Dataset ds = load(path);
    QCOMPARE(ds.size(), std::size_t(1));
    QCOMPARE(ds.setSize(0), std::size_t(4));
    QCOMPARE(ds.dim(), 2 + 2 + 2 + 4); // C, O
}

void TestSdf::fixedColumnsBeyond99Atoms()
{
    // A chain of 101 carbons: bond " 99100  1" has touching fields that only the V2000
    // columns separate.
    std::vector<std::string> lines{"chain", "", "", countsLine(101, 100)};
    for (int a = 0; a < 101; ++a)
        lines.push_back(atomLine("C", 0, a));
    for (int a = 1; a <= 100; ++a)
        lines.push_back(bondLine(a, a + 1, 1));
    lines.push_back("M  END");
    lines.push_back("$$$$");
    std::string text;
    for (const auto& l : lines)
        text += l + "\n";
    QVERIFY(text.find(" 99100  1") != std::string::npos);
    const QString path = writeFile(m_dir.filePath("chain.sdf"), text);
    GraphOptions o;
    o.randomWalkSteps = 0;
    const Dataset ds = load(path, o);
    QCOMPARE(ds.setSize(0), std::size_t(101));
    // [C, charge, aromatic, degree, degree/100]: ends have degree 1, the rest 2.
    compareRow(ds, 0, 0, {1, 0, 0, 1, 0.01f});
    compareRow(ds, 0, 98, {1, 0, 0, 2, 0.02f});
    compareRow(ds, 0, 100, {1, 0, 0, 1, 0.01f});
}

void TestSdf::badInput_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("expect");
    QTest::addColumn<int>("line");
    QTest::newRow("V3000") << 0 << "V3000 molfiles are not supported" << 4;
    QTest::newRow("atom count too high") << 1 << "atom count mismatch" << 9;
    QTest::newRow("atom count too low") << 2 << "atom count mismatch" << 8;
    QTest::newRow("bond to a missing atom") << 3 << "bond to a missing atom: atom 5" << 10;
    QTest::newRow("missing class property") << 4 << "record 2 'ring', line 21): has no data item <NAME>" << 21;
    QTest::newRow("truncated in the atom block") << 5 << "truncated" << 7;
    QTest::newRow("class value not a number") << 6 << "is not a number" << 1;
    QTest::newRow("empty molecule") << 7 << "no atoms" << 4;
    QTest::newRow("counts line garbage") << 8 << "expected the counts line" << 4;
    QTest::newRow("bond count too high") << 9 << "bond count mismatch" << 12;
    QTest::newRow("bond count too low") << 10 << "more atom or bond lines" << 11;
    QTest::newRow("M CHG atom out of range") << 11 << "'M  CHG' names atom 9" << 12;
    QTest::newRow("truncated before M END") << 12 << "ends before 'M  END'" << 11;
    QTest::newRow("no molecules") << 13 << "no molecules" << 0;
}

void TestSdf::badInput()
{
    QFETCH(int, kind);
    QFETCH(QString, expect);
    QFETCH(int, line);
    Pair p;
    GraphOptions o = activity7();
    std::string text;
    switch (kind) {
    case 0: p.lines[3] = "  0  0  0     0  0            999 V3000"; break;
    case 1: p.lines[3] = countsLine(5, 3); break;
    case 2: p.lines[3] = countsLine(3, 3); break;
    case 3: p.lines[9] = bondLine(2, 5, 2); break;
    case 4: o = GraphOptions{}; o.classProperty = "NAME"; break;
    case 5: p.lines.resize(6); break;
    case 6: p.lines[14] = "n/a"; break;
    case 7: p.lines[3] = countsLine(0, 0); break;
    case 8: p.lines[3] = "four atoms"; break;
    case 9: p.lines[3] = countsLine(4, 4); break;
    case 10: p.lines[3] = countsLine(4, 2); break;
    case 11: p.lines[11] = "M  CHG  1   9  -1"; break;
    case 12: p.lines.resize(11); break;
    case 13: p.lines.clear(); break;
    }
    text = p.text();
    const QString path = writeFile(m_dir.filePath(QString("bad%1.sdf").arg(kind)), text);
    const QString msg = errorOf(path, o);
    QVERIFY2(!msg.isEmpty(), "bad input accepted");
    QVERIFY2(msg.contains(expect), qPrintable(msg));
    QVERIFY2(msg.startsWith(path), qPrintable(msg));
    if (line > 0)
        QVERIFY2(msg.contains(QString("line %1").arg(line)), qPrintable(msg));
    if (kind != 13)
        QVERIFY2(msg.contains("record"), qPrintable(msg)); // names the record
}

QTEST_GUILESS_MAIN(TestSdf)
#include "tst_Sdf.moc"
