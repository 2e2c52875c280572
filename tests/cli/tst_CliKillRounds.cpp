// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// SIGKILL rounds (issue 12 §4): `setscope-cli train` with frequent checkpoints and a project is
// killed at random moments (delays from a fixed-seed generator, logged with each round, so a
// failure can be replayed); after each kill the next round resumes from the newest checkpoint.
// A label edit is committed to the project while each round trains, just before its kill. At
// the end:
//  - the final checkpoint's tensors (weights, optimizer state, generator state: every tensor
//    record of the archive) are bit for bit those of one uninterrupted run with the same seed;
//  - every label edit is in the project (the labels are the initial ones with each edit
//    replayed here on a plain vector), and the project passes its integrity check;
//  - no part file is left in the checkpoint folder.
#define SETSCOPE_CLI_TIMEOUT_MS 120000
#include "CliRun.h"

#include "core/project/ProjectStore.h"

#include <QtTest>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>

#include <torch/serialize/input-archive.h>
#include <torch/types.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <sstream>
#include <map>
#include <random>
#include <thread>

using namespace setscope;

namespace {

const QString kDataset = QStringLiteral("synthetic:dim=4,coarse=2,fine=2,points=30,seed=5");
const char* kMapping = R"({"name": "pairs", "from": "fine",
  "classes": {"even": ["C0.0", "C1.0"], "odd": ["C0.1", "C1.1"]}})";
constexpr int kRounds = 20;     // kills wanted (the issue asks for at least 20)
constexpr int kSteps = 200;     // the whole run
constexpr std::uint64_t kSeed = 20261127; // of the kill delays

/// The training flags of every run: one thread, a small MLP, a checkpoint every 4 steps.
QStringList trainArgs(const QString& project, const QString& checkpoints)
{
    return {"train", "--dataset", kDataset, "--project", project, "--model", "mlp", "--model-option", "hidden=32,32",
            "--embedding-dim", "8", "--loss", "triplet", "--epochs", "1000", "--max-steps", QString::number(kSteps),
            "--threads", "1", "--device", "cpu", "--seed", "7", "--no-baseline", "--checkpoint-every", "4",
            "--checkpoint-dir", checkpoints};
}

/// The newest complete checkpoint (step-*.pt, never a part file) in `dir`; "" when none.
QString newestCheckpoint(const QString& dir)
{
    const QStringList pts = QDir(dir).entryList({"step-*.pt"}, QDir::Files, QDir::Name);
    return pts.isEmpty() ? QString() : QDir(dir).filePath(pts.back());
}

/// A checkpoint as name -> value, for a bit-for-bit comparison: every tensor (dtype, shape and
/// raw bytes: weights, optimizer moments, generator state) and every number (step, stage, the
/// epoch's loss sums, the optimizer's step counts), found by walking the archive. The optimizer
/// keys its per-parameter state by the address of the parameter in the process that saved it;
/// those keys become the parameter's position in the optimizer's list. Text records (the
/// configuration, the history with its timings, the dataset hash) are left out.
std::map<std::string, std::string> flatten(const QString& path, QString* error)
{
    std::map<std::string, std::string> out;
    torch::serialize::InputArchive root;
    try {
        root.load_from(path.toStdString(), torch::kCPU);
    } catch (const std::exception& e) {
        *error = path + ": " + e.what();
        return out;
    }
    std::map<std::string, std::string> rename; // address key -> "param<i>"
    {
        torch::serialize::InputArchive opt, groups, group;
        if (root.try_read("optimizer", opt) && opt.try_read("param_groups", groups) &&
            groups.try_read("param_groups/0", group))
            for (int i = 0;; ++i) {
                c10::IValue v;
                if (!group.try_read("params/" + std::to_string(i), v))
                    break;
                rename[v.toStringRef()] = "param" + std::to_string(i);
            }
    }
    std::function<void(torch::serialize::InputArchive&, const std::string&)> walk =
        [&](torch::serialize::InputArchive& ar, const std::string& prefix) {
            for (const std::string& key : ar.keys()) {
                const std::string name = prefix + (rename.count(key) ? rename.at(key) : key);
                torch::Tensor t;
                torch::serialize::InputArchive sub;
                c10::IValue v;
                if (ar.try_read(key, t, false) || ar.try_read(key, t, true)) {
                    const torch::Tensor c = t.contiguous();
                    std::ostringstream head;
                    head << c.dtype() << c.sizes() << ':';
                    out[name] = head.str() + std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
                } else if (ar.try_read(key, sub)) {
                    walk(sub, name + "/");
                } else if (ar.try_read(key, v) && (v.isInt() || v.isDouble() || v.isBool())) {
                    std::ostringstream text;
                    if (v.isDouble()) // every bit of the double
                        text << std::hexfloat << v.toDouble();
                    else
                        text << v;
                    out[name] = text.str();
                }
            }
        };
    walk(root, "");
    return out;
}

} // namespace

