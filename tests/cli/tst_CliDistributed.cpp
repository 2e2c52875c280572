// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Data-parallel training through c10d (issue 13), end to end through `setscope-cli train`:
//  - 2 ranks (Gloo, --nproc 2) reach the weights of 1 rank that runs the same global batches
//    with the same seed and the same parts (--batch-shards 2), to 1e-5 after 20 steps, for the
//    triplet recipe (tl) and WSSET (ours, attention encoder with dropout);
//  - a run checkpointed on 2 ranks resumes on 1 rank to the same weights;
//  - ranks that run different settings are refused, naming the difference;
//  - a rank that is killed makes the other stop with a message, within a timeout;
//  - the pairwise EMD matrix sharded over 2 ranks is byte for byte the one of 1 process, and
//    after a rank is killed a rerun recomputes only the blocks that were not done.
#define SETSCOPE_CLI_TIMEOUT_MS 300000
#include "CliRun.h"

#include "core/ot/PairwiseMatrix.h"
#include "tests/support/FreePort.h"
#include "tests/support/TimeFactor.h"

#include <QtTest>

#include <QDir>
#include <QFile>

#include <QTemporaryDir>

#include <torch/serialize/input-archive.h>
#include <torch/types.h>

#include <chrono>
#include "tests/core/train/DeviceTestUtil.h"

#include <csignal>
#include <functional>
#include <map>

namespace {

const QString kDataset = QStringLiteral("synthetic:dim=6,coarse=3,fine=2,points=40,seed=4");

/// Every tensor of the encoder's weights in a checkpoint, by name (float64 on the CPU).
std::map<std::string, torch::Tensor> weights(const QString& path) { return setscope::testing::checkpointWeights(path.toStdString()); }

/// The largest absolute difference between two checkpoints' weights (infinity when they do not
/// have the same tensors).
double maxDifference(const QString& a, const QString& b)
{
    const auto wa = weights(a), wb = weights(b);
    if (wa.empty() || wa.size() != wb.size())
        return std::numeric_limits<double>::infinity();
    double d = 0;
    for (const auto& [name, t] : wa) {
        const auto it = wb.find(name);
        if (it == wb.end() || !t.sizes().equals(it->second.sizes()))
            return std::numeric_limits<double>::infinity();
        d = std::max(d, (t - it->second).abs().max().item<double>());
    }
    return d;
}

QStringList tripletArgs(const QString& checkpoints, int steps, int seed = 11)
{
    return {"train", "--dataset", kDataset, "--recipe", "tl", "--model", "mlp", "--model-option", "hidden=32,32",
            "--embedding-dim", "8", "--classes", "4", "--per-class", "6", "--epochs", "1000", "--max-steps",
            QString::number(steps), "--threads", "1", "--device", "cpu", "--seed", QString::number(seed), "--no-baseline",
            "--checkpoint-dir", checkpoints};
}

QStringList wssetArgs(const QString& checkpoints, int steps)
{
    return {"train", "--dataset", kDataset, "--recipe", "ours", "--model", "selfattn", "--model-option", "layers=2",
            "--model-option", "heads=2", "--model-option", "ff=32", "--model-option", "rho=32", "--embedding-dim", "8",
            "--batch-size", "16", "--epochs", "1000", "--max-steps", QString::number(steps), "--threads", "1",
            "--device", "cpu", "--seed", "11", "--no-baseline", "--checkpoint-dir", checkpoints};
}

QString stepFile(const QString& dir, int step)
{
    return QDir(dir).filePath(QString("step-%1.pt").arg(step, 9, 10, QChar('0')));
}

/// The environment of one rank started by hand (what --nproc sets), with a file store.
QProcessEnvironment rankEnv(int rank, int world, const QString& store)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("RANK", QString::number(rank));
    env.insert("WORLD_SIZE", QString::number(world));
    env.insert("LOCAL_RANK", QString::number(rank));
    env.insert("SETSCOPE_DIST_STORE", "file:" + store);
    return env;
}

