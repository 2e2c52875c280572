// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/data/IdxLoader.h"
#include "core/plugin/PluginInfo.h"
#include "core/plugin/Registry.h"

#include <setscope/sdk/Plugin.h>

#include <QtTest>

#include <atomic>
#include <fstream>
#include <thread>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace setscope;

class TestRegistry : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void builtinsRegisterThroughTheSdk();
    void builtinLoadersDeclareTheirOptions_data();
    void builtinLoadersDeclareTheirOptions();
    void loaderWithABrokenSchemaIsRefused();
    void loaderChoice();
    void examplePluginLoadsAndReads();
    void examplePluginTakesItsOptions();
    void examplePluginRejectsBadFile();
    void refusesWrongAbi();
    void refusesWrongTorch();
    void shortInfoBlockIsRefused();
    void refusesNonPlugins();
    void directoryScanReportsAndContinues();
    void pluginFoldersOthersCanWriteAreRefused();
    void theFileCheckedIsTheFileLoaded();
    void unknownNamesListAlternatives();
};

void TestRegistry::builtinsRegisterThroughTheSdk()
{
    plugin::Registry r;
    sdk::Registrar& asSdk = r; // builtins see only the SDK interface
    builtins::registerBuiltins(asSdk);
    QVERIFY(r.encoder("mlp"));
    QVERIFY(r.loss("triplet"));
    QVERIFY(r.loss("contrastive"));
    QCOMPARE(QString::fromStdString(sdk::findOption(r.loss("triplet")->options, "margin")->defaultValue), QStringLiteral("0.1")); // seed 000 §VI-A
    QStringList loaders;
    for (const auto& l : r.loaders())
        loaders << QString::fromStdString(l.name);
    QCOMPARE(loaders, (QStringList{"pack", "idx", "npy", "csv", "mesh", "pointcloud-folder", "tudataset", "sdf", "corpus-tsv",
                                   "corpus-folder", "wmd-mat"}));
}

void TestRegistry::builtinLoadersDeclareTheirOptions_data()
{
    // The options of docs/DATASETS.md, with their defaults ("name=default"; "" = empty text).
    QTest::addColumn<QString>("loader");
    QTest::addColumn<QStringList>("options");
    const QStringList points{"points=1024", "seed=1", "jitter=false"};
    const QStringList graph{"repr=features", "rw=4", "folds=10", "fold=0", "seed=0"};
    const QStringList corpus{"vectors=",  "tf=false", "min-count=1", "numbers=drop", "stopwords=",
                             "balanced=0", "test=0.3", "seed=1",     "dim=100",      "epochs=5"};
    QTest::newRow("idx") << "idx" << QStringList{};
    QTest::newRow("npy") << "npy" << QStringList{};
    QTest::newRow("csv") << "csv" << QStringList{};
    QTest::newRow("mesh") << "mesh" << points;
    QTest::newRow("pointcloud-folder") << "pointcloud-folder" << (points + QStringList{"threads=0"});
    QTest::newRow("tudataset") << "tudataset" << graph;
    QTest::newRow("sdf") << "sdf" << (graph + QStringList{"class=", "threshold="});
    QTest::newRow("corpus-tsv") << "corpus-tsv" << corpus;
    QTest::newRow("corpus-folder") << "corpus-folder" << corpus;
    QTest::newRow("wmd-mat") << "wmd-mat" << QStringList{"split=1", "tf=false"};
}

void TestRegistry::builtinLoadersDeclareTheirOptions()
{
    QFETCH(QString, loader);
    QFETCH(QStringList, options);
    plugin::Registry r;
    builtins::registerBuiltins(r);
    const sdk::LoaderInfo* info = nullptr;
    for (const auto& l : r.loaders())
        if (l.name == loader.toStdString())
            info = &l;
    QVERIFY(info);
    QStringList declared;
    for (const sdk::OptionSpec& o : info->options) {
        declared << QString::fromStdString(o.name + "=" + o.defaultValue);
        QVERIFY2(!o.doc.empty(), o.name.c_str()); // every option says what it does
    }
    QCOMPARE(declared, options);
}

