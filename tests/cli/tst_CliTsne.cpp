// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// `setscope-cli tsne` as a user runs it: a child process on small inputs written here; the
// .npy it writes is read back and checked (shape, finite values, clusters kept apart,
// bit-identical for the same seed whatever the thread count).
#define SETSCOPE_CLI_TIMEOUT_MS 300000 // runs that train a model first
#include "CliRun.h"
#include "core/data/VectorLoaders.h"

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>

#include <QRegularExpression>

#include <cfloat>
#include <cmath>
#include <fstream>
#include <random>

namespace {

// `clusters` unit Gaussian blobs in `d` dimensions, centred at 10 e_c.
std::vector<float> clusters(int clusters, int per, int d, std::vector<int>* labels)
{
    std::mt19937_64 rng(7);
    std::normal_distribution<float> g(0.0f, 1.0f);
    std::vector<float> x;
    labels->clear();
    for (int c = 0; c < clusters; ++c)
        for (int k = 0; k < per; ++k) {
            for (int j = 0; j < d; ++j)
                x.push_back(g(rng) + (j == c ? 10.0f : 0.0f));
            labels->push_back(c);
        }
    return x;
}

double oneNnAgreement(const std::vector<float>& y, const std::vector<int>& labels)
{
    const std::size_t n = labels.size();
    int same = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t best = i;
        double bestD = 1e300;
        for (std::size_t j = 0; j < n; ++j) {
            const double dd = std::hypot(double(y[2 * i]) - y[2 * j], double(y[2 * i + 1]) - y[2 * j + 1]);
            if (j != i && dd < bestD) {
                bestD = dd;
                best = j;
            }
        }
        same += labels[best] == labels[i];
    }
    return double(same) / double(n);
}

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCliTsne : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void mapsAnInputNpy();
    void sameSeedSameFileAnyThreads();
    void mapsADatasetAndASubset();
    void warmBenchReportsJson();
    void mapsACheckpointsEmbedding();
    void badInputNamesTheFile();
    void extremeValuesAreRefusedByEveryJob_data();
    void extremeValuesAreRefusedByEveryJob();
    void extremeValuesAreRefusedByBothReaders_data();
    void extremeValuesAreRefusedByBothReaders();

private:
    /// The rows of the two functions below: every job, or the two readers.
    void extremeValues(bool everyJob);
    QString writeInput(const char* name, std::vector<int>* labels)
    {
        const std::vector<float> x = clusters(4, 100, 12, labels);
        const QString path = m_dir.filePath(name);
        setscope::data::writeNpy(path.toStdString(), x.data(), {400, 12});
        return path;
    }
    QTemporaryDir m_dir;
};

