// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The architecture's one rule, checked on the sources: core never includes Qt, OpenGL or
// ImGui; gui never includes Torch; a folder of core includes only folders below it. Plus the
// Qt Test trap: a test class without `Q_SLOTS` runs nothing.
#include <QtTest>

#include <QDirIterator>
#include <QProcess>
#include <QRegularExpression>

class TestLayerRules : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void coreHasNoQtGlImgui();
    void guiHasNoTorch();
    void guiObjectsReferNoTorch();
    void sdkHasNoQt();
    void coreFoldersIncludeOnlyLowerOnes();
    void builtinRegistrationsStayWithTheirKind();
    void catalogueNamesNoDataset();
    void everyTestHasSlots();
    void everySourceHasSpdx();

private:
    static QStringList offenders(const QString& dir, const QRegularExpression& re);
};

QStringList TestLayerRules::offenders(const QString& dir, const QRegularExpression& re)
{
    QStringList out;
    QDirIterator it(QString(SETSCOPE_SOURCE_DIR) + "/" + dir, {"*.h", "*.hpp", "*.cpp", "*.cu"}, QDir::Files,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            continue;
        int line = 0;
        while (!f.atEnd()) {
            ++line;
            const QString l = QString::fromUtf8(f.readLine());
            if (re.match(l).hasMatch())
                out << QString("%1:%2: %3").arg(path).arg(line).arg(l.trimmed());
        }
    }
    return out;
}

void TestLayerRules::coreHasNoQtGlImgui()
{
    const QRegularExpression re(R"(^\s*#\s*include\s*[<"](Q[A-Za-z]+|Qt[A-Za-z]+/|imgui|GL/|GLES|EGL/))");
    const QStringList bad = offenders("core", re);
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

void TestLayerRules::guiHasNoTorch()
{
    const QRegularExpression re(R"(^\s*#\s*include\s*[<"](torch/|ATen/|c10/|caffe2/))");
    QStringList bad = offenders("gui", re);
    bad << offenders("app/gui", re);
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

