// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `setscope-cli retrieve` as a user runs it: a child process on a small dataset written here,
// with a checkpoint trained here; the exact-EMD column checked against EMDs computed in
// this file (equal-size uniform sets: EMD is the cheapest one-to-one matching, found by
// trying every permutation).
#include "CliRun.h"
#include "core/data/VectorLoaders.h"

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>

namespace {

constexpr int kItems = 30, kSet = 3, kDim = 2;

/// 30 sets of 3 points in 2-d, two classes around (0, 0) and (2.5, 2.5); items 0..23 train,
/// 24..29 test; classes alternate. Written as X.npy + X.csv (fine, split).
struct Corpus {
    std::vector<float> x; // kItems x kSet x kDim
    std::vector<int> label;
    std::vector<bool> train;
};

Corpus writeCorpus(const QString& npy, std::uint64_t seed)
{
    Corpus c;
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> g(0, 0.8f);
    std::ofstream csv((npy.left(npy.size() - 4) + ".csv").toStdString());
    csv << "fine,split\n";
    for (int i = 0; i < kItems; ++i) {
        const int l = i % 2;
        c.label.push_back(l);
        c.train.push_back(i < 24);
        for (int e = 0; e < kSet * kDim; ++e)
            c.x.push_back(2.5f * float(l) + g(rng));
        csv << (l ? "b" : "a") << "," << (i < 24 ? "train" : "test") << "\n";
    }
    setscope::data::writeNpy(npy.toStdString(), c.x.data(), {kItems, kSet, kDim});
    return c;
}

/// EMD of two sets of 3 unit-weight points: the mean ground distance of the best matching.
double emdByPermutations(const Corpus& c, int a, int b)
{
    std::vector<int> p{0, 1, 2};
    double best = INFINITY;
    do {
        double s = 0;
        for (int i = 0; i < kSet; ++i) {
            const float* u = &c.x[std::size_t((a * kSet + i) * kDim)];
            const float* v = &c.x[std::size_t((b * kSet + p[std::size_t(i)]) * kDim)];
            s += std::hypot(double(u[0]) - double(v[0]), double(u[1]) - double(v[1]));
        }
        best = std::min(best, s / kSet);
    } while (std::next_permutation(p.begin(), p.end()));
    return best;
}

QString lastCheckpoint(const QString& dir) { return dir + "/" + QDir(dir).entryList({"*.pt"}).last(); }

} // namespace

class TestCliRetrieve : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase();
    void exactColumnIsTheTrueEmdRanking_data();
    void exactColumnIsTheTrueEmdRanking();
    void embeddingColumnIsTheExportedEmbeddingRanking();
    void textTableMarksLabelsAndOverlap();
    void badInput();

private:
    QTemporaryDir m_dir;
    QString m_npy, m_ckpt;
    Corpus m_corpus;
};

void TestCliRetrieve::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_npy = m_dir.filePath("sets.npy");
    m_corpus = writeCorpus(m_npy, 3);
    const Run t = cli({"train", "--dataset", m_npy, "--epochs", "1", "--checkpoint-dir", m_dir.filePath("ck"), "--no-baseline"});
    QVERIFY2(t.code == 0, qPrintable(t.err));
    m_ckpt = lastCheckpoint(m_dir.filePath("ck"));
}

void TestCliRetrieve::exactColumnIsTheTrueEmdRanking_data()
{
    QTest::addColumn<int>("query");
    QTest::addColumn<QString>("candidates");
    QTest::addColumn<bool>("bruteForce");
    QTest::newRow("test item, train candidates, pruned") << 25 << "train" << false;
    QTest::newRow("test item, train candidates, brute force") << 28 << "train" << true;
    QTest::newRow("train item, all candidates") << 4 << "all" << false;
}

