// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Training on a GPU against training on the CPU (label cuda; each function QSKIPs with the reason
// where no GPU is visible, and CTest reports it as skipped). Every run is a real TrainingJob.
//
//  - stepOnCudaEqualsCpu: one SGD step (momentum 0.9) from the same initial weights on "cpu" and
//    "cuda:0", for each encoder (MLP, DeepSets, self-attention, both CNNs) under WSSET and for each
//    self-supervised loss (WSSET, SSET, Approx.EMD, NT-Xent) under the self-attention encoder:
//    the losses agree to 1e-4 relative and the weight updates to 1e-3 of their largest entry.
//    Why those: float32 has a relative rounding of 6e-8; the GPU sums in other orders (tree
//    reductions, cuBLAS / cuDNN kernels) than the CPU, which moves each sum by up to ~K x 6e-8
//    for K terms (K < 2 000 here) and a few layers of backward multiply that. The tests run
//    with NVIDIA_TF32_OVERRIDE=0: without it cuDNN convolves in TF32 (10-bit mantissa, 5e-4
//    relative) by default, which the CNN rows would need 3e-2 for. A wrong mask, a lost term or
//    a device mix-up moves the update by O(1) of itself. The initial weights are the CPU's in
//    both runs (the job builds the model on the CPU with the seed, then moves it).
//  - checkpointMovesBetweenDevices: a run checkpointed on the GPU resumes on the CPU, and one
//    checkpointed on the CPU resumes on the GPU; the next step (its momentum buffer included)
//    matches the run that stayed, to 1e-3 of that step's update.
//  - cudaGeneratorContinuesExactly: with dropout (the CUDA generator's draws), a run resumed
//    on the GPU from its step-2 checkpoint reaches the weights of the uninterrupted run at
//    step 4 bit for bit, provided two uninterrupted runs agree bit for bit on this machine
//    (deterministic cuBLAS workspace; if they do not, it must be as close as they are).
//  - twoRanksOnTheGpus: two ranks (Gloo over a file store, threads of this process), each on
//    cuda:(local rank mod GPUs), reach the weights of one process with the same batch parts
//    (batch_shards 2) to 1e-5 after 6 steps, as on the CPU (cli_distributed). Gradients go
//    through host memory (NCCL is not used by setscope's distributed runs).
// SETSCOPE_DEVICE_TEST_GPU=cpu runs them all on the CPU against the CPU: a dry run of the tests
// themselves where there is no GPU.
#include "tests/core/train/DeviceTestUtil.h"

#include "core/builtins/Builtins.h"
#include "core/dist/Gloo.h"
#include "core/plugin/Registry.h"

#include <QtTest>

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <torch/cuda.h>

#include <cstdlib>
#include <future>

using namespace setscope;
using namespace setscope::testing;

namespace {

/// One TrainingJob run to its end in this thread.
struct Runner {
    const plugin::Registry& registry;
    std::shared_ptr<const data::Dataset> dataset;

    train::TrainerConfig config(const std::string& recipe, const std::string& model, const std::string& device,
                                const std::string& dir, std::int64_t steps) const
    {
        train::TrainerConfig c;
        c.recipe = recipe;
        c.model = model;
        c.embeddingDim = 8;
        c.epochs = 1000;
        c.maxSteps = steps;
        c.seed = 3;
        c.device = device;
        c.threads = 1;
        c.optimizer = "sgd";
        c.optimizerOptions = {{"lr", "0.05"}, {"momentum", "0.9"}};
        c.samplerOptions = {{"batch-size", "16"}};
        c.validationFraction = 0;
        c.checkpointDir = dir;
        c.checkpointEvery = 1;
        c.snapshotEvery = 0;
        c.evaluateEachEpoch = false;
        c.emdCache = "off";
        if (model == "selfattn")
            c.modelOptions = {{"layers", "2"}, {"heads", "2"}, {"ff", "32"}, {"rho", "32"}, {"dropout", "0"}};
        else if (model == "mlp" || model == "deepsets")
            c.modelOptions = {};
        return c;
    }