void TestRegistry::loaderWithABrokenSchemaIsRefused()
{
    plugin::Registry r;
    auto loader = [](sdk::OptionSchema options) {
        return sdk::LoaderInfo{"broken", "a loader with a bad option declaration (test)", {".x"}, std::move(options),
                               [](const std::string&) { return true; },
                               [](const std::string&, const sdk::OptionValues&, sdk::DatasetSink&, sdk::LoadContext&) {}};
    };
    auto refusal = [&](sdk::OptionSchema options) {
        try {
            r.addLoader(loader(std::move(options)));
        } catch (const plugin::PluginError& e) {
            return QString(e.what());
        }
        return QString("accepted");
    };
    QVERIFY(refusal({sdk::OptionSpec::integer("points", 0, 1, 10, "")}).contains("the default of option 'points' is invalid"));
    QVERIFY(refusal({sdk::OptionSpec::flag("a", true, ""), sdk::OptionSpec::flag("a", false, "")}).contains("declared twice"));
    QVERIFY(refusal({sdk::OptionSpec::flag("Zero_Based", true, "")}).contains("must be lower-case letters"));
    QVERIFY(r.loaders().empty());
    r.addLoader(loader({sdk::OptionSpec::flag("ok", true, "fine")}));
    QCOMPARE(r.loaders().size(), std::size_t(1));
}