// The build-level half of the rule (the grep above only sees this repository's includes):
// every symbol the GUI's compiled objects need from outside must not be LibTorch's (at::,
// c10::, torch::, caffe2::). Whatever reached a LibTorch header -- an include through a core
// header, <ATen/...> from /usr/include -- and used it leaves such a reference. The other
// half, that a target linking setscope_gui cannot even include <torch/...>, is a compile
// failure of tests/meta/GuiTorchProbe.cpp.
void TestLayerRules::guiObjectsReferNoTorch()
{
#ifndef SETSCOPE_GUI_ARCHIVE
    QSKIP("built without the GUI");
#else
    const auto torchReferences = [](const QString& archive, QStringList* bad) {
        QProcess nm;
        nm.start(SETSCOPE_NM, {"-C", "--undefined-only", archive});
        if (!nm.waitForFinished(120000) || nm.exitCode() != 0)
            return -1;
        const QStringList lines = QString::fromUtf8(nm.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
        const QRegularExpression torchSymbol(R"(\bU\s+.*\b(at|c10|torch|caffe2)::)");
        for (const QString& l : lines)
            if (torchSymbol.match(l).hasMatch())
                *bad << l.trimmed();
        bad->removeDuplicates();
        return int(lines.size());
    };
    // The pattern finds what it looks for: core, which uses LibTorch, refers to it.
    QStringList coreRefs;
    QVERIFY2(torchReferences(SETSCOPE_CORE_ARCHIVE, &coreRefs) > 100, "nm failed on setscope_core");
    QVERIFY2(coreRefs.size() > 10, qPrintable(QString("only %1 LibTorch references found in setscope_core").arg(coreRefs.size())));
    QStringList bad;
    QVERIFY2(torchReferences(SETSCOPE_GUI_ARCHIVE, &bad) > 100, "nm failed on setscope_gui");
    QVERIFY2(bad.isEmpty(), qPrintable(QString("setscope_gui refers to LibTorch:\n") + bad.mid(0, 20).join('\n')));
#endif
}

// The folders of core from the bottom up (docs/ARCHITECTURE.md). A file in one of them may
// include its own folder and those listed before it, never one after it: a lower layer never
// reaches up (as data once did into train/ for its job machinery, and data and fetch into
// each other). A new folder must be added here, or this test fails.
void TestLayerRules::coreFoldersIncludeOnlyLowerOnes()
{
    const QStringList order = {"util", "job", "dist", "plugin", "data", "model", "ot", "nn", "losses", "augment",
                               "eval", "semi", "layout", "fetch", "catalog", "train", "project", "workspace",
                               "builtins"};
    const QString root = QString(SETSCOPE_SOURCE_DIR) + "/core/";
    const QRegularExpression include(R"(^\s*#\s*include\s*"core/([a-z_]+)/)");
    QStringList bad;
    QDirIterator it(root, {"*.h", "*.hpp", "*.cpp", "*.cu"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        const QString folder = path.mid(root.size()).section('/', 0, 0);
        if (!path.mid(root.size()).contains('/'))
            continue; // core/CMakeLists.txt level files
        const qsizetype rank = order.indexOf(folder);
        if (rank < 0) {
            bad << QString("%1: folder core/%2 is not in the layer order of this test").arg(path, folder);
            continue;
        }
        QFile f(path);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
        int line = 0;
        while (!f.atEnd()) {
            ++line;
            const QString l = QString::fromUtf8(f.readLine());
            const auto m = include.match(l);
            if (!m.hasMatch())
                continue;
            const qsizetype other = order.indexOf(m.captured(1));
            if (other < 0 || other > rank)
                bad << QString("%1:%2: core/%3 includes core/%4, which is not below it")
                           .arg(path)
                           .arg(line)
                           .arg(folder, m.captured(1));
        }
    }
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

// The built-ins (core/builtins, the top of core) register one kind per file, one line per item,
// and each item describes itself where it lives: a loss in core/losses, a loader in core/data.
// So a kind's file may include only the folders of that kind (and its own header), no other
// file of core calls a Registrar, and no kind is registered outside its file. A registration
// that reached into another layer (a loss's entry written in train/, a loader's in workspace/)
// would fail here.
void TestLayerRules::builtinRegistrationsStayWithTheirKind()
{
    struct Kind {
        const char* file;
        const char* call;
        QStringList folders;
    };
    const QList<Kind> kinds = {{"Loaders.cpp", "addLoader", {"data", "catalog"}},
                               {"Encoders.cpp", "addEncoder", {"nn"}},
                               {"Losses.cpp", "addLoss", {"losses"}},
                               {"Augmentations.cpp", "addAugmentation", {"augment"}},
                               {"Samplers.cpp", "addSampler", {"train"}},
                               {"Optimizers.cpp", "addOptimizer", {"train"}},
                               {"Recipes.cpp", "addRecipe", {"train"}}};
    const QString root = QString(SETSCOPE_SOURCE_DIR) + "/core/";
    const QRegularExpression include(R"(^\s*#\s*include\s*"core/([a-z_]+)/)");
    const QRegularExpression anyAdd(R"(\b(addLoader|addEncoder|addLoss|addAugmentation|addSampler|addOptimizer|addRecipe)\s*\()");
    QStringList bad;
    for (const Kind& kind : kinds) {
        QFile f(root + "builtins/" + kind.file);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
        int line = 0;
        int registrations = 0;
        while (!f.atEnd()) {
            ++line;
            const QString l = QString::fromUtf8(f.readLine());
            const auto m = include.match(l);
            if (m.hasMatch() && m.captured(1) != "builtins" && !kind.folders.contains(m.captured(1)))
                bad << QString("core/builtins/%1:%2: includes core/%3; a %4 entry lives in core/%5")
                           .arg(kind.file)
                           .arg(line)
                           .arg(m.captured(1), QString(kind.call).mid(3).toLower(), kind.folders.join(" or core/"));
            const auto a = anyAdd.match(l);
            if (!a.hasMatch())
                continue;
            if (a.captured(1) != kind.call)
                bad << QString("core/builtins/%1:%2: %3 belongs in the file of its kind").arg(kind.file).arg(line).arg(a.captured(1));
            else
                ++registrations;
        }
        if (registrations == 0)
            bad << QString("core/builtins/%1 registers nothing").arg(kind.file);
    }
    // Nobody else in core registers.
    QDirIterator it(root, {"*.h", "*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (path.mid(root.size()).startsWith("builtins/") || path.mid(root.size()).startsWith("plugin/"))
            continue; // the registry itself implements the Registrar
        QFile f(path);
        QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
        int line = 0;
        while (!f.atEnd()) {
            ++line;
            const QString l = QString::fromUtf8(f.readLine());
            if (anyAdd.match(l).hasMatch() && !l.trimmed().startsWith("//") && !l.trimmed().startsWith("///"))
                bad << QString("%1:%2: registers outside core/builtins").arg(path).arg(line);
        }
    }
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

// The catalogue opens what its tables list (core/catalog/Sources.cpp: named sources, spec
// transforms; core/fetch/Catalog.cpp: the fetched sources): its opening and word-vector code
// branches on no dataset's name. Checked on the string literals of those files.
void TestLayerRules::catalogueNamesNoDataset()
{
    const QStringList names = {"fashion-mnist", "synthetic", "glove-100d", "+pointsets", "word-vectors", "bzr", "digits"};
    QStringList bad;
    for (const char* file : {"core/catalog/DatasetCatalog.cpp", "core/catalog/CorpusLoaders.cpp", "core/catalog/LoadJob.cpp"}) {
        QFile f(QString(SETSCOPE_SOURCE_DIR) + "/" + file);
        QVERIFY2(f.open(QIODevice::ReadOnly), file);
        int line = 0;
        while (!f.atEnd()) {
            ++line;
            const QString l = QString::fromUtf8(f.readLine());
            if (l.trimmed().startsWith("//"))
                continue;
            for (const QString& n : names)
                if (l.contains('"' + n + '"'))
                    bad << QString("%1:%2: names the dataset %3; give it an entry in core/catalog/Sources.cpp")
                               .arg(file)
                               .arg(line)
                               .arg(n);
        }
    }
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

void TestLayerRules::sdkHasNoQt()
{
    const QRegularExpression re(R"(^\s*#\s*include\s*[<"](Q[A-Za-z]+|Qt[A-Za-z]+/))");
    const QStringList bad = offenders("plugins", re);
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

void TestLayerRules::everyTestHasSlots()
{
    QStringList bad;
    QDirIterator it(QString(SETSCOPE_SOURCE_DIR) + "/tests", {"*.cpp"}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(f.readAll());
        if (text.contains(QRegularExpression(R"(QTEST_(GUILESS_|APPLESS_)?MAIN)")) &&
            !text.contains(QRegularExpression(R"(private\s+Q_SLOTS\s*:)")))
            bad << path;
    }
    QVERIFY2(bad.isEmpty(), qPrintable("no 'private Q_SLOTS:' in: " + bad.join(", ")));
}

void TestLayerRules::everySourceHasSpdx()
{
    QStringList bad;
    for (const QString dir : {"core", "gui", "app", "plugins", "tests", "bench"}) {
        QDirIterator it(QString(SETSCOPE_SOURCE_DIR) + "/" + dir, {"*.h", "*.cpp", "*.vert", "*.frag"}, QDir::Files,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString path = it.next();
            QFile f(path);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString head = QString::fromUtf8(f.read(400));
            if (!head.contains("SPDX-License-Identifier:"))
                bad << path;
        }
    }
    QVERIFY2(bad.isEmpty(), qPrintable("missing SPDX header: " + bad.join(", ")));
}

QTEST_GUILESS_MAIN(TestLayerRules)
#include "tst_LayerRules.moc"