    /// Runs `c`; returns the record (checkpoints by step, losses by step), failing the test
    /// when the job did not finish.
    std::unique_ptr<RunRecord> run(const train::TrainerConfig& c, std::shared_ptr<dist::Communicator> comm = nullptr) const
    {
        auto rec = std::make_unique<RunRecord>();
        train::TrainingJob job(dataset, c, registry);
        job.setCommunicator(std::move(comm));
        job.runHere(rec.get());
        if (rec->status != job::JobStatus::Finished)
            qWarning("run on %s did not finish: %s", c.device.c_str(), rec->detail.c_str());
        return rec;
    }
};

/// The GPU the tests compare against: cuda:0, or the device SETSCOPE_DEVICE_TEST_GPU names --
/// "cpu" runs every test here as a dry run of the tests themselves (CPU against CPU).
std::string gpu(const char* fallback = "cuda:0")
{
    const char* e = std::getenv("SETSCOPE_DEVICE_TEST_GPU");
    return e && *e ? std::string(e) : std::string(fallback);
}

bool haveCuda(QString* why)
{
    if (gpu() == "cpu")
        return true;
    if (!train::cudaAvailable()) {
        *why = SETSCOPE_TORCH_HAS_CUDA ? "no GPU is visible to this CUDA-enabled LibTorch"
                                       : "this LibTorch has no CUDA support (a CPU-only build)";
        return false;
    }
    return true;
}

#define REQUIRE_CUDA()                                                                                                  \
    do {                                                                                                                \
        QString why;                                                                                                    \
        if (!haveCuda(&why))                                                                                            \
            QSKIP(qPrintable("needs a GPU: " + why));                                                                   \
    } while (0)

} // namespace