void TestCliRetrieve::exactColumnIsTheTrueEmdRanking()
{
    QFETCH(int, query);
    QFETCH(QString, candidates);
    QFETCH(bool, bruteForce);
    QStringList args{"retrieve", "--dataset", m_npy, "--checkpoint", m_ckpt, "--query", QString::number(query), "--k", "6",
                     "--candidates", candidates, "--json"};
    if (bruteForce)
        args << "--brute-force";
    const Run r = cli(args);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j["query"].toObject()["item"].toInt(), query);
    QCOMPARE(j["k"].toInt(), 6);

    // The true ranking: every candidate but the query, by EMD, ties by index.
    std::vector<std::pair<double, int>> truth;
    for (int i = 0; i < kItems; ++i)
        if (i != query && (candidates == "all" || m_corpus.train[std::size_t(i)]))
            truth.push_back({emdByPermutations(m_corpus, query, i), i});
    std::sort(truth.begin(), truth.end());
    QCOMPARE(j["candidates"].toInt(), int(truth.size()));
    const QJsonArray exact = j["exact"].toObject()["neighbours"].toArray();
    QCOMPARE(exact.size(), 6);
    for (int r2 = 0; r2 < 6; ++r2) {
        const QJsonObject n = exact[r2].toObject();
        QCOMPARE(n["rank"].toInt(), r2 + 1);
        QCOMPARE(n["item"].toInt(), truth[std::size_t(r2)].second);
        const double emd = n["emd"].toDouble();
        QVERIFY2(std::abs(emd - truth[std::size_t(r2)].first) <= 1e-9 * std::max(1.0, truth[std::size_t(r2)].first),
                 qPrintable(QString("rank %1: %2 vs %3").arg(r2 + 1).arg(emd, 0, 'g', 17).arg(truth[std::size_t(r2)].first, 0, 'g', 17)));
        QCOMPARE(n["same_label"].toBool(), m_corpus.label[std::size_t(n["item"].toInt())] == m_corpus.label[std::size_t(query)]);
        QCOMPARE(n["label"].toString(), QString(m_corpus.label[std::size_t(n["item"].toInt())] ? "b" : "a"));
    }
    const QJsonObject ex = j["exact"].toObject();
    QCOMPARE(ex["method"].toString(), QString(bruteForce ? "brute-force" : "pruned"));
    if (bruteForce)
        QCOMPARE(ex["exact_solves"].toInt(), int(truth.size()));
    QVERIFY(ex["seconds"].toObject()["emd"].toDouble() >= 0);
    for (const char* key : {"encode", "search", "total"})
        QVERIFY(j["embedding"].toObject()["seconds"].toObject().contains(key));

    // "in both lists" flags agree between the two columns.
    const QJsonArray emb = j["embedding"].toObject()["neighbours"].toArray();
    QCOMPARE(emb.size(), 6);
    QSet<int> exactItems, embItems;
    for (const auto& v : exact)
        exactItems.insert(v.toObject()["item"].toInt());
    for (const auto& v : emb)
        embItems.insert(v.toObject()["item"].toInt());
    for (const auto& v : emb)
        QCOMPARE(v.toObject()["in_both"].toBool(), exactItems.contains(v.toObject()["item"].toInt()));
    for (const auto& v : exact)
        QCOMPARE(v.toObject()["in_both"].toBool(), embItems.contains(v.toObject()["item"].toInt()));
    QCOMPARE(j["overlap"].toInt(), int((QSet<int>(exactItems) &= embItems).size()));
}