class TestCliKillRounds : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void killedRunsResumeBitIdentically()
    {
        QTemporaryDir dir;
        const QString mapping = dir.filePath("pairs.json");
        {
            QFile f(mapping);
            QVERIFY(f.open(QIODevice::WriteOnly) && f.write(kMapping) > 0);
        }
        // The reference: one run, never killed. Its time from "dataset" to the end sets the
        // scale of the kill delays, so that the rounds cover about two thirds of the run on
        // a fast machine and a slow one alike.
        const QString refProject = dir.filePath("ref.setscope"), refDir = dir.filePath("ref-checkpoints");
        double refSeconds = 0;
        Run ref;
        {
            QProcess p;
            p.start(SETSCOPE_CLI, trainArgs(refProject, refDir));
            QVERIFY(p.waitForStarted());
            QByteArray err;
            while (!err.contains("dataset ") && p.state() == QProcess::Running) {
                p.waitForReadyRead(20);
                err += p.readAllStandardError();
            }
            const auto t0 = std::chrono::steady_clock::now();
            QVERIFY(p.waitForFinished(SETSCOPE_CLI_TIMEOUT_MS));
            refSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            ref.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
            ref.err = QString::fromUtf8(err + p.readAllStandardError());
        }
        QVERIFY2(ref.code == 0, qPrintable(ref.err));
        const QString refFinal = QDir(refDir).filePath(QString("step-%1.pt").arg(kSteps, 9, 10, QChar('0')));
        QVERIFY2(QFile::exists(refFinal), qPrintable(ref.err));

        // The killed project: a derived label set the edits go to (the run trains on "fine").
        const QString project = dir.filePath("k.setscope");
        int chain = 1; // a chain of killed runs resuming each other; a new one when a chain completes
        const auto chainDir = [&] { return dir.filePath(QString("checkpoints-%1").arg(chain)); };
        QString ckpt = chainDir();
        const QString finalName = QFileInfo(refFinal).fileName();
        QString error;
        const auto reference = flatten(refFinal, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        // 6 weights and biases, their 12 Adam moments and 6 step counts, the generator, ...
        QVERIFY2(reference.size() >= 25 && reference.count("rng_cpu") == 1 &&
                     reference.count("optimizer/state/param0/exp_avg") == 1,
                 qPrintable(QString::number(reference.size())));
        // "" when the chain's final checkpoint equals the reference bit for bit and the chain's
        // folder holds checkpoints only (a killed write's part file is removed by the next run).
        const auto compareChain = [&](const QString& folder) -> QString {
            QString e;
            const auto b = flatten(QDir(folder).filePath(finalName), &e);
            if (!e.isEmpty())
                return e;
            if (b.size() != reference.size())
                return QString("%1 records, the reference has %2").arg(b.size()).arg(reference.size());
            for (const auto& [name, bytes] : reference)
                if (b.count(name) == 0 || b.at(name) != bytes)
                    return QString::fromStdString(name + " differs from the uninterrupted run's");
            for (const QString& f : QDir(folder).entryList(QDir::Files))
                if (!f.startsWith("step-") || !f.endsWith(".pt"))
                    return "left in " + folder + ": " + f;
            return {};
        };
        const Run derive = cli({"labels", "derive", "--project", project, "--dataset", kDataset, "--mapping", mapping});
        QVERIFY2(derive.code == 0, qPrintable(derive.err));
        std::int64_t labelSet = 0;
        std::vector<std::int32_t> expected;
        {
            auto store = project::ProjectStore::open(project.toStdString());
            QCOMPARE(store->datasets().size(), std::size_t(1));
            const auto set = store->findLabelSet(store->datasets()[0].id, "pairs");
            QVERIFY(set);
            labelSet = set->id;
            expected = store->labels(labelSet);
        }
        QCOMPARE(expected.size(), std::size_t(120));

        // Delays uniform in [0, D] with D = T / 16 for a run of T seconds: 20 draws sum to
        // about 10 D = 5/8 T.
        const int maxDelayMs = std::max(20, static_cast<int>(refSeconds * 1000.0 / 16.0));
        qInfo("uninterrupted run: %.2f s after loading the dataset; kill delays uniform in [0, %d] ms, seed %llu",
              refSeconds, maxDelayMs, static_cast<unsigned long long>(kSeed));
        std::mt19937_64 rng(kSeed);
        std::uniform_int_distribution<int> delayMs(0, maxDelayMs);
        int kills = 0, rounds = 0, killsInWrites = 0;
        while (kills < kRounds) {
            QVERIFY2(++rounds <= 3 * kRounds, "the run keeps ending before its kill: the delays are too long");
            const int delay = delayMs(rng);
            if (newestCheckpoint(ckpt).endsWith(finalName)) {
                // This chain reached the end before the kills were done (a machine faster now
                // than during the reference run): check it, and start another.
                const QString diff = compareChain(ckpt);
                QVERIFY2(diff.isEmpty(), qPrintable("chain " + QString::number(chain) + ": " + diff));
                qInfo("chain %d complete and identical to the reference; starting chain %d", chain, chain + 1);
                ++chain;
                ckpt = chainDir();
            }
            const QString from = newestCheckpoint(ckpt);
            // A part file here is the previous kill's, inside a checkpoint write.
            const int parts = static_cast<int>(QDir(ckpt).entryList({"*.part"}, QDir::Files).size());
            killsInWrites += parts > 0 ? 1 : 0;
            QStringList args = trainArgs(project, ckpt);
            if (!from.isEmpty())
                args << "--resume" << from;
            QProcess train;
            train.setProcessChannelMode(QProcess::SeparateChannels);
            train.start(SETSCOPE_CLI, args);
            QVERIFY(train.waitForStarted());
            // The delay counts from the moment the run has its dataset (the start-up before it is
            // the same in every round), so the kills spread over training and checkpoint writes.
            QByteArray err;
            while (!err.contains("dataset ") && train.state() == QProcess::Running) {
                train.waitForReadyRead(50);
                err += train.readAllStandardError();
            }
            const auto t0 = std::chrono::steady_clock::now();
            // The edit of this round, committed while the run trains.
            const std::int64_t item = (rounds * 37) % 120;
            const std::int32_t label = 1 - expected[static_cast<std::size_t>(item)];
            {
                auto store = project::ProjectStore::open(project.toStdString());
                store->applyEdit(labelSet, {{item, label}}, "round " + std::to_string(rounds));
            }
            expected[static_cast<std::size_t>(item)] = label;
            std::this_thread::sleep_until(t0 + std::chrono::milliseconds(delay));
            if (train.state() == QProcess::Running)
                train.kill(); // SIGKILL
            QVERIFY(train.waitForFinished(60000));
            err += train.readAllStandardError();
            const bool ended = train.exitStatus() == QProcess::NormalExit; // it may end just before the kill
            qInfo("round %d: delay %d ms after the dataset, resumed from %s, %s, newest checkpoint now %s", rounds, delay,
                  from.isEmpty() ? "nothing" : qPrintable(QFileInfo(from).fileName()),
                  ended ? "ended by itself" : "killed", qPrintable(QFileInfo(newestCheckpoint(ckpt)).fileName()));
            if (ended) {
                QVERIFY2(train.exitCode() == 0, err.constData());
                continue;
            }
            ++kills;
        }
        qInfo("%d kills in %d rounds, %d of them inside a checkpoint write (a part file left)", kills, rounds,
              killsInWrites + static_cast<int>(QDir(ckpt).entryList({"*.part"}, QDir::Files).size() > 0 ? 1 : 0));
        QVERIFY2(kills >= 20, qPrintable(QString("only %1 kills before the run ended: shorten the delays").arg(kills)));

        // The rest, uninterrupted, from the newest checkpoint.
        const QString from = newestCheckpoint(ckpt);
        if (!from.endsWith(finalName)) {
            QStringList args = trainArgs(project, ckpt);
            if (!from.isEmpty())
                args << "--resume" << from;
            const Run rest = cli(args);
            QVERIFY2(rest.code == 0, qPrintable(rest.err));
        }
        const QString diff = compareChain(ckpt);
        QVERIFY2(diff.isEmpty(), qPrintable("chain " + QString::number(chain) + ": " + diff));

        auto store = project::ProjectStore::open(project.toStdString());
        QVERIFY(store->integrityCheck());
        QCOMPARE(store->labels(labelSet), expected);
        QCOMPARE(store->history(labelSet).size(), static_cast<std::size_t>(rounds));
    }
};

QTEST_GUILESS_MAIN(TestCliKillRounds)
#include "tst_CliKillRounds.moc"