class TestDeviceParity : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;
    QTemporaryDir m_dir;

    QString dir(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase()
    {
        builtins::registerBuiltins(m_registry);
        QVERIFY(m_dir.isValid());
    }

    void stepOnCudaEqualsCpu_data()
    {
        QTest::addColumn<QString>("recipe");
        QTest::addColumn<QString>("model");
        QTest::addColumn<int>("dim");
        QTest::addColumn<int>("set");
        // Encoders under WSSET (the papers' method).
        QTest::newRow("mlp, ours") << "ours" << "mlp" << 6 << 5;
        QTest::newRow("deepsets, ours") << "ours" << "deepsets" << 6 << 5;
        QTest::newRow("selfattn, ours") << "ours" << "selfattn" << 6 << 5;
        QTest::newRow("cnn-mnist, ours") << "ours" << "cnn-mnist" << 784 << 1;
        QTest::newRow("cnn-weak, ours") << "ours" << "cnn-weak" << 784 << 1;
        // Losses under the papers' encoder.
        QTest::newRow("selfattn, sset") << "sset" << "selfattn" << 6 << 5;
        QTest::newRow("selfattn, approx-emd") << "approx-emd" << "selfattn" << 6 << 5;
        QTest::newRow("selfattn, cont (NT-Xent)") << "cont" << "selfattn" << 6 << 5;
    }
    void stepOnCudaEqualsCpu()
    {
        REQUIRE_CUDA();
        QFETCH(QString, recipe);
        QFETCH(QString, model);
        QFETCH(int, dim);
        QFETCH(int, set);
        const Runner r{m_registry, deviceTestDataset(dim, set)};
        const std::string tag = QString(QTest::currentDataTag()).replace(QRegularExpression("[^a-z0-9]+"), "-").toStdString();
        auto cfg = [&](const std::string& device, const std::string& lr, const std::string& sub) {
            train::TrainerConfig c = r.config(recipe.toStdString(), model.toStdString(), device,
                                              dir(QString::fromStdString(tag + "-" + sub)).toStdString(), 1);
            c.optimizerOptions["lr"] = lr;
            return c;
        };
        // The initial weights: a step of lr 1e-12 leaves float32 weights as they were (their
        // rounding is 6e-8 of their size).
        const auto start = r.run(cfg("cpu", "1e-12", "start"));
        const auto cpu = r.run(cfg("cpu", "0.05", "cpu"));
        const auto onGpu = r.run(cfg(gpu(), "0.05", "cuda"));
        QVERIFY(start->checkpoints.count(1) && cpu->checkpoints.count(1) && onGpu->checkpoints.count(1));
        const auto w0 = checkpointWeights(start->checkpoints.at(1));
        const auto dCpu = difference(checkpointWeights(cpu->checkpoints.at(1)), w0);
        const auto dGpu = difference(checkpointWeights(onGpu->checkpoints.at(1)), w0);
        const double scale = maxAbs(dCpu);
        const double apart = maxAbsDifference(dCpu, dGpu);
        const double lossCpu = cpu->losses.at(1), lossGpu = onGpu->losses.at(1);
        qInfo("%s: loss cpu %.9g cuda %.9g; max |update| %.3g, max |update(cuda) - update(cpu)| %.3g (%.2g of it)",
              QTest::currentDataTag(), lossCpu, lossGpu, scale, apart, apart / scale);
        QVERIFY2(scale > 1e-6, "the step did not move the weights: nothing was compared");
        QVERIFY2(std::abs(lossGpu - lossCpu) <= 1e-4 * std::max(1e-6, std::abs(lossCpu)),
                 qPrintable(QString("loss %1 on the GPU, %2 on the CPU").arg(lossGpu, 0, 'g', 9).arg(lossCpu, 0, 'g', 9)));
        QVERIFY2(apart <= 1e-3 * scale, qPrintable(QString("updates differ by %1 of the largest").arg(apart / scale)));
    }

    void checkpointMovesBetweenDevices_data()
    {
        QTest::addColumn<QString>("first");
        QTest::addColumn<QString>("then");
        QTest::newRow("cuda -> cpu") << QString::fromStdString(gpu()) << "cpu";
        QTest::newRow("cpu -> cuda") << "cpu" << QString::fromStdString(gpu());
    }
    void checkpointMovesBetweenDevices()
    {
        REQUIRE_CUDA();
        QFETCH(QString, first);
        QFETCH(QString, then);
        const Runner r{m_registry, deviceTestDataset(6, 5)};
        const QString tag = QString(QTest::currentDataTag()).contains("cuda ->") ? "from-cuda" : "from-cpu";
        // 3 steps on `first`, checkpoints after each.
        const auto whole = r.run(r.config("ours", "selfattn", first.toStdString(), dir(tag + "-whole").toStdString(), 3));
        QVERIFY(whole->checkpoints.count(2) && whole->checkpoints.count(3));
        // Step 3 on `then`, resumed from step 2 of `first` (weights, momentum, sampler, generators).
        train::TrainerConfig c = r.config("ours", "selfattn", then.toStdString(), dir(tag + "-resumed").toStdString(), 3);
        c.resumeFrom = whole->checkpoints.at(2);
        const auto resumed = r.run(c);
        QVERIFY2(resumed->status == job::JobStatus::Finished, resumed->detail.c_str());
        QVERIFY(resumed->checkpoints.count(3));
        const auto w2 = checkpointWeights(whole->checkpoints.at(2));
        const auto w3 = checkpointWeights(whole->checkpoints.at(3));
        const auto w3resumed = checkpointWeights(resumed->checkpoints.at(3));
        const double scale = maxAbs(difference(w3, w2));
        const double apart = maxAbsDifference(w3, w3resumed);
        qInfo("%s: step 3's max |update| %.3g; resumed on %s: max |w - w(stayed)| %.3g (%.2g of it); loss %.9g against %.9g",
              QTest::currentDataTag(), scale, qPrintable(then), apart, apart / scale, resumed->losses.at(3), whole->losses.at(3));
        QVERIFY2(scale > 1e-6, "step 3 did not move the weights");
        QVERIFY2(apart <= 1e-3 * scale, qPrintable(QString("%1 of the step's update").arg(apart / scale)));
        QVERIFY(std::abs(resumed->losses.at(3) - whole->losses.at(3)) <= 1e-4 * std::abs(whole->losses.at(3)) + 1e-9);
    }

    void cudaGeneratorContinuesExactly()
    {
        REQUIRE_CUDA();
        const Runner r{m_registry, deviceTestDataset(6, 5)};
        auto cfg = [&](const QString& sub) {
            train::TrainerConfig c = r.config("ours", "selfattn", gpu(), dir("gen-" + sub).toStdString(), 4);
            c.modelOptions["dropout"] = "0.3"; // draws from the CUDA generator at every step
            return c;
        };
        const auto a = r.run(cfg("a"));
        const auto b = r.run(cfg("b"));
        QVERIFY(a->checkpoints.count(2) && a->checkpoints.count(4) && b->checkpoints.count(4));
        train::TrainerConfig c = cfg("resumed");
        c.resumeFrom = a->checkpoints.at(2);
        const auto resumed = r.run(c);
        QVERIFY2(resumed->status == job::JobStatus::Finished, resumed->detail.c_str());
        const auto wa = checkpointWeights(a->checkpoints.at(4));
        const double rerun = maxAbsDifference(wa, checkpointWeights(b->checkpoints.at(4)));
        const double continued = maxAbsDifference(wa, checkpointWeights(resumed->checkpoints.at(4)));
        // Without the CUDA generator's state the dropout masks of steps 3 and 4 would differ:
        // a run with another seed for its generator shows how far that moves the weights.
        train::TrainerConfig other = cfg("other");
        other.seed = 4;
        const auto o = r.run(other);
        const double elsewhere = maxAbsDifference(checkpointWeights(o->checkpoints.at(4)), wa);
        qInfo("step 4: uninterrupted twice %.3g apart; resumed from step 2 %.3g apart; another seed %.3g apart",
              rerun, continued, elsewhere);
        QVERIFY(elsewhere > 0);
        if (rerun == 0.0)
            QCOMPARE(continued, 0.0); // bit for bit
        else
            QVERIFY2(continued <= 2 * rerun,
                     qPrintable(QString("this GPU's runs differ by %1 run to run; the continuation by %2").arg(rerun).arg(continued)));
    }

    void transfersPerStepOnCuda()
    {
        REQUIRE_CUDA();
        // As tst_DeviceTransfers on the CPU, here with the real copies between host and GPU.
        for (const char* recipe : {"ours", "sset", "approx-emd", "cont"}) {
            const auto ds = deviceTestDataset(6, 5);
            const StepTransfers a = transfersOfTwoSteps(m_registry, ds, recipe, "selfattn", gpu(), 8);
            const StepTransfers b = transfersOfTwoSteps(m_registry, ds, recipe, "selfattn", gpu(), 16);
            QVERIFY2(a.error.empty() && b.error.empty(), (a.error + b.error).c_str());
            const auto& x = a.twoSteps;
            const auto& y = b.twoSteps;
            qInfo("%s, selfattn, 2 steps on %s: batch 8: %ld copies host<->device, %ld item() (%ld to(), %ld to a device); "
                  "batch 16: %ld copies, %ld item()",
                  recipe, gpu().c_str(), x.copyAcross, x.scalar, x.to, x.toDevice, y.copyAcross, y.scalar);
            QVERIFY2(x.copyAcross > 0 || gpu() == "cpu", "no copy to the GPU was seen: nothing was counted");
            QCOMPARE(y.copyAcross, x.copyAcross);
            QCOMPARE(y.scalar, x.scalar);
            QVERIFY2(x.copyAcross + x.scalar <= 2 * 40, qPrintable(QString::number(x.copyAcross + x.scalar)));
        }
    }

    void twoRanksOnTheGpus()
    {
        REQUIRE_CUDA();
        if (!SETSCOPE_HAS_GLOO)
            QSKIP("this build has no c10d Gloo backend (cmake/SetscopeDependencies.cmake): no distributed runs");
        const Runner r{m_registry, deviceTestDataset(6, 5)};
        auto cfg = [&](const QString& sub) {
            train::TrainerConfig c = r.config("ours", "selfattn", gpu("cuda"), dir("ranks-" + sub).toStdString(), 6);
            c.batchShards = 2;
            c.samplerOptions["batch-size"] = "32";
            return c;
        };
        const auto one = r.run(cfg("one"));
        QVERIFY(one->checkpoints.count(6));
        dist::Rendezvous base;
        base.file = dir("ranks-store").toStdString();
        base.worldSize = 2;
        base.timeout = std::chrono::seconds(120);
        auto rank = [&](int k) -> std::string {
            try {
                dist::Rendezvous rv = base;
                rv.rank = k;
                rv.localRank = k;
                auto rec = r.run(cfg("two"), dist::connectGloo(rv));
                return rec->status == job::JobStatus::Finished ? std::string() : rec->detail;
            } catch (const std::exception& e) {
                return e.what();
            }
        };
        auto f0 = std::async(std::launch::async, rank, 0);
        auto f1 = std::async(std::launch::async, rank, 1);
        const std::string e0 = f0.get(), e1 = f1.get();
        QVERIFY2(e0.empty() && e1.empty(), (e0 + " | " + e1).c_str());
        const QString last = QDir(dir("ranks-two")).filePath(QString("step-%1.pt").arg(6, 9, 10, QChar('0')));
        const double apart = maxAbsDifference(checkpointWeights(one->checkpoints.at(6)), checkpointWeights(last.toStdString()));
        qInfo("%d GPU(s): 2 ranks against 1 process after 6 steps: max |w difference| %.3g",
              static_cast<int>(torch::cuda::device_count()), apart);
        QVERIFY2(apart <= 1e-5, qPrintable(QString::number(apart)));
    }
};

QTEST_GUILESS_MAIN(TestDeviceParity)
#include "tst_DeviceParity.moc"
