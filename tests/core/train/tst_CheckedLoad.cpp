// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
//
// train::loadChecked: a checkpoint's weights are loaded only when every parameter and buffer
// the model has is in the file with the same shape and type; otherwise the file, the layer
// and both shapes are named and the model is left as it was.
#include "core/plugin/Registry.h"
#include "core/train/CheckedLoad.h"
#include "core/train/TrainedModel.h"

#include <setscope/sdk/Errors.h>

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <QtTest>

#include <sstream>

using namespace setscope;

namespace {

/// A small model with a child that has parameters and buffers (BatchNorm's running stats).
struct Net : torch::nn::Module {
    Net(std::int64_t in, std::int64_t out, bool withNorm = true)
    {
        fc = register_module("fc", torch::nn::Linear(in, out));
        if (withNorm)
            bn = register_module("bn", torch::nn::BatchNorm1d(out));
        scale = register_parameter("scale", torch::ones({1}));
    }
    torch::nn::Linear fc{nullptr};
    torch::nn::BatchNorm1d bn{nullptr};
    torch::Tensor scale;
};

/// `m` saved and read back as the archive a checkpoint's "model" entry is.
torch::serialize::InputArchive archiveOf(const torch::nn::Module& m)
{
    std::stringstream buf;
    torch::serialize::OutputArchive out;
    m.save(out);
    out.save_to(buf);
    torch::serialize::InputArchive in;
    in.load_from(buf);
    return in;
}

QString refusal(torch::nn::Module& into, torch::serialize::InputArchive& ar)
{
    try {
        train::loadChecked(into, ar, "/ckpt/run.pt", "the weights of model net");
    } catch (const sdk::InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestCheckedLoad : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void matchingWeightsLoad();
    void otherShapeIsRefused();
    void missingLayerIsRefused();
    void otherTypeIsRefused();
    void unreadableArchiveIsRefused();
    void tensorWithoutDataIsRefused();
};

void TestCheckedLoad::matchingWeightsLoad()
{
    torch::manual_seed(1);
    Net a(5, 3);
    torch::manual_seed(2);
    Net b(5, 3);
    {
        torch::NoGradGuard g;
        a.bn->running_mean.fill_(0.25);
    }
    auto ar = archiveOf(a);
    QVERIFY(refusal(b, ar).isEmpty());
    QVERIFY(torch::equal(b.fc->weight, a.fc->weight));
    QVERIFY(torch::equal(b.fc->bias, a.fc->bias));
    QVERIFY(torch::equal(b.bn->running_mean, torch::full({3}, 0.25)));
    QVERIFY(torch::equal(b.scale, a.scale));
}

void TestCheckedLoad::otherShapeIsRefused()
{
    Net wide(5, 16);
    Net narrow(5, 8);
    const torch::Tensor before = narrow.fc->weight.clone();
    auto ar = archiveOf(wide);
    const QString msg = refusal(narrow, ar);
    QVERIFY2(msg.startsWith("/ckpt/run.pt"), qPrintable(msg));
    QVERIFY2(msg.contains("the weights of model net: 'fc.weight' is 16 x 5 in the file, 8 x 5 in the model"), qPrintable(msg));
    // Untouched: same shape, same values.
    QCOMPARE(narrow.fc->weight.sizes().vec(), before.sizes().vec());
    QVERIFY(torch::equal(narrow.fc->weight, before));
}

void TestCheckedLoad::missingLayerIsRefused()
{
    Net without(5, 3, /*withNorm=*/false);
    Net with(5, 3);
    auto ar = archiveOf(without);
    const QString msg = refusal(with, ar);
    QVERIFY2(msg.contains("the file has no layer 'bn'"), qPrintable(msg));
}

void TestCheckedLoad::otherTypeIsRefused()
{
    Net a(5, 3);
    a.to(torch::kFloat64);
    Net b(5, 3);
    auto ar = archiveOf(a);
    const QString msg = refusal(b, ar);
    QVERIFY2(msg.contains("'scale' holds Double values in the file, Float in the model"), qPrintable(msg));
    QCOMPARE(b.fc->weight.scalar_type(), torch::kFloat32);
}

// Before any weight is checked: an archive LibTorch cannot read is refused as an InputError
// naming the file. This one (from the checkpoint fuzz target of issue 12) makes LibTorch's
// TorchScript importer throw torch::jit::ErrorReport, which is not a c10::Error and used to
// escape TrainingJob's openArchive.
void TestCheckedLoad::unreadableArchiveIsRefused()
{
    const std::string path = SETSCOPE_SOURCE_DIR "/tests/fuzz/regressions/checkpoint/jit-errorreport-bad-type-name";
    plugin::Registry registry;
    try {
        (void)train::TrainedModel::fromCheckpoint(path, registry);
        QFAIL("an unreadable checkpoint was accepted");
    } catch (const sdk::InputError& e) {
        const QString msg = e.what();
        // Refused by the archive check before LibTorch's reader sees it (tst_ArchiveCheck.cpp).
        QVERIFY2(msg.startsWith(QString::fromStdString(path) +
                                ": not a setscope checkpoint archive (refused before LibTorch reads it)"),
                 e.what());
    }
}

// A file tensor of the model's shape and type whose storage holds no data: refused by
// loadChecked, not left to fail in the forward pass (the checkpoint fuzz target's input).
void TestCheckedLoad::tensorWithoutDataIsRefused()
{
    const std::string path = SETSCOPE_SOURCE_DIR "/tests/fuzz/regressions/checkpoint/unallocated-storage";
    torch::serialize::InputArchive ar;
    ar.load_from(path, torch::Device(torch::kCPU));
    torch::nn::Sequential model(torch::nn::Linear(4, 3), torch::nn::BatchNorm1d(3));
    try {
        train::loadChecked(*model, ar, path, "the weights");
        QFAIL("a tensor without data was accepted");
    } catch (const sdk::InputError& e) {
        QVERIFY2(QString(e.what()).contains("has no data for its shape in the file"), e.what());
    }
}

QTEST_GUILESS_MAIN(TestCheckedLoad)
#include "tst_CheckedLoad.moc"
