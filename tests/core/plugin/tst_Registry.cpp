// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "Builtin.h"
#include "core/data/Dataset.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/data/IdxLoader.h"
#include "core/plugin/Registry.h"

#include <setscope/sdk/Plugin.h>

#include <QtTest>

#include <fstream>

using namespace setscope;

class TestRegistry : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void builtinsRegisterThroughTheSdk();
    void loaderChoice();
    void examplePluginLoadsAndReads();
    void examplePluginRejectsBadFile();
    void refusesWrongAbi();
    void refusesWrongTorch();
    void refusesNonPlugins();
    void directoryScanReportsAndContinues();
    void unknownNamesListAlternatives();
};

void TestRegistry::builtinsRegisterThroughTheSdk()
{
    plugin::Registry r;
    sdk::Registrar& asSdk = r; // builtins see only the SDK interface
    builtin::registerBuiltins(asSdk);
    QVERIFY(r.encoder("mlp"));
    QVERIFY(r.loss("triplet"));
    QVERIFY(r.loss("contrastive"));
    QCOMPARE(QString::fromStdString(sdk::findOption(r.loss("triplet")->options, "margin")->defaultValue), QStringLiteral("0.1")); // seed 000 §VI-A
    QStringList loaders;
    for (const auto& l : r.loaders())
        loaders << QString::fromStdString(l.name);
    QCOMPARE(loaders, (QStringList{"idx", "npy", "csv", "mesh", "pointcloud-folder", "tudataset", "sdf", "corpus-tsv",
                                   "corpus-folder", "wmd-mat"}));
}

void TestRegistry::loaderChoice()
{
    plugin::Registry r;
    builtin::registerBuiltins(r);
    QTemporaryDir dir;
    const std::string csv = dir.filePath("x.CSV").toStdString();
    std::ofstream(csv) << "a,label\n1,x\n";
    QCOMPARE(r.loaderFor(csv).name, std::string("csv"));
    QCOMPARE(r.loaderFor(data::fashionMnistDir()).name, std::string("idx"));
    const std::string txt = dir.filePath("notes.txt").toStdString();
    std::ofstream(txt) << "hello";
    try {
        r.loaderFor(txt);
        QFAIL("a .txt file found a loader");
    } catch (const sdk::InputError& e) {
        QVERIFY(QString(e.what()).contains("no loader recognises"));
        QVERIFY(QString(e.what()).contains("idx, npy, csv"));
    }
    QVERIFY_THROWS_EXCEPTION(sdk::InputError, r.loaderFor(dir.filePath("missing.csv").toStdString()));
}

void TestRegistry::examplePluginLoadsAndReads()
{
    plugin::Registry r;
    builtin::registerBuiltins(r);
    const plugin::LoadedPlugin& p = r.loadPlugin(GOOD_PLUGIN);
    QCOMPARE(p.name, std::string("libsvm-loader"));
    QTemporaryDir dir;
    const std::string file = dir.filePath("toy.libsvm").toStdString();
    std::ofstream(file) << "+1 1:0.5 3:2\n-1 2:1.5 # comment\n\n+1 3:-1\n";
    QCOMPARE(r.loaderFor(file).name, std::string("libsvm"));
    const data::Dataset ds = catalog::openDataset(file, r);
    QCOMPARE(ds.size(), std::size_t(3));
    QCOMPARE(ds.dim(), 3);
    QCOMPARE(ds.values(), (std::vector<float>{0.5f, 0, 2, 0, 1.5f, 0, 0, 0, -1}));
    const data::LabelSet& fine = ds.requireLabelSet("fine");
    QCOMPARE(fine.classNames, (std::vector<std::string>{"-1", "1"}));
    QCOMPARE(fine.labels, (std::vector<std::int32_t>{1, 0, 1}));
    // Loading the same plugin twice is refused by name.
    QVERIFY_THROWS_EXCEPTION(plugin::PluginError, r.loadPlugin(GOOD_PLUGIN));
}

void TestRegistry::examplePluginRejectsBadFile()
{
    plugin::Registry r;
    r.loadPlugin(GOOD_PLUGIN);
    QTemporaryDir dir;
    const std::string file = dir.filePath("bad.libsvm").toStdString();
    std::ofstream(file) << "1 1:0.5\n2 3:x\n";
    try {
        catalog::openDataset(file, r);
        QFAIL("accepted");
    } catch (const sdk::InputError& e) {
        // The exception type crosses the plugin boundary intact, with file and line.
        QVERIFY2(QString(e.what()).contains("bad.libsvm (line 2)"), e.what());
    }
}

void TestRegistry::refusesWrongAbi()
{
    plugin::Registry r;
    try {
        r.loadPlugin(BAD_ABI_PLUGIN);
        QFAIL("plugin with ABI 999 accepted");
    } catch (const plugin::PluginError& e) {
        const QString m = e.what();
        QVERIFY2(m.contains("refused plugin 'libsvm-loader'"), e.what());
        QVERIFY2(m.contains(QString("built for plugin ABI 999, this setscope has ABI %1").arg(SETSCOPE_SDK_ABI_VERSION)),
                 e.what());
        QVERIFY2(m.contains(BAD_ABI_PLUGIN), e.what());
    }
    QVERIFY(r.loaders().empty()); // nothing was registered
}

void TestRegistry::refusesWrongTorch()
{
    plugin::Registry r;
    try {
        r.loadPlugin(BAD_TORCH_PLUGIN);
        QFAIL("plugin built against LibTorch 0.4.1 accepted");
    } catch (const plugin::PluginError& e) {
        QVERIFY2(QString(e.what()).contains(QString("built with LibTorch 0.4.1, this setscope uses LibTorch ") + TORCH_VERSION),
                 e.what());
    }
    QVERIFY(r.loaders().empty());
}

void TestRegistry::refusesNonPlugins()
{
    plugin::Registry r;
    QTemporaryDir dir;
    const std::string junk = dir.filePath("junk.so").toStdString();
    std::ofstream(junk) << "not an ELF file";
    QVERIFY_THROWS_EXCEPTION(plugin::PluginError, r.loadPlugin(junk));
    // A real shared library that is not a setscope plugin.
    try {
        r.loadPlugin("libz.so.1");
        QFAIL("libz accepted as a plugin");
    } catch (const plugin::PluginError& e) {
        QVERIFY2(QString(e.what()).contains("not a setscope plugin"), e.what());
    }
}

void TestRegistry::directoryScanReportsAndContinues()
{
    // One good and one bad plugin in a folder: the good one loads, the bad one is reported.
    QTemporaryDir dir;
    QVERIFY(QFile::copy(GOOD_PLUGIN, dir.filePath("a_good.so")));
    QVERIFY(QFile::copy(BAD_ABI_PLUGIN, dir.filePath("b_bad.so")));
    plugin::Registry r;
    const auto errors = r.loadPluginDirectory(dir.path().toStdString());
    QCOMPARE(errors.size(), std::size_t(1));
    QVERIFY(QString::fromStdString(errors[0]).contains("b_bad.so"));
    QCOMPARE(r.plugins().size(), std::size_t(1));
}

void TestRegistry::unknownNamesListAlternatives()
{
    plugin::Registry r;
    builtin::registerBuiltins(r);
    try {
        r.requireEncoder("resnet");
        QFAIL("accepted");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString(e.what()), QString("unknown model 'resnet' (available: mlp, selfattn, deepsets)"));
    }
}

QTEST_GUILESS_MAIN(TestRegistry)
#include "tst_Registry.moc"