void TestCliTsne::mapsAnInputNpy()
{
    std::vector<int> labels;
    const QString in = writeInput("x.npy", &labels);
    const QString out = m_dir.filePath("map.npy");
    const Run r = cli({"tsne", "--input", in, "--iterations", "400", "--pca", "5", "--out", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("wrote " + out + " (400 x 2)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("affinities") && r.out.contains("400 iterations"), qPrintable(r.out));
    QVERIFY2(r.err.contains("t-SNE of 400 points") && r.err.contains("PCA to 5-d"), qPrintable(r.err));
    const setscope::data::NpyArray a = setscope::data::readNpy(out.toStdString());
    QCOMPARE(a.shape, (std::vector<std::uint64_t>{400, 2}));
    for (float v : a.data)
        QVERIFY(std::isfinite(v));
    const double agreement = oneNnAgreement(a.data, labels);
    QVERIFY2(agreement > 0.97, qPrintable(QString::number(agreement)));
}

void TestCliTsne::sameSeedSameFileAnyThreads()
{
    std::vector<int> labels;
    const QString in = writeInput("seed.npy", &labels);
    const QString a = m_dir.filePath("a.npy"), b = m_dir.filePath("b.npy"), c = m_dir.filePath("c.npy");
    QCOMPARE(cli({"tsne", "--input", in, "--iterations", "200", "--seed", "3", "--threads", "1", "--out", a}).code, 0);
    QCOMPARE(cli({"tsne", "--input", in, "--iterations", "200", "--seed", "3", "--threads", "2", "--out", b}).code, 0);
    QCOMPARE(cli({"tsne", "--input", in, "--iterations", "150", "--seed", "3", "--out", c}).code, 0);
    QVERIFY(!fileBytes(a).isEmpty());
    QCOMPARE(fileBytes(a), fileBytes(b));
    QVERIFY(fileBytes(a) != fileBytes(c)); // the comparison can fail
}

void TestCliTsne::mapsADatasetAndASubset()
{
    // A built-in synthetic dataset: one vector per item (here sets of one element).
    const QString out = m_dir.filePath("synthetic.npy");
    Run r = cli({"tsne", "--dataset", "synthetic:coarse=2,fine=3,points=40", "--iterations", "100", "--out", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(setscope::data::readNpy(out.toStdString()).shape, (std::vector<std::uint64_t>{240, 2}));
    r = cli({"tsne", "--dataset", "synthetic:coarse=2,fine=3,points=40", "--subset", "50", "--iterations", "50",
             "--out", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(setscope::data::readNpy(out.toStdString()).shape, (std::vector<std::uint64_t>{50, 2}));
}

void TestCliTsne::warmBenchReportsJson()
{
    std::vector<int> labels;
    const QString in = writeInput("warm.npy", &labels);
    const Run r = cli({"tsne", "--input", in, "--iterations", "100", "--warm-bench", "5", "--json", "--out",
                       m_dir.filePath("warm-map.npy")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
    QCOMPARE(j["points"].toInt(), 400);
    QCOMPARE(j["iterations"].toInt(), 100);
    QVERIFY(j["seconds"].toObject()["affinities"].toDouble() > 0.0);
    QCOMPARE(j["warm"].toObject()["iterations"].toInt(), 5);
    QVERIFY(j["warm"].toObject()["seconds_per_iteration"].toDouble() > 0.0);
}

// --checkpoint: the map of the model's embedding of every item (a checkpoint trained here
// for one epoch on a labelled .npy dataset).
void TestCliTsne::mapsACheckpointsEmbedding()
{
    std::vector<int> labels;
    const QString data = writeInput("labelled.npy", &labels);
    {
        std::ofstream csv(m_dir.filePath("labelled.csv").toStdString());
        csv << "label\n";
        for (int l : labels)
            csv << "c" << l << "\n";
    }
    const QString ck = m_dir.filePath("ck");
    const Run t = cli({"train", "--dataset", data, "--epochs", "1", "--checkpoint-dir", ck, "--no-baseline"});
    QVERIFY2(t.code == 0, qPrintable(t.err));
    const QStringList pts = QDir(ck).entryList({"*.pt"});
    QVERIFY(!pts.isEmpty());
    const QString checkpoint = ck + "/" + pts.last();
    const QString out = m_dir.filePath("embedded.npy");
    Run r = cli({"tsne", "--dataset", data, "--checkpoint", checkpoint, "--iterations", "200", "--out", out});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("embedded by " + checkpoint), qPrintable(r.err));
    const setscope::data::NpyArray a = setscope::data::readNpy(out.toStdString());
    QCOMPARE(a.shape, (std::vector<std::uint64_t>{400, 2}));
    for (float v : a.data)
        QVERIFY(std::isfinite(v));
    // A checkpoint needs the dataset it embeds.
    r = cli({"tsne", "--input", data, "--checkpoint", checkpoint, "--out", out});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("--checkpoint needs --dataset"), qPrintable(r.err));
}

void TestCliTsne::badInputNamesTheFile()
{
    const QString missing = m_dir.filePath("no-such-file.npy");
    Run r = cli({"tsne", "--input", missing, "--out", m_dir.filePath("o.npy")});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains(missing), qPrintable(r.err));

    const QString cube = m_dir.filePath("cube.npy");
    const std::vector<float> v(8, 1.0f);
    setscope::data::writeNpy(cube.toStdString(), v.data(), {2, 2, 2});
    r = cli({"tsne", "--input", cube, "--out", m_dir.filePath("o.npy")});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains(cube) && r.err.contains("2-D array"), qPrintable(r.err));

    const QString nan = m_dir.filePath("nan.npy");
    const std::vector<float> w = {1.0f, 2.0f, NAN, 4.0f};
    setscope::data::writeNpy(nan.toStdString(), w.data(), {2, 2});
    r = cli({"tsne", "--input", nan, "--out", m_dir.filePath("o.npy")});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains(nan) && r.err.contains("row 1"), qPrintable(r.err));

    r = cli({"tsne", "--out", m_dir.filePath("o.npy")});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains("--dataset or --input"), qPrintable(r.err));

    std::vector<int> labels;
    const QString in = writeInput("ok.npy", &labels);
    const QString unwritable = m_dir.filePath("no-such-dir/map.npy");
    r = cli({"tsne", "--input", in, "--iterations", "10", "--out", unwritable});
    QVERIFY(r.code != 0);
    QVERIFY2(r.err.contains(unwritable), qPrintable(r.err));
}

// Issue 29 §2: a 200 x 2 .npy (with labels beside it) whose row 17 holds one extreme value,
// through the jobs that read vectors: t-SNE of the file (its own reader), and t-SNE, kNN
// evaluation, the pairwise EMD matrix and training on it as a dataset. Before, 1e20 crashed the
// t-SNE (munmap_chunk(): invalid pointer, exit 134). Each extreme value is refused (exit 2)
// naming the file and the row; subnormal values are mapped, evaluated and trained on. Every job
// runs for 1e20 and the subnormal; the other values (the same check of every dataset, tested
// value by value in data_vectors) through the two readers, `tsne --input` and `eval`.
void TestCliTsne::extremeValuesAreRefusedByEveryJob_data()
{
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("expect"); // "" = accepted
    QTest::newRow("1e20") << 1e20f << "1e+20, beyond \u00b16.52e+18";
    QTest::newRow("subnormal") << 1e-40f << "";
}

void TestCliTsne::extremeValuesAreRefusedByBothReaders_data()
{
    QTest::addColumn<float>("value");
    QTest::addColumn<QString>("expect");
    QTest::newRow("-FLT_MAX") << -FLT_MAX << "-3.40282e+38, beyond \u00b16.52e+18";
    QTest::newRow("+inf") << INFINITY << "infinite";
    QTest::newRow("NaN") << NAN << "NaN";
}

void TestCliTsne::extremeValuesAreRefusedByBothReaders() { extremeValues(false); }

void TestCliTsne::extremeValuesAreRefusedByEveryJob() { extremeValues(true); }

void TestCliTsne::extremeValues(bool everyJob)
{
    QFETCH(float, value);
    QFETCH(QString, expect);
    std::vector<int> labels;
    std::vector<float> x = clusters(2, 100, 2, &labels);
    x[35] = value; // row 17, column 1
    const QString tag = QString(QTest::currentDataTag()).replace(QRegularExpression("[^A-Za-z0-9]"), "_");
    const QString npy = m_dir.filePath("extreme_" + tag + ".npy");
    setscope::data::writeNpy(npy.toStdString(), x.data(), {200, 2});
    {
        QFile f(m_dir.filePath("extreme_" + tag + ".csv"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("label\n");
        for (int l : labels)
            f.write(QByteArray::number(l) + "\n");
    }
    const QString out = m_dir.filePath("extreme_out.npy");
    QList<QStringList> jobs{
        {"tsne", "--input", npy, "--pca", "1", "--iterations", "50", "--out", out},
        {"eval", "--dataset", npy},
    };
    if (everyJob)
        jobs << QStringList{"tsne", "--dataset", npy, "--iterations", "50", "--out", out}
             << QStringList{"emd-matrix", "--dataset", npy, "--out", out, "--threads", "1", "--cache-dir", m_dir.filePath("cache")}
             << QStringList{"train", "--dataset", npy, "--model", "mlp", "--loss", "triplet", "--embedding-dim", "2",
                            "--max-steps", "2", "--threads", "1", "--device", "cpu", "--no-baseline"};
    for (const QStringList& job : jobs) {
        const Run r = cli(job);
        const QString what = job.join(' ') + ":\n" + r.err;
        if (expect.isEmpty()) {
            QVERIFY2(r.code == 0, qPrintable(what));
            continue;
        }
        QVERIFY2(r.code == 2, qPrintable(what));
        // The row: "record 17" from the dataset's check, "row 17" from tsne --input.
        QVERIFY2(r.err.contains(npy + " (record 17)") || r.err.contains(npy + " (row 17)"), qPrintable(what));
        QVERIFY2(r.err.contains(expect), qPrintable(what));
    }
}

QTEST_GUILESS_MAIN(TestCliTsne)
#include "tst_CliTsne.moc"