/// Starts ranks 0 and 1 of a run by hand (what --nproc does), each with its arguments, meeting
/// through a file store at `store`.
bool startTwoRanks(QProcess& p0, QProcess& p1, const QString& store, const QStringList& args0, const QStringList& args1)
{
    p0.setProcessEnvironment(rankEnv(0, 2, store));
    p1.setProcessEnvironment(rankEnv(1, 2, store));
    p0.start(SETSCOPE_CLI, args0);
    p1.start(SETSCOPE_CLI, args1);
    return p0.waitForStarted() && p1.waitForStarted();
}

/// The one pairwise cache file in `dir` ("" when there is none or several).
QString cacheFile(const QString& dir)
{
    const QStringList f = QDir(dir).entryList({"pairwise-*.f32"}, QDir::Files);
    return f.size() == 1 ? QDir(dir).filePath(f.front()) : QString();
}


QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCliDistributed : public QObject {
    Q_OBJECT

private:
    /// 1 rank with the batch in 2 parts against 2 ranks with a part each: the same weights.
    void compareOneAndTwoRanks(const std::function<QStringList(const QString&, int)>& args)
    {
        QTemporaryDir dir;
        const QString one = dir.filePath("one"), two = dir.filePath("two"), whole = dir.filePath("whole");
        const Run r1 = cli(args(one, 20) << "--batch-shards" << "2");
        QVERIFY2(r1.code == 0, qPrintable(r1.err));
        const Run r2 = cli(args(two, 20) << "--nproc" << "2");
        QVERIFY2(r2.code == 0, qPrintable(r2.err));
        QVERIFY2(r2.err.contains("starting 2 ranks") && r2.err.contains("distributed: rank 0 of 2"), qPrintable(r2.err));
        QVERIFY2(r2.out.contains("allreduce-seconds"), qPrintable(r2.out));
        const double d = maxDifference(stepFile(one, 20), stepFile(two, 20));
        qInfo("max |w(1 rank, 2 parts) - w(2 ranks)| after 20 steps: %.3g", d);
        QVERIFY2(d <= 1e-5, qPrintable(QString::number(d)));

        // The comparison can fail: the whole batch in one part is another training.
        const Run r3 = cli(args(whole, 20));
        QVERIFY2(r3.code == 0, qPrintable(r3.err));
        const double apart = maxDifference(stepFile(whole, 20), stepFile(two, 20));
        qInfo("max |w(1 rank, 1 part) - w(2 ranks)|: %.3g", apart);
        QVERIFY2(apart > 1e-4 && std::isfinite(apart), qPrintable(QString::number(apart)));
    }

private Q_SLOTS:
    void twoRanksMatchOneRankTriplet()
    {
        compareOneAndTwoRanks([](const QString& dir, int steps) { return tripletArgs(dir, steps); });
    }
    void twoRanksMatchOneRankWsset() { compareOneAndTwoRanks(wssetArgs); }

    void resumesOnAnotherNumberOfRanks()
    {
        QTemporaryDir dir;
        const QString ref = dir.filePath("ref"), split = dir.filePath("split");
        const Run r = cli(tripletArgs(ref, 20) << "--batch-shards" << "2");
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const Run first = cli(tripletArgs(split, 10) << "--nproc" << "2");
        QVERIFY2(first.code == 0, qPrintable(first.err));
        // The checkpoint keeps batch_shards 2: one rank runs both parts.
        const Run second = cli(tripletArgs(split, 20) << "--resume" << stepFile(split, 10));
        QVERIFY2(second.code == 0, qPrintable(second.err));
        QVERIFY2(second.err.contains("an exact continuation"), qPrintable(second.err));
        const double d = maxDifference(stepFile(ref, 20), stepFile(split, 20));
        qInfo("max |w(20 steps on 1 rank) - w(10 on 2 ranks + 10 on 1)|: %.3g", d);
        QVERIFY2(d <= 1e-5, qPrintable(QString::number(d)));
    }

    // Issue 29 §4: the launcher's --threads and --batch-shards replace the user's own on each
    // rank's command line. Before, `emd-matrix ... --threads 0 --nproc 2` failed on every rank
    // with "--threads: At Most 1 required but received 2" (exit 114), and so did a training run
    // given --batch-shards or --threads; the tests always passed --threads 1, which the launcher
    // then did not repeat.
    void usersThreadsAndShardsAreReplaced()
    {
        QTemporaryDir dir;
        const Run m = cli({"emd-matrix", "--dataset", kDataset, "--limit", "60", "--out", dir.filePath("m.npy"),
                           "--cache-dir", dir.filePath("c"), "--threads=0", "--nproc=2"});
        QVERIFY2(m.code == 0, qPrintable(m.err));
        QVERIFY(QFile::exists(dir.filePath("m.npy")));
        // Training: the user's --threads 1 and --batch-shards 4 (a multiple of the ranks) reach
        // the ranks once each; the checkpoint records 4 parts.
        const QString ck = dir.filePath("t");
        const Run t = cli(tripletArgs(ck, 4) << "--batch-shards" << "4" << "--nproc" << "2");
        QVERIFY2(t.code == 0, qPrintable(t.err));
        QVERIFY(QFile::exists(stepFile(ck, 4)));
        torch::serialize::InputArchive root;
        root.load_from(stepFile(ck, 4).toStdString(), torch::kCPU);
        c10::IValue config;
        QVERIFY(root.try_read("config", config));
        QVERIFY2(QString::fromStdString(config.toStringRef()).contains("\"batch_shards\":4"), config.toStringRef().c_str());
        // One part cannot be split over two ranks: refused once, with the reason, not on every rank.
        const Run one = cli(tripletArgs(dir.filePath("u"), 2) << "--batch-shards" << "1" << "--nproc" << "2");
        QCOMPARE(one.code, 1);
        QVERIFY2(one.err.contains("--batch-shards 1 is not a multiple of --nproc 2"), qPrintable(one.err));
        QVERIFY2(!one.err.contains("starting 2 ranks"), qPrintable(one.err));
    }

    void partsOfFewerThanTwoSetsAreRefused()
    {
        QTemporaryDir dir;
        // 4 classes x 6 = 24 sets in 16 parts: some parts get one set.
        const Run r = cli(tripletArgs(dir.filePath("c"), 5) << "--batch-shards" << "16");
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("a batch of 24 sets cut into 16 parts leaves fewer than 2 sets in a part"), qPrintable(r.err));
    }

    /// torchrun's convention: its agent serves the TCPStore, every rank (rank 0 too) joins it as a
    /// client. A PyTorch TCPStore stands in for the agent (torchrun itself, Debian's 1.13 on
    /// Python 3.11, fails before starting any worker; docs/DISTRIBUTED.md). Skipped without
    /// python3-torch.
    void underTorchrunsAgentStore()
    {
        QProcess probe;
        probe.start("/usr/bin/python3", {"-c", "import torch.distributed"});
        if (!probe.waitForFinished(60000) || probe.exitCode() != 0)
            QSKIP("python3-torch is not installed (apt-get install python3-torch)");
        QTemporaryDir dir;
        const QString ref = dir.filePath("ref"), agent = dir.filePath("agent");
        const Run r1 = cli(tripletArgs(ref, 20) << "--batch-shards" << "2");
        QVERIFY2(r1.code == 0, qPrintable(r1.err));
        const QString port = QString::number(setscope::testing::freePort());
        QProcess p;
        p.start("/usr/bin/python3", QStringList{SETSCOPE_SOURCE_DIR "/tests/cli/torchrun_agent.py", port, SETSCOPE_CLI}
                                        << (tripletArgs(agent, 20) << "--batch-shards" << "2"));
        QVERIFY(p.waitForFinished(setscope::testing::scaledMs(180000)));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 0, qPrintable(err));
        QVERIFY2(err.contains("distributed: rank 0 of 2 (torchrun, torchrun agent's TCP store 127.0.0.1:" + port + ")"),
                 qPrintable(err));
        const double d = maxDifference(stepFile(ref, 20), stepFile(agent, 20));
        QVERIFY2(d <= 1e-5, qPrintable(QString::number(d)));
    }

    void ranksWithOtherSettingsAreRefused()
    {
        QTemporaryDir dir;
        const QString store = dir.filePath("store");
        QProcess p0, p1;
        QVERIFY(startTwoRanks(p0, p1, store, tripletArgs(dir.filePath("a"), 20) << "--batch-shards" << "2",
                              tripletArgs(dir.filePath("b"), 20, 12) << "--batch-shards" << "2"));
        QVERIFY(p1.waitForFinished(setscope::testing::scaledMs(120000)));
        QVERIFY(p0.waitForFinished(setscope::testing::scaledMs(120000)));
        const QString err1 = QString::fromUtf8(p1.readAllStandardError());
        QCOMPARE(p1.exitCode(), 1);
        QVERIFY2(err1.contains("rank 1 runs another training than rank 0 (seed 11 \u2192 12)"), qPrintable(err1));
        QVERIFY(p0.exitCode() != 0); // rank 0 stops too: its partner left
        QVERIFY(!QFile::exists(stepFile(dir.filePath("a"), 20)));
    }

    void aKilledRankStopsTheOthers()
    {
        QTemporaryDir dir;
        const QString store = dir.filePath("store"), ck = dir.filePath("ck");
        QStringList args = tripletArgs(ck, 1000000);
        args << "--batch-shards" << "2" << "--checkpoint-every" << "5";
        QProcess p0, p1;
        QVERIFY(startTwoRanks(p0, p1, store, args, args));
        // Both ranks are training once rank 0 has written a checkpoint.
        QVERIFY(setscope::testing::waitUntil([&] { return QFile::exists(stepFile(ck, 5)); }, std::chrono::seconds(120)));
        QCOMPARE(p1.state(), QProcess::Running);
        ::kill(static_cast<pid_t>(p1.processId()), SIGKILL);
        const auto t0 = std::chrono::steady_clock::now();
        QVERIFY2(p0.waitForFinished(setscope::testing::scaledMs(60000)), "rank 0 still runs 60 s after rank 1 was killed");
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        p1.waitForFinished();
        const QString err = QString::fromUtf8(p0.readAllStandardError());
        qInfo("rank 0 stopped %.2f s after rank 1 was killed", s);
        QCOMPARE(p0.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p0.exitCode(), 1);
        QVERIFY2(err.contains("rank 0 of 2: all-reduce failed") || err.contains("rank 0 of 2: broadcast"), qPrintable(err));
        QVERIFY2(err.contains("another rank stopped"), qPrintable(err));
        // What rank 0 saved is intact: the last checkpoint reads.
        const QStringList pts = QDir(ck).entryList({"step-*.pt"}, QDir::Files, QDir::Name);
        QVERIFY(!pts.isEmpty());
        QVERIFY(!weights(QDir(ck).filePath(pts.back())).empty());
    }

    void shardedPairwiseMatchesOneProcess()
    {
        QTemporaryDir dir;
        const QStringList common{"emd-matrix", "--dataset", kDataset, "--threads", "1"};
        const Run one = cli(QStringList(common) << "--out" << dir.filePath("one.npy") << "--cache-dir" << dir.filePath("c1"));
        QVERIFY2(one.code == 0, qPrintable(one.err));
        const Run two = cli(QStringList(common) << "--out" << dir.filePath("two.npy") << "--cache-dir" << dir.filePath("c2")
                                                << "--nproc" << "2");
        QVERIFY2(two.code == 0, qPrintable(two.err));
        QVERIFY2(two.err.contains("blocks to compute on 2 ranks"), qPrintable(two.err));
        const QByteArray a = readAll(dir.filePath("one.npy"));
        QVERIFY(a.size() > 240 * 240 * 4);
        QCOMPARE(readAll(dir.filePath("two.npy")), a);
        // The cache files too: the same layout, checksums and done bits.
        QCOMPARE(readAll(cacheFile(dir.filePath("c2"))), readAll(cacheFile(dir.filePath("c1"))));
    }

    void shardedEmdKnnMatchesOneProcess()
    {
        // 4 queries: each one's neighbours are printed; 40: the accuracy line.
        for (const char* queries : {"4", "40"}) {
            const QStringList args{"emd-knn", "--dataset", kDataset, "--test-queries", queries, "--k", "5"};
            const Run one = cli(QStringList(args) << "--threads" << "1");
            QVERIFY2(one.code == 0, qPrintable(one.err));
            const Run two = cli(QStringList(args) << "--nproc" << "2");
            QVERIFY2(two.code == 0, qPrintable(two.err));
            QStringList a = one.out.split('\n'), b = two.out.split('\n');
            QVERIFY(a.size() > 1 && a.size() == b.size());
            // The summary line differs in its workers and time; the counts are the same.
            const auto summary = [](const QStringList& lines) {
                for (qsizetype i = 0; i < lines.size(); ++i)
                    if (lines[i].startsWith("pruning:"))
                        return i;
                return qsizetype(-1);
            };
            const qsizetype sa = summary(a), sb = summary(b);
            QVERIFY(sa >= 0 && sa == sb);
            QVERIFY2(a[sa].contains(", 1 thread,") && b[sb].contains(", 2 ranks x 1 thread,"), qPrintable(b[sb]));
            const auto counts = [](const QString& line) { return line.left(line.indexOf(" by RWMD") + 8); };
            QCOMPARE(counts(b.takeAt(sb)), counts(a.takeAt(sa)));
            QCOMPARE(b, a); // neighbours (item, EMD to 6 digits, label) and the accuracy
        }
    }

    void killedRankLeavesOnlyItsBlocksToRedo()
    {
        QTemporaryDir dir;
        const QString big = QStringLiteral("synthetic:dim=6,coarse=5,fine=4,points=60,seed=4"); // 1 200 items
        const QString store = dir.filePath("store"), cache = dir.filePath("cache");
        const QStringList args{"emd-matrix", "--dataset", big, "--threads", "1", "--out", dir.filePath("m.npy"),
                               "--cache-dir", cache};
        QProcess p0, p1;
        QVERIFY(startTwoRanks(p0, p1, store, args, args));
        // Kill rank 1 once some blocks are in the file, well before the end.
        std::int64_t doneAtKill = 0, blocks = 0;
        QVERIFY(setscope::testing::waitUntil(
            [&] {
                const QString f = cacheFile(cache);
                if (f.isEmpty())
                    return false;
                try {
                    const auto info = setscope::ot::inspectPairwiseFile(f.toStdString());
                    blocks = static_cast<std::int64_t>(info.blockDone.size());
                    doneAtKill = std::count(info.blockDone.begin(), info.blockDone.end(), true);
                } catch (const std::exception&) {
                    return false; // being created
                }
                return doneAtKill >= 8;
            },
            std::chrono::seconds(120)));
        ::kill(static_cast<pid_t>(p1.processId()), SIGKILL);
        QVERIFY(p0.waitForFinished(setscope::testing::scaledMs(60000)));
        p1.waitForFinished();
        QCOMPARE(p0.exitCode(), 1);
        const QString err = QString::fromUtf8(p0.readAllStandardError());
        QVERIFY2(err.contains("rank 0 of 2:") && err.contains("another rank stopped"), qPrintable(err));
        const auto after = setscope::ot::inspectPairwiseFile(cacheFile(cache).toStdString());
        const auto kept = std::count(after.blockDone.begin(), after.blockDone.end(), true);
        qInfo("%lld of %lld blocks done when rank 1 was killed, %lld when rank 0 stopped", static_cast<long long>(doneAtKill),
              static_cast<long long>(blocks), static_cast<long long>(kept));
        QVERIFY(kept >= doneAtKill && kept < blocks);

        // One process finishes it, reusing the blocks done, and gets the matrix of a fresh run.
        const Run rerun = cli({"emd-matrix", "--dataset", big, "--threads", "2", "--out", dir.filePath("m.npy"), "--cache-dir", cache});
        QVERIFY2(rerun.code == 0, qPrintable(rerun.err));
        QVERIFY2(rerun.err.contains(QString("reusing %1 of %2 blocks").arg(kept).arg(blocks)), qPrintable(rerun.err));
        const Run fresh = cli({"emd-matrix", "--dataset", big, "--threads", "2", "--out", dir.filePath("fresh.npy"),
                               "--cache-dir", dir.filePath("fresh")});
        QVERIFY2(fresh.code == 0, qPrintable(fresh.err));
        QCOMPARE(readAll(dir.filePath("m.npy")), readAll(dir.filePath("fresh.npy")));
    }
};

QTEST_GUILESS_MAIN(TestCliDistributed)
#include "tst_CliDistributed.moc"