void TestCliRetrieve::embeddingColumnIsTheExportedEmbeddingRanking()
{
    // The embedding column ranks the train items by Euclidean distance between their
    // exported embeddings (setscope-cli export) and the query's.
    const QString out = m_dir.filePath("emb/e.npy");
    const Run e = cli({"export", "--dataset", m_npy, "--checkpoint", m_ckpt, "--format", "npy", "--out", out});
    QVERIFY2(e.code == 0, qPrintable(e.err));
    const auto a = setscope::data::readNpy(out.toStdString());
    const std::size_t dim = std::size_t(a.shape[1]);
    const int query = 26;
    std::vector<std::pair<double, int>> truth;
    for (int i = 0; i < 24; ++i) {
        double s = 0;
        for (std::size_t t = 0; t < dim; ++t) {
            const double d = double(a.data[std::size_t(query) * dim + t]) - a.data[std::size_t(i) * dim + t];
            s += d * d;
        }
        truth.push_back({std::sqrt(s), i});
    }
    std::sort(truth.begin(), truth.end());
    const Run r = cli({"retrieve", "--dataset", m_npy, "--checkpoint", m_ckpt, "--query", QString::number(query), "--k", "5", "--json"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonArray emb = QJsonDocument::fromJson(r.out.toUtf8()).object()["embedding"].toObject()["neighbours"].toArray();
    QCOMPARE(emb.size(), 5);
    for (int k = 0; k < 5; ++k) {
        QCOMPARE(emb[k].toObject()["item"].toInt(), truth[std::size_t(k)].second);
        QVERIFY(std::abs(emb[k].toObject()["distance"].toDouble() - truth[std::size_t(k)].first) < 1e-4);
    }
}

void TestCliRetrieve::textTableMarksLabelsAndOverlap()
{
    const int query = 27; // class b
    const Run r = cli({"retrieve", "--dataset", m_npy, "--checkpoint", m_ckpt, "--query", QString::number(query), "--k", "4"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("query 27 (label b, 3 elements) in 'sets': 4 nearest of 24 candidates (train split)"), qPrintable(r.out));
    // rank, then per column: [*] item label distance [=]
    const QRegularExpression row(R"(^ +(\d) +(\*?) +(\d+) (a|b) +([0-9.e+-]+) (=?) +(\*?) +(\d+) (a|b) +([0-9.e+-]+) ?(=?)$)");
    int rows = 0;
    for (const QString& line : r.out.split('\n')) {
        const auto m = row.match(line);
        if (!m.hasMatch())
            continue;
        ++rows;
        QCOMPARE(m.captured(1).toInt(), rows);
        QCOMPARE(m.captured(2) == "*", m.captured(4) == "b");
        QCOMPARE(m.captured(7) == "*", m.captured(9) == "b");
        QCOMPARE(m.captured(4), QString(m_corpus.label[std::size_t(m.captured(3).toInt())] ? "b" : "a"));
        QCOMPARE(m.captured(9), QString(m_corpus.label[std::size_t(m.captured(8).toInt())] ? "b" : "a"));
        if (rows == 1) // the nearest by EMD, checked against this file's EMD
            QVERIFY(std::abs(m.captured(10).toDouble() - [&] {
                        double best = INFINITY;
                        for (int i = 0; i < 24; ++i)
                            best = std::min(best, emdByPermutations(m_corpus, query, i));
                        return best;
                    }()) < 1e-5);
    }
    QCOMPARE(rows, 4);
    QVERIFY(r.out.contains(QRegularExpression(R"(in both lists: \d of 4; same label: embedding \d, exact \d)")));
    QVERIFY(r.out.contains(QRegularExpression(R"(time, embedding: .* = encode the query .* \+ search .* \(FAISS, exact L2\); loading the model )")));
    QVERIFY(r.out.contains(QRegularExpression(R"(time, exact: +.* = EMD search, \d+ exact EMDs of 24 candidates)")));
}

void TestCliRetrieve::badInput()
{
    const Run range = cli({"retrieve", "--dataset", m_npy, "--checkpoint", m_ckpt, "--query", "30"});
    QCOMPARE(range.code, 2);
    QVERIFY2(range.err.contains("--query: 30 is not an item of 'sets' (0..29)"), qPrintable(range.err));
    const Run neg = cli({"retrieve", "--dataset", m_npy, "--checkpoint", m_ckpt, "--query", "-1"});
    QCOMPARE(neg.code, 2);

    // Same dimension, other data: refused, unless asked for.
    const QString other = m_dir.filePath("other.npy");
    writeCorpus(other, 99);
    const Run refused = cli({"retrieve", "--dataset", other, "--checkpoint", m_ckpt, "--query", "1"});
    QCOMPARE(refused.code, 2);
    QVERIFY2(refused.err.contains(m_ckpt + ": checkpoint trained on other data"), qPrintable(refused.err));
    QVERIFY(refused.err.contains("--allow-other-data"));
    QCOMPARE(cli({"retrieve", "--dataset", other, "--checkpoint", m_ckpt, "--query", "1", "--allow-other-data"}).code, 0);

    // Other dimension.
    const QString wide = m_dir.filePath("wide.npy");
    const std::vector<float> w(4 * 3 * 5, 0.5f);
    setscope::data::writeNpy(wide.toStdString(), w.data(), {4, 3, 5});
    const Run dim = cli({"retrieve", "--dataset", wide, "--checkpoint", m_ckpt, "--query", "1"});
    QCOMPARE(dim.code, 2); // a checkpoint that does not fit the data: an input error naming it
    QVERIFY2(dim.err.contains(m_ckpt + ": checkpoint for 2-d elements, dataset"), qPrintable(dim.err));
    QVERIFY2(dim.err.contains("has 5-d"), qPrintable(dim.err));

    const Run missing = cli({"retrieve", "--dataset", m_npy, "--checkpoint", m_dir.filePath("none.pt"), "--query", "1"});
    QCOMPARE(missing.code, 2);
    QVERIFY2(missing.err.contains("checkpoint file not found"), qPrintable(missing.err));
    const Run cands = cli({"retrieve", "--dataset", m_npy, "--checkpoint", m_ckpt, "--query", "1", "--candidates", "test"});
    QCOMPARE(cands.code, 1);
    QVERIFY(cands.err.contains("--candidates must be train or all"));
    QVERIFY(cli({"retrieve", "--dataset", m_npy, "--checkpoint", m_ckpt, "--query", "1", "--k", "0"}).code != 0);
}

QTEST_GUILESS_MAIN(TestCliRetrieve)
#include "tst_CliRetrieve.moc"