void TestRegistry::loaderChoice()
{
    plugin::Registry r;
    builtins::registerBuiltins(r);
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
    builtins::registerBuiltins(r);
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

void TestRegistry::examplePluginTakesItsOptions()
{
    plugin::Registry r;
    r.loadPlugin(GOOD_PLUGIN);
    QCOMPARE(r.loaders().size(), std::size_t(1));
    QStringList declared;
    for (const sdk::OptionSpec& o : r.loaders().front().options)
        declared << QString::fromStdString(o.name + "=" + o.defaultValue);
    QCOMPARE(declared, (QStringList{"zero-based=false", "dim=0"}));

    QTemporaryDir dir;
    const std::string file = dir.filePath("zero.libsvm").toStdString();
    std::ofstream(file) << "+1 0:0.5 2:2\n-1 1:1.5\n";
    // Read as the format says (1-based), index 0 is an error; with zero-based=1 it is the first feature.
    try {
        catalog::openDataset(file, r);
        QFAIL("index 0 accepted without zero-based");
    } catch (const sdk::InputError& e) {
        QVERIFY2(QString(e.what()).contains("zero.libsvm (line 1): indices must be positive"), e.what());
    }
    const data::Dataset ds = catalog::openDataset(file + "?zero-based=1", r);
    QCOMPARE(ds.dim(), 3);
    QCOMPARE(ds.values(), (std::vector<float>{0.5f, 0, 2, 0, 1.5f, 0}));
    // dim=5: every item has five features, the last ones zero; an index beyond dim is an error.
    const data::Dataset wide = catalog::openDataset(file + "?zero-based=1,dim=5", r);
    QCOMPARE(wide.dim(), 5);
    QCOMPARE(wide.values(), (std::vector<float>{0.5f, 0, 2, 0, 0, 0, 1.5f, 0, 0, 0}));
    try {
        catalog::openDataset(file + "?zero-based=1,dim=2", r);
        QFAIL("index beyond dim accepted");
    } catch (const sdk::InputError& e) {
        QVERIFY2(QString(e.what()).contains("(line 1): index 2 is beyond dim=2"), e.what());
    }
    // The host checks the options against the plugin's declaration before the plugin runs.
    auto error = [&](const std::string& options) {
        try {
            catalog::openDataset(file + "?" + options, r);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    QCOMPARE(error("zero=1"), file + ": loader libsvm has no option 'zero' (it has: zero-based, dim)");
    QCOMPARE(error("dim=-1"), file + ": loader libsvm: option dim=-1: outside [0, 100000000]");
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

// An info block that says it is shorter than this ABI's layout is refused without reading
// the fields it does not have (the plugin_info fuzz target found them read: a block of 8
// bytes with the right ABI was compared, and with the host's values beyond it, accepted).
void TestRegistry::shortInfoBlockIsRefused()
{
    const SetscopePluginInfo host = sdk::hostInfo();
    SetscopePluginInfo block = host; // what lies beyond structSize would match the host
    block.structSize = 8;
    const plugin::PluginInfoCheck c = plugin::checkPluginInfo(&block, host);
    QCOMPARE(QString::fromStdString(c.why),
             QString("its plugin information has 8 bytes, plugin ABI %1 has %2; it was not built with the "
                     "SETSCOPE_PLUGIN macro of this setscope's SDK")
                 .arg(SETSCOPE_SDK_ABI_VERSION)
                 .arg(sizeof(SetscopePluginInfo)));
    QCOMPARE(c.name, std::string("?")); // the name field is beyond the 8 bytes
    // Long enough for the name, not for the rest: the name is shown, the block refused.
    block.structSize = 16;
    const plugin::PluginInfoCheck d = plugin::checkPluginInfo(&block, host);
    QCOMPARE(d.name, std::string("host"));
    QVERIFY(!d.why.empty());
    // Too short even for the ABI number, and no block at all.
    block.structSize = 4;
    QCOMPARE(plugin::checkPluginInfo(&block, host).why, std::string("it returned no plugin information"));
    QCOMPARE(plugin::checkPluginInfo(nullptr, host).why, std::string("it returned no plugin information"));
    // The whole block: accepted.
    QCOMPARE(plugin::checkPluginInfo(&host, host).why, std::string());
}

void TestRegistry::refusesWrongTorch()
{
    plugin::Registry r;
    try {
        r.loadPlugin(BAD_TORCH_PLUGIN);
        QFAIL("plugin built against LibTorch 0.4.1 accepted");
    } catch (const plugin::PluginError& e) {
        QVERIFY2(QString(e.what()).contains(QString("built with LibTorch 0.4.1, this setscope uses LibTorch ") + SETSCOPE_SDK_TORCH_VERSION),
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
    // A real shared library that is not a setscope plugin: the C library this test runs on.
    Dl_info where{};
    QVERIFY(dladdr(reinterpret_cast<void*>(&::getpid), &where) != 0 && where.dli_fname);
    try {
        r.loadPlugin(where.dli_fname);
        QFAIL("the C library accepted as a plugin");
    } catch (const plugin::PluginError& e) {
        QVERIFY2(QString(e.what()).contains("not a setscope plugin"), e.what());
    }
    // By name (the dynamic loader's search path, the working directory's files): refused
    // before dlopen looks anywhere.
    try {
        r.loadPlugin("libz.so.1");
        QFAIL("a plugin accepted by name");
    } catch (const plugin::PluginError& e) {
        QVERIFY2(QString(e.what()).contains("'libz.so.1' is a relative path: plugins are never loaded from the working directory"),
                 e.what());
    }
}

void TestRegistry::pluginFoldersOthersCanWriteAreRefused()
{
    // A folder with one good plugin; each case makes one place writable by others, then the
    // folder loads again once that is undone.
    QTemporaryDir tmp; // in /tmp: world-writable but sticky, which is fine above our folder
    const QString outer = tmp.filePath("outer");
    const QString dir = outer + "/plugins";
    QVERIFY(QDir().mkpath(dir));
    const QString so = dir + "/a_good.so";
    QVERIFY(QFile::copy(GOOD_PLUGIN, so));
    const auto mode = [](const QString& p, mode_t m) { return ::chmod(p.toLocal8Bit().constData(), m) == 0; };
    QVERIFY(mode(outer, 0755) && mode(dir, 0755) && mode(so, 0644));
    QVERIFY(!plugin::unsafePluginLocation(so.toStdString()));

    struct Case {
        QString path;
        mode_t unsafe, safe;
        const char* why;
    };
    const Case cases[] = {
        {dir, 0777, 0755, "can be written by every user"},
        {dir, 0775, 0755, "can be written by its group"},
        {outer, 0777, 0755, "can be written by every user"}, // a folder above, not sticky
        {so, 0666, 0644, "can be written by every user"},
        {so, 0664, 0644, "can be written by its group"},
    };
    // Group-writable is unsafe for a shared group; this user's private group (root's "root"
    // here) is fine, so the group cases hand the files to "nogroup" first (root only).
    const bool root = ::geteuid() == 0;
    const auto group = [](const QString& p, gid_t g) { return ::chown(p.toLocal8Bit().constData(), -1, g) == 0; };
    if (root) { // group "root" has no other members: root's private group
        QVERIFY(mode(dir, 0775));
        QVERIFY2(!plugin::unsafePluginLocation(so.toStdString()), "group-writable in the user's private group refused");
        QVERIFY(mode(dir, 0755));
    }
    for (const Case& c : cases) {
        const bool groupCase = (c.unsafe & S_IWGRP) && !(c.unsafe & S_IWOTH);
        if (groupCase && !root)
            continue; // cannot give a file to another group
        if (groupCase)
            QVERIFY(group(c.path, 65534));
        QVERIFY(mode(c.path, c.unsafe));
        plugin::Registry r;
        const auto errors = r.loadPluginDirectory(dir.toStdString());
        QCOMPARE(errors.size(), std::size_t(1));
        const QString e = QString::fromStdString(errors[0]);
        QVERIFY2(e.contains(QFileInfo(c.path).canonicalFilePath() + " " + c.why), qPrintable(e));
        QVERIFY2(e.contains("plugins are loaded only from folders no other user can write to"), qPrintable(e));
        QVERIFY(r.plugins().empty());
        QVERIFY(mode(c.path, c.safe));
        if (groupCase)
            QVERIFY(group(c.path, 0));
    }
    // A sticky world-writable folder above ours (like /tmp) is fine; ours must not be one.
    QVERIFY(mode(outer, 01777));
    {
        plugin::Registry r;
        QVERIFY(r.loadPluginDirectory(dir.toStdString()).empty());
        QCOMPARE(r.plugins().size(), std::size_t(1));
    }
    QVERIFY(mode(dir, 01777));
    {
        plugin::Registry r;
        QCOMPARE(r.loadPluginDirectory(dir.toStdString()).size(), std::size_t(1));
        QVERIFY(r.plugins().empty());
    }
    QVERIFY(mode(dir, 0755) && mode(outer, 0755));

    // Owned by another user: only root can hand a file to someone else.
    if (::geteuid() == 0) {
        QVERIFY(::chown(so.toLocal8Bit().constData(), 65534, 65534) == 0); // nobody
        plugin::Registry r;
        const auto errors = r.loadPluginDirectory(dir.toStdString());
        QCOMPARE(errors.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(errors[0]).contains("is owned by another user (uid 65534)"), errors[0].c_str());
        QVERIFY(::chown(so.toLocal8Bit().constData(), 0, 0) == 0);
    }

    // Relative folders, also from SETSCOPE_PLUGIN_PATH, where an empty entry would be the
    // working directory.
    {
        plugin::Registry r;
        const auto errors = r.loadPluginDirectory("plugins");
        QCOMPARE(errors.size(), std::size_t(1));
        QVERIFY2(QString::fromStdString(errors[0]).contains("'plugins' is a relative path"), errors[0].c_str());
    }
    qputenv("SETSCOPE_PLUGIN_PATH", QByteArray("relative/plugins::") + dir.toUtf8());
    std::vector<std::string> refused;
    const auto dirs = plugin::defaultPluginDirectories("/nonexistent/bin/setscope-cli", &refused);
    qunsetenv("SETSCOPE_PLUGIN_PATH");
    QCOMPARE(dirs, std::vector<std::string>{QFileInfo(dir).canonicalFilePath().toStdString()});
    QCOMPARE(refused.size(), std::size_t(2));
    QVERIFY2(QString::fromStdString(refused[0]).contains("'relative/plugins' ignored: a relative path"), refused[0].c_str());
    QVERIFY2(QString::fromStdString(refused[1]).contains("'' ignored: an empty entry would be the working directory"),
             refused[1].c_str());
}

// Issue 29 §6: a plugin named through a symlink in a folder others can write to. Its target
// is swapped, as fast as a thread can, between a plugin in a safe folder and one in a folder
// every user can write to (a plugin of another ABI, so that loading it shows in the message).
// Each load must either load the safe plugin or refuse the unsafe folder: the file that passed
// the check is the file loaded. The loader checked the resolved path and then dlopen()ed the
// symlink, which resolved again: some attempts loaded the unsafe file, whose code then ran
// (its constructors, its info function: "refused plugin ... ABI 999").
void TestRegistry::theFileCheckedIsTheFileLoaded()
{
    QTemporaryDir tmp;
    const auto mode = [](const QString& p, mode_t m) { return ::chmod(p.toLocal8Bit().constData(), m) == 0; };
    QVERIFY(QDir().mkpath(tmp.filePath("safe")) && QDir().mkpath(tmp.filePath("open")));
    const QString good = tmp.filePath("safe/plugin.so"), bad = tmp.filePath("open/plugin.so");
    QVERIFY(QFile::copy(GOOD_PLUGIN, good) && QFile::copy(BAD_ABI_PLUGIN, bad));
    QVERIFY(mode(tmp.path(), 0700) && mode(tmp.filePath("safe"), 0755) && mode(good, 0644));
    QVERIFY(mode(tmp.filePath("open"), 0777) && mode(bad, 0644)); // not sticky: anyone may replace it
    const std::string link = tmp.filePath("plugin.so").toStdString(), next = tmp.filePath("plugin.so.next").toStdString();
    QVERIFY(::symlink(good.toLocal8Bit().constData(), link.c_str()) == 0);

    std::atomic<bool> stop{false};
    std::atomic<long> swaps{0};
    std::thread swapper([&] {
        const QByteArray targets[2] = {bad.toLocal8Bit(), good.toLocal8Bit()};
        for (long k = 0; !stop.load(); ++k) {
            ::unlink(next.c_str());
            if (::symlink(targets[k % 2].constData(), next.c_str()) == 0 && ::rename(next.c_str(), link.c_str()) == 0)
                ++swaps;
        }
    });
    int loaded = 0, refused = 0;
    QStringList other;
    for (int attempt = 0; attempt < 3000 && other.size() < 5; ++attempt) {
        plugin::Registry r;
        try {
            const plugin::LoadedPlugin& p = r.loadPlugin(link);
            if (p.name == "libsvm-loader" && !r.loaders().empty())
                ++loaded;
            else
                other << QString::fromStdString("loaded " + p.name);
        } catch (const plugin::PluginError& e) {
            const QString m = e.what();
            if (m.contains(QFileInfo(tmp.filePath("open")).canonicalFilePath() + " can be written by every user"))
                ++refused;
            else
                other << m;
        }
    }
    stop = true;
    swapper.join();
    qInfo("%d loads of the safe plugin, %d refusals of the open folder, %ld swaps", loaded, refused, swaps.load());
    QVERIFY2(other.isEmpty(), qPrintable(other.join("\n")));
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
    builtins::registerBuiltins(r);
    try {
        r.requireEncoder("resnet");
        QFAIL("accepted");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString(e.what()), QString("unknown model 'resnet' (available: mlp, selfattn, deepsets, cnn-mnist, cnn-weak)"));
    }
}

QTEST_GUILESS_MAIN(TestRegistry)
#include "tst_Registry.moc"
