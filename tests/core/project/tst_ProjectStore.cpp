// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "ChildEdits.h"
#include "core/project/ProjectStore.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <thread>

using namespace setscope::project;

namespace {

using Labels = std::vector<std::int32_t>;

std::string str(const QString& s) { return s.toStdString(); }

/// Runs f; returns what() of the ProjectError it throws, or nullopt when it throws nothing.
/// Any other exception fails the test (propagates).
template <typename F>
std::optional<std::string> projectError(F&& f)
{
    try {
        f();
    } catch (const ProjectError& e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll();
}

bool writeBytes(const QString& path, const QByteArray& bytes)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(bytes) == bytes.size();
}

/// Runs SQL on a file with the SQLite C API directly (not through the store): builds the
/// foreign and tampered files of the bad-file tests.
bool rawSql(const QString& path, const char* sql)
{
    sqlite3* db = nullptr;
    bool ok = sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) ==
              SQLITE_OK;
    ok = ok && sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
    sqlite3_close(db);
    return ok;
}

const QRegularExpression kIsoUtc(QStringLiteral("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$"));

bool timestampBetween(const std::string& ts, const QDateTime& before, const QDateTime& after)
{
    const QString s = QString::fromStdString(ts);
    if (!kIsoUtc.match(s).hasMatch())
        return false;
    const QDateTime t = QDateTime::fromString(s, Qt::ISODateWithMs);
    return t.isValid() && t.timeSpec() == Qt::UTC && t >= before.addMSecs(-1000) && t <= after.addMSecs(1000);
}

// The hand-computed label vectors of the undo/redo tests: 6 items, classes {cat, dog, bird}.
const std::vector<std::string> kClasses{"cat", "dog", "bird"};
const Labels kInitial{0, 0, 1, 1, -1, 2};
const std::vector<LabelChange> kEdit1{{0, 2}, {4, 1}};
const Labels kAfter1{2, 0, 1, 1, 1, 2};
const std::vector<LabelChange> kEdit2{{1, -1}, {2, 0}, {0, 1}};
const Labels kAfter2{1, -1, 0, 1, 1, 2};
const std::vector<LabelChange> kEdit3{{5, -1}, {3, 2}, {0, 0}};
const Labels kAfter3{0, -1, 0, 2, 1, -1};
// Applied to kAfter1 once edits 2 and 3 are undone.
const std::vector<LabelChange> kEdit4{{2, 2}, {5, 0}};
const Labels kAfter1Then4{2, 0, 2, 1, 1, 0};

} // namespace

class TestProjectStore : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void createAndReopenKeepsEverything();
    void newProjectFileFormat();
    void version1ProjectIsUpgraded();
    void checkpointDirBesideFile();
    void datasetDedupByPathAndHash();
    void labelSetCreateValidates();
    void editsUndoRedoSequence();
    void newEditDiscardsRedoStack();
    void undoRedoSurviveReopen();
    void invalidEditsRejectedAtomically();
    void addClassKeepsHistory();
    void runsMetricsCheckpointsRoundTrip();
    void badFiles_data();
    void badFiles();
    void missingFolderIsAnError();
    void labelValuesFromElsewhereAreChecked_data();
    void labelValuesFromElsewhereAreChecked();
    void threadsShareOneStore();
    void twoProcessesWriteAtOnce();
    void killDuringEdits();

private:
    QString file(const char* name) const { return m_dir->filePath(QString::fromLatin1(name)); }
    /// A project with one dataset of 6 items and the label set "species" at kInitial.
    std::int64_t makeSpecies(ProjectStore& store);

    std::optional<QTemporaryDir> m_dir;
};

void TestProjectStore::init()
{
    m_dir.emplace();
    QVERIFY(m_dir->isValid());
}

void TestProjectStore::cleanup() { m_dir.reset(); }

std::int64_t TestProjectStore::makeSpecies(ProjectStore& store)
{
    const auto ds = store.addDataset("zoo", "/data/zoo.csv", "0123abcd", 6);
    return store.createLabelSet(ds, "species", kClasses, kInitial);
}

void TestProjectStore::createAndReopenKeepsEverything()
{
    const QString path = file("p.setscope");
    std::int64_t ds = 0, ls = 0, run = 0;
    {
        auto store = ProjectStore::open(str(path));
        QCOMPARE(store->path(), str(path));
        QVERIFY(store->datasets().empty());
        QVERIFY(store->runs().empty());
        ds = store->addDataset("zoo", "/data/zoo.csv", "0123abcd", 6);
        ls = store->createLabelSet(ds, "species", kClasses, kInitial);
        store->applyEdit(ls, kEdit1, "first");
        run = store->createRun(ds, R"({"loss":"triplet","lr":0.001})");
        store->addMetrics(run, 0, 100, {{"loss", 0.75}});
        store->addCheckpoint(run, 100, "p.checkpoints/run1-step100.pt");
        store->finishRun(run, "finished", "done");
        QVERIFY(store->integrityCheck());
    }
    // Closed cleanly: the WAL is folded into the file, nothing else is left beside it (no
    // temporary file from the creation either).
    QCOMPARE(QDir(m_dir->path()).entryList(QDir::Files), QStringList{QStringLiteral("p.setscope")});

    auto store = ProjectStore::open(str(path));
    const auto datasets = store->datasets();
    QCOMPARE(datasets.size(), std::size_t(1));
    QCOMPARE(datasets[0].id, ds);
    QCOMPARE(datasets[0].name, std::string("zoo"));
    QCOMPARE(datasets[0].path, std::string("/data/zoo.csv"));
    QCOMPARE(datasets[0].contentHash, std::string("0123abcd"));
    QCOMPARE(datasets[0].items, std::int64_t(6));
    const auto sets = store->labelSets(ds);
    QCOMPARE(sets.size(), std::size_t(1));
    QCOMPARE(sets[0].id, ls);
    QCOMPARE(sets[0].datasetId, ds);
    QCOMPARE(sets[0].name, std::string("species"));
    QCOMPARE(sets[0].classNames, kClasses);
    QCOMPARE(store->labels(ls), kAfter1);
    const auto hist = store->history(ls);
    QCOMPARE(hist.size(), std::size_t(1));
    QCOMPARE(hist[0].description, std::string("first"));
    QCOMPARE(hist[0].changes, std::int64_t(2));
    QVERIFY(!hist[0].undone);
    QCOMPARE(store->runs().size(), std::size_t(1));
    QCOMPARE(store->run(run)->status, std::string("finished"));
    QCOMPARE(store->run(run)->configJson, std::string(R"({"loss":"triplet","lr":0.001})"));
    QCOMPARE(store->metrics(run).size(), std::size_t(1));
    QCOMPARE(store->metrics(run)[0].value, 0.75);
    QCOMPARE(store->checkpoints(run).size(), std::size_t(1));
    QCOMPARE(store->checkpoints(run)[0].path, std::string("p.checkpoints/run1-step100.pt"));
    QVERIFY(store->integrityCheck());
}

void TestProjectStore::newProjectFileFormat()
{
    // Checked with SQLite directly, not through the store: a new project is a WAL-mode SQLite
    // file with the setscope application id and schema version 2.
    const QString path = file("fmt.setscope");
    ProjectStore::open(str(path)).reset();
    const QByteArray bytes = fileBytes(path);
    QVERIFY(bytes.size() >= 100);
    QCOMPARE(bytes.left(16), QByteArray("SQLite format 3\0", 16));
    QCOMPARE(bytes.mid(68, 4), QByteArray("SSCP")); // application_id, big-endian
    QCOMPARE(int(bytes[18]), 2);                    // 2 = WAL
    QCOMPARE(int(bytes[19]), 2);

    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    QCOMPARE(sqlite3_prepare_v2(db, "SELECT version FROM schema_version", -1, &st, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_step(st), SQLITE_ROW);
    QCOMPARE(sqlite3_column_int(st, 0), 2);
    QCOMPARE(sqlite3_step(st), SQLITE_DONE); // one row: a new file is not an upgraded one
    sqlite3_finalize(st);
    sqlite3_close(db);
}

void TestProjectStore::version1ProjectIsUpgraded()
{
    // A version-1 project (what setscope wrote before label mappings): the same file without
    // the label_mappings table. Opening it adds the table and records version 2; its
    // labels, edits and runs are as they were.
    const QString path = file("v1.setscope");
    std::int64_t ls = 0;
    {
        auto store = ProjectStore::open(str(path));
        ls = makeSpecies(*store);
        store->applyEdit(ls, kEdit1, "first");
    }
    QVERIFY(rawSql(path, "DROP TABLE label_mappings; UPDATE schema_version SET version = 1"));
    {
        auto store = ProjectStore::open(str(path));
        QCOMPARE(store->labels(ls), kAfter1);
        QCOMPARE(store->history(ls).size(), std::size_t(1));
        QVERIFY(!store->labelMapping(ls));
        store->setLabelMapping(ls, "fine", "{\"name\": \"species\"}");
        QVERIFY(store->integrityCheck());
    }
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    QCOMPARE(sqlite3_prepare_v2(db, "SELECT version, written_by FROM schema_version ORDER BY version", -1, &st, nullptr),
             SQLITE_OK);
    QCOMPARE(sqlite3_step(st), SQLITE_ROW);
    QCOMPARE(sqlite3_column_int(st, 0), 1);
    QCOMPARE(sqlite3_step(st), SQLITE_ROW);
    QCOMPARE(sqlite3_column_int(st, 0), 2);
    QVERIFY(QByteArray(reinterpret_cast<const char*>(sqlite3_column_text(st, 1))).contains("upgrade from version 1"));
    sqlite3_finalize(st);
    sqlite3_close(db);
    // The mapping survived the reopen; a second open does not upgrade again.
    auto store = ProjectStore::open(str(path));
    const auto m = store->labelMapping(ls);
    QVERIFY(m);
    QCOMPARE(m->source, std::string("fine"));
    QCOMPARE(m->mappingJson, std::string("{\"name\": \"species\"}"));
    QVERIFY(kIsoUtc.match(QString::fromStdString(m->updatedAt)).hasMatch());
    store->setLabelMapping(ls, "other", "{}"); // replaced, not added
    QCOMPARE(store->labelMapping(ls)->source, std::string("other"));
    QVERIFY(projectError([&] { store->setLabelMapping(ls + 100, "fine", "{}"); }));
    QVERIFY(projectError([&] { store->setLabelMapping(ls, "", "{}"); }));
}

void TestProjectStore::checkpointDirBesideFile()
{
    auto store = ProjectStore::open(str(file("exp.v2.setscope")));
    QCOMPARE(store->checkpointDir(), str(file("exp.v2.checkpoints")));
    QVERIFY(!QFileInfo::exists(file("exp.v2.checkpoints"))); // callers create it
}

void TestProjectStore::datasetDedupByPathAndHash()
{
    const QString path = file("d.setscope");
    const QDateTime before = QDateTime::currentDateTimeUtc();
    std::int64_t a = 0, b = 0, c = 0;
    {
        auto store = ProjectStore::open(str(path));
        a = store->addDataset("mnist", "/d/mnist", "h1", 10);
        QCOMPARE(store->addDataset("renamed", "/d/mnist", "h1", 10), a); // same (path, hash)
        b = store->addDataset("mnist v2", "/d/mnist", "h2", 12);          // same path, new content
        c = store->addDataset("copy", "/d/copy", "h1", 10);               // same content elsewhere
        QVERIFY(a != b && b != c && a != c);
        QVERIFY(projectError([&] { store->addDataset("bad", "/d/bad", "h", -1); }));
    }
    const QDateTime after = QDateTime::currentDateTimeUtc();
    auto store = ProjectStore::open(str(path));
    QCOMPARE(store->addDataset("again", "/d/mnist", "h2", 12), b); // dedup survives reopen
    const auto all = store->datasets();
    QCOMPARE(all.size(), std::size_t(3));
    QCOMPARE(all[0].id, a);
    QCOMPARE(all[0].name, std::string("mnist")); // the first name stays
    QCOMPARE(all[1].id, b);
    QCOMPARE(all[1].items, std::int64_t(12));
    QCOMPARE(all[2].id, c);
    QCOMPARE(all[2].path, std::string("/d/copy"));
    for (const auto& d : all)
        QVERIFY2(timestampBetween(d.addedAt, before, after), d.addedAt.c_str());
    QCOMPARE(store->findDataset("/d/mnist", "h2")->id, b);
    QVERIFY(!store->findDataset("/d/none", "h1"));
    QVERIFY(!store->findDataset("/d/mnist", "h3"));
    QCOMPARE(store->dataset(c)->contentHash, std::string("h1"));
    QVERIFY(!store->dataset(12345));
}

void TestProjectStore::labelSetCreateValidates()
{
    auto store = ProjectStore::open(str(file("ls.setscope")));
    const auto ds = store->addDataset("zoo", "/data/zoo.csv", "0123abcd", 6);
    const auto other = store->addDataset("other", "/data/other.csv", "ff", 2);
    const auto ls = store->createLabelSet(ds, "species", kClasses, kInitial);
    QCOMPARE(store->labels(ls), kInitial);
    QVERIFY(!store->canUndo(ls));
    QVERIFY(!store->canRedo(ls));
    QVERIFY(store->history(ls).empty());

    const auto wrongSize = projectError([&] { store->createLabelSet(ds, "x", kClasses, {0, 1, 2}); });
    QVERIFY(wrongSize);
    QVERIFY2(wrongSize->find("3 initial labels for a dataset of 6 items") != std::string::npos, wrongSize->c_str());
    QVERIFY(projectError([&] { store->createLabelSet(ds, "x", kClasses, {0, 1, 2, 3, 0, 0}); })); // 3 classes
    QVERIFY(projectError([&] { store->createLabelSet(ds, "x", kClasses, {0, 1, 2, -2, 0, 0}); }));
    QVERIFY(projectError([&] { store->createLabelSet(ds, "x", {"a", "b", "a"}, {0, 0, 0, 0, 0, 0}); }));
    QVERIFY(projectError([&] { store->createLabelSet(ds, "x", {"a", ""}, {0, 0, 0, 0, 0, 0}); }));
    QVERIFY(projectError([&] { store->createLabelSet(ds, "species", kClasses, kInitial); })); // name taken
    QVERIFY(projectError([&] { store->createLabelSet(999, "x", kClasses, kInitial); }));

    // Nothing of the rejected calls was stored.
    QCOMPARE(store->labelSets(ds).size(), std::size_t(1));
    // The same name on another dataset is fine; no classes and all unlabelled is fine too.
    const auto ls2 = store->createLabelSet(other, "species", {}, {-1, -1});
    QCOMPARE(store->labels(ls2), (Labels{-1, -1}));
    QCOMPARE(store->findLabelSet(other, "species")->id, ls2);
    QCOMPARE(store->findLabelSet(ds, "species")->id, ls);
    QVERIFY(!store->findLabelSet(ds, "nope"));
    QCOMPARE(store->labelSet(ls)->classNames, kClasses);
    QVERIFY(!store->labelSet(4242));
    QVERIFY(store->labelSets(4242).empty());
    QVERIFY(projectError([&] { store->labels(4242); }));

    // A dataset with no items gets an empty label vector.
    const auto empty = store->addDataset("empty", "/data/empty", "00", 0);
    const auto ls3 = store->createLabelSet(empty, "none", {"a"}, {});
    QVERIFY(store->labels(ls3).empty());
    QVERIFY(store->integrityCheck());
}

void TestProjectStore::editsUndoRedoSequence()
{
    auto store = ProjectStore::open(str(file("u.setscope")));
    const auto ls = makeSpecies(*store);
    const auto e1 = store->applyEdit(ls, kEdit1, "e1");
    QCOMPARE(store->labels(ls), kAfter1);
    const auto e2 = store->applyEdit(ls, kEdit2, "e2");
    QCOMPARE(store->labels(ls), kAfter2);
    const auto e3 = store->applyEdit(ls, kEdit3, "e3");
    QCOMPARE(store->labels(ls), kAfter3);
    QVERIFY(e1 < e2 && e2 < e3);
    QVERIFY(store->canUndo(ls));
    QVERIFY(!store->canRedo(ls));

    // What each edit recorded, by item: (item, old, new) worked out by hand.
    const auto ch2 = store->editChanges(e2);
    QCOMPARE(ch2.size(), std::size_t(3));
    QCOMPARE((std::vector<std::int64_t>{ch2[0].item, ch2[1].item, ch2[2].item}), (std::vector<std::int64_t>{0, 1, 2}));
    QCOMPARE((Labels{ch2[0].oldLabel, ch2[1].oldLabel, ch2[2].oldLabel}), (Labels{2, 0, 1}));
    QCOMPARE((Labels{ch2[0].newLabel, ch2[1].newLabel, ch2[2].newLabel}), (Labels{1, -1, 0}));

    QVERIFY(store->undo(ls));
    QCOMPARE(store->labels(ls), kAfter2);
    QVERIFY(store->canRedo(ls));
    QVERIFY(store->undo(ls));
    QCOMPARE(store->labels(ls), kAfter1);
    QVERIFY(store->redo(ls));
    QCOMPARE(store->labels(ls), kAfter2);
    QVERIFY(store->undo(ls));
    QCOMPARE(store->labels(ls), kAfter1);
    QVERIFY(store->undo(ls));
    QCOMPARE(store->labels(ls), kInitial);
    QVERIFY(!store->canUndo(ls));
    QVERIFY(!store->undo(ls));
    QCOMPARE(store->labels(ls), kInitial);

    const auto hist = store->history(ls);
    QCOMPARE(hist.size(), std::size_t(3));
    QVERIFY(hist[0].undone && hist[1].undone && hist[2].undone);
    QCOMPARE(hist[1].description, std::string("e2"));
    QCOMPARE(hist[2].changes, std::int64_t(3));

    QVERIFY(store->redo(ls));
    QCOMPARE(store->labels(ls), kAfter1);
    QVERIFY(store->redo(ls));
    QCOMPARE(store->labels(ls), kAfter2);
    QVERIFY(store->redo(ls));
    QCOMPARE(store->labels(ls), kAfter3);
    QVERIFY(!store->canRedo(ls));
    QVERIFY(!store->redo(ls));
    QCOMPARE(store->labels(ls), kAfter3);
    for (const auto& e : store->history(ls))
        QVERIFY(!e.undone);

    QVERIFY(projectError([&] { store->undo(4242); }));
    QVERIFY(projectError([&] { store->redo(4242); }));
    QVERIFY(!store->canUndo(4242));
    QVERIFY(store->history(4242).empty());
    QVERIFY(store->integrityCheck());
}

void TestProjectStore::newEditDiscardsRedoStack()
{
    auto store = ProjectStore::open(str(file("r.setscope")));
    const auto ls = makeSpecies(*store);
    const auto e1 = store->applyEdit(ls, kEdit1, "e1");
    store->applyEdit(ls, kEdit2, "e2");
    const auto e3 = store->applyEdit(ls, kEdit3, "e3");
    QVERIFY(store->undo(ls));
    QVERIFY(store->undo(ls));
    QCOMPARE(store->labels(ls), kAfter1);

    const auto e4 = store->applyEdit(ls, kEdit4, "e4");
    QCOMPARE(store->labels(ls), kAfter1Then4);
    QVERIFY(e4 > e3); // ids are not reused
    QVERIFY(!store->canRedo(ls));
    QVERIFY(!store->redo(ls));
    const auto hist = store->history(ls);
    QCOMPARE(hist.size(), std::size_t(2));
    QCOMPARE(hist[0].id, e1);
    QCOMPARE(hist[1].id, e4);
    QVERIFY(store->editChanges(e3).empty()); // the discarded edit's changes are gone too

    QVERIFY(store->undo(ls));
    QCOMPARE(store->labels(ls), kAfter1);
    QVERIFY(store->undo(ls));
    QCOMPARE(store->labels(ls), kInitial);
    QVERIFY(store->redo(ls));
    QCOMPARE(store->labels(ls), kAfter1);
    QVERIFY(store->redo(ls));
    QCOMPARE(store->labels(ls), kAfter1Then4);
    QVERIFY(store->integrityCheck());
}

void TestProjectStore::undoRedoSurviveReopen()
{
    const QString path = file("h.setscope");
    std::int64_t ls = 0;
    {
        auto store = ProjectStore::open(str(path));
        ls = makeSpecies(*store);
        store->applyEdit(ls, kEdit1, "e1");
        store->applyEdit(ls, kEdit2, "e2");
        store->applyEdit(ls, kEdit3, "e3");
        QVERIFY(store->undo(ls));
    }
    {
        auto store = ProjectStore::open(str(path));
        QCOMPARE(store->labels(ls), kAfter2);
        const auto hist = store->history(ls);
        QCOMPARE(hist.size(), std::size_t(3));
        QVERIFY(!hist[0].undone && !hist[1].undone && hist[2].undone);
        QVERIFY(store->canRedo(ls));
        QVERIFY(store->redo(ls));
        QCOMPARE(store->labels(ls), kAfter3);
        QVERIFY(store->undo(ls));
        QVERIFY(store->undo(ls));
        QVERIFY(store->undo(ls));
        QCOMPARE(store->labels(ls), kInitial);
    }
    {
        auto store = ProjectStore::open(str(path));
        QCOMPARE(store->labels(ls), kInitial);
        QVERIFY(!store->canUndo(ls));
        QVERIFY(store->canRedo(ls));
        QVERIFY(store->redo(ls));
        QCOMPARE(store->labels(ls), kAfter1);
        store->applyEdit(ls, kEdit4, "e4");
    }
    auto store = ProjectStore::open(str(path));
    QCOMPARE(store->labels(ls), kAfter1Then4);
    QVERIFY(!store->canRedo(ls));
    QCOMPARE(store->history(ls).size(), std::size_t(2));
    QVERIFY(store->integrityCheck());
}

void TestProjectStore::invalidEditsRejectedAtomically()
{
    const QString path = file("i.setscope");
    auto store = ProjectStore::open(str(path));
    const auto ls = makeSpecies(*store);
    store->applyEdit(ls, kEdit1, "e1");
    store->applyEdit(ls, kEdit2, "e2");
    QVERIFY(store->undo(ls)); // a redo stack that a failed edit must not discard
    QCOMPARE(store->labels(ls), kAfter1);
    const auto histBefore = store->history(ls);

    struct Bad {
        const char* what;
        std::vector<LabelChange> changes;
        const char* expect;
    };
    const std::vector<Bad> bad{
        {"label = class count", {{0, 1}, {1, 3}}, "label 3 is neither -1 nor a class id in [0, 3)"},
        {"label below -1", {{0, 1}, {1, -2}}, "label -2"},
        {"item past the end", {{0, 1}, {6, 0}}, "item 6 is out of range [0, 6)"},
        {"negative item", {{-1, 0}, {0, 1}}, "item -1 is out of range"},
        {"item twice", {{2, 1}, {3, 0}, {2, 0}}, "item 2 appears more than once"},
        {"no change", {}, "at least one change"},
    };
    for (const Bad& b : bad) {
        const auto msg = projectError([&] { store->applyEdit(ls, b.changes, b.what); });
        QVERIFY2(msg, b.what);
        QVERIFY2(msg->find(str(path)) == 0, msg->c_str());
        QVERIFY2(msg->find(b.expect) != std::string::npos, msg->c_str());
        QCOMPARE(store->labels(ls), kAfter1);
        QVERIFY(store->canRedo(ls));
    }
    QVERIFY(projectError([&] { store->applyEdit(4242, kEdit1, "unknown set"); }));

    const auto histAfter = store->history(ls);
    QCOMPARE(histAfter.size(), histBefore.size());
    for (std::size_t i = 0; i < histAfter.size(); ++i) {
        QCOMPARE(histAfter[i].id, histBefore[i].id);
        QCOMPARE(histAfter[i].undone, histBefore[i].undone);
    }
    QVERIFY(store->redo(ls));
    QCOMPARE(store->labels(ls), kAfter2);
    QVERIFY(store->integrityCheck());
}

void TestProjectStore::addClassKeepsHistory()
{
    auto store = ProjectStore::open(str(file("c.setscope")));
    const auto ls = makeSpecies(*store);
    store->applyEdit(ls, kEdit1, "e1");
    store->applyEdit(ls, kEdit2, "e2");
    QVERIFY(store->undo(ls));

    QVERIFY(projectError([&] { store->applyEdit(ls, {{3, 3}}, "fish before it exists"); }));
    QCOMPARE(store->addClass(ls, "fish"), 3);
    QCOMPARE(store->labelSet(ls)->classNames, (std::vector<std::string>{"cat", "dog", "bird", "fish"}));
    QVERIFY(store->canRedo(ls)); // adding a class leaves the redo stack alone
    QVERIFY(projectError([&] { store->addClass(ls, "dog"); }));
    QVERIFY(projectError([&] { store->addClass(ls, ""); }));
    QVERIFY(projectError([&] { store->addClass(4242, "x"); }));

    store->applyEdit(ls, {{3, 3}}, "fish");
    QCOMPARE(store->labels(ls), (Labels{2, 0, 1, 3, 1, 2}));
    QVERIFY(store->undo(ls));
    QCOMPARE(store->labels(ls), kAfter1);
    QCOMPARE(store->labelSet(ls)->classNames.size(), std::size_t(4)); // undo keeps the class
    QCOMPARE(store->addClass(ls, "owl"), 4);
}

void TestProjectStore::runsMetricsCheckpointsRoundTrip()
{
    const QString path = file("runs.setscope");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    const QDateTime before = QDateTime::currentDateTimeUtc();
    std::int64_t r1 = 0, r2 = 0, c1 = 0, c2 = 0, ds = 0;
    {
        auto store = ProjectStore::open(str(path));
        ds = store->addDataset("zoo", "/data/zoo.csv", "0123abcd", 6);
        r1 = store->createRun(ds, R"({"epochs": 3})");
        r2 = store->createRun(ds, "{}");
        QCOMPARE(store->run(r1)->status, std::string("running"));
        QCOMPARE(store->run(r1)->finishedAt, std::string());
        QVERIFY(projectError([&] { store->createRun(ds, "{not json"); }));
        QVERIFY(projectError([&] { store->createRun(4242, "{}"); }));
        QCOMPARE(store->runs().size(), std::size_t(2));

        store->addMetrics(r1, 0, 10, {{"loss", 0.5}, {"recall@1", 0.25}});
        store->addMetrics(r1, 1, 20, {{"loss", nan}, {"grad_norm", inf}, {"neg", -inf}});
        store->addMetrics(r1, 1, 20, {}); // writes nothing
        store->addMetrics(r2, 0, 5, {{"loss", 1e-300}});
        QVERIFY(projectError([&] { store->addMetrics(4242, 0, 0, {{"loss", 1.0}}); }));

        c1 = store->addCheckpoint(r1, 10, "runs.checkpoints/r1-10.pt");
        c2 = store->addCheckpoint(r1, 20, "runs.checkpoints/r1-20.pt");
        QVERIFY(projectError([&] { store->addCheckpoint(4242, 0, "x.pt"); }));

        store->finishRun(r1, "finished", "reached 3 epochs");
        store->finishRun(r2, "cancelled", "");
        QVERIFY(projectError([&] { store->finishRun(r1, "failed", "twice"); }));
        QVERIFY(projectError([&] { store->finishRun(4242, "failed", ""); }));
        const auto r3 = store->createRun(ds, "[]");
        QVERIFY(projectError([&] { store->finishRun(r3, "done", ""); })); // not a status
        QCOMPARE(store->run(r3)->status, std::string("running"));
        store->finishRun(r3, "failed", "out of memory");
    }
    const QDateTime after = QDateTime::currentDateTimeUtc();

    auto store = ProjectStore::open(str(path));
    const auto runs = store->runs();
    QCOMPARE(runs.size(), std::size_t(3));
    QCOMPARE(runs[0].id, r1);
    QCOMPARE(runs[0].datasetId, ds);
    QCOMPARE(runs[0].configJson, std::string(R"({"epochs": 3})"));
    QCOMPARE(runs[0].status, std::string("finished"));
    QCOMPARE(runs[0].note, std::string("reached 3 epochs"));
    QVERIFY2(timestampBetween(runs[0].startedAt, before, after), runs[0].startedAt.c_str());
    QVERIFY2(timestampBetween(runs[0].finishedAt, before, after), runs[0].finishedAt.c_str());
    QVERIFY(runs[0].startedAt <= runs[0].finishedAt);
    QCOMPARE(runs[1].status, std::string("cancelled"));
    QCOMPARE(runs[2].status, std::string("failed"));
    QCOMPARE(runs[2].note, std::string("out of memory"));
    QVERIFY(!store->run(4242));

    const auto m = store->metrics(r1);
    QCOMPARE(m.size(), std::size_t(5));
    QCOMPARE(m[0].runId, r1);
    QCOMPARE(m[0].epoch, 0);
    QCOMPARE(m[0].step, std::int64_t(10));
    QCOMPARE(m[0].name, std::string("loss"));
    QCOMPARE(m[0].value, 0.5);
    QCOMPARE(m[1].name, std::string("recall@1"));
    QCOMPARE(m[1].value, 0.25);
    QCOMPARE(m[2].epoch, 1);
    QCOMPARE(m[2].step, std::int64_t(20));
    QVERIFY(std::isnan(m[2].value));
    QCOMPARE(m[3].name, std::string("grad_norm"));
    QVERIFY(std::isinf(m[3].value) && m[3].value > 0);
    QVERIFY(std::isinf(m[4].value) && m[4].value < 0);
    const auto m2 = store->metrics(r2);
    QCOMPARE(m2.size(), std::size_t(1));
    QCOMPARE(m2[0].value, 1e-300);
    QVERIFY(store->metrics(4242).empty());

    const auto cps = store->checkpoints(r1);
    QCOMPARE(cps.size(), std::size_t(2));
    QCOMPARE(cps[0].id, c1);
    QCOMPARE(cps[0].runId, r1);
    QCOMPARE(cps[0].step, std::int64_t(10));
    QCOMPARE(cps[0].path, std::string("runs.checkpoints/r1-10.pt"));
    QCOMPARE(cps[1].id, c2);
    QCOMPARE(cps[1].step, std::int64_t(20));
    QVERIFY(timestampBetween(cps[1].createdAt, before, after));
    QVERIFY(store->checkpoints(r2).empty());
    QVERIFY(store->integrityCheck());
}

void TestProjectStore::badFiles_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expect");
    QTest::newRow("random bytes") << "random" << "not a setscope project";
    QTest::newRow("empty file") << "empty" << "not a setscope project (the file is empty)";
    QTest::newRow("text file") << "text" << "not a setscope project (not an SQLite database)";
    QTest::newRow("sqlite, foreign schema") << "foreign" << "not a setscope project";
    QTest::newRow("sqlite, other application") << "otherapp" << "another application";
    QTest::newRow("truncated to half") << "half" << "damaged";
    QTest::newRow("truncated by one page") << "onepage" << "damaged";
    QTest::newRow("truncated to header") << "header" << "damaged";
    QTest::newRow("truncated inside header") << "short" << "damaged (truncated to 50 bytes)";
    QTest::newRow("table missing") << "dropped" << "table runs is missing";
    QTest::newRow("newer schema version") << "newer" << "newer setscope (schema version 99";
    QTest::newRow("version-2 table missing") << "dropped2" << "table label_mappings is missing";
    // Untrusted files: SQL that setscope did not put there, and a damaged page inside.
    QTest::newRow("foreign trigger") << "trigger" << "did not put there (trigger 'wipe')";
    QTest::newRow("foreign view") << "view" << "did not put there (view 'v')";
    QTest::newRow("trigger and view") << "both" << "(trigger 'a_wipe', view 'v')";
    QTest::newRow("overwritten page") << "page" << "the project file is damaged";
}

void TestProjectStore::badFiles()
{
    QFETCH(QString, kind);
    QFETCH(QString, expect);
    const QString path = file("bad.setscope");

    // A real project several pages long, for the kinds that damage or tamper with one.
    const auto makeReal = [&](const QString& p) {
        auto store = ProjectStore::open(str(p));
        const auto ds = store->addDataset("big", "/data/big", "beef", 5000);
        const auto ls = store->createLabelSet(ds, "l", {"a", "b"}, Labels(5000, 0));
        for (int k = 0; k < 20; ++k) {
            std::vector<LabelChange> ch;
            for (int j = 0; j < 50; ++j)
                ch.push_back({(k * 50 + j) % 5000, 1});
            store->applyEdit(ls, ch, "edit");
        }
        const auto run = store->createRun(ds, "{}");
        for (int s = 0; s < 200; ++s)
            store->addMetrics(run, 0, s, {{"loss", 1.0 / (s + 1)}});
    };

    if (kind == "random") {
        QByteArray b(8192, '\0');
        QRandomGenerator rng(1234);
        for (auto& ch : b)
            ch = static_cast<char>(rng.bounded(256));
        QVERIFY(writeBytes(path, b));
    } else if (kind == "empty") {
        QVERIFY(writeBytes(path, {}));
    } else if (kind == "text") {
        QVERIFY(writeBytes(path, "name,label\na,1\nb,2\n"));
    } else if (kind == "foreign") {
        QVERIFY(rawSql(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);"
                             "INSERT INTO notes (body) VALUES ('keep me');"));
    } else if (kind == "otherapp") {
        QVERIFY(rawSql(path, "PRAGMA application_id = 1234; CREATE TABLE t (x);"));
    } else if (kind == "trigger" || kind == "view" || kind == "both") {
        makeReal(path);
        const char* trigger = "CREATE TRIGGER %1 AFTER INSERT ON metrics BEGIN DELETE FROM label_sets; END;";
        const QByteArray sql = kind == "trigger" ? QString::fromLatin1(trigger).arg("wipe").toUtf8()
                               : kind == "view"  ? QByteArray("CREATE VIEW v AS SELECT * FROM runs;")
                                                 : QString::fromLatin1(trigger).arg("a_wipe").toUtf8() +
                                                      "CREATE VIEW v AS SELECT * FROM runs;";
        QVERIFY(rawSql(path, sql.constData()));
    } else if (kind == "page") {
        // A b-tree page in the middle of a real project overwritten with other bytes (what a
        // bad sector or a buggy copy leaves): the header and the schema still read fine, so
        // only a check of the whole file finds it.
        const QString real = file("real.setscope");
        makeReal(real);
        QByteArray b = fileBytes(real);
        const qsizetype pages = b.size() / 4096;
        QVERIFY(pages > 8);
        const qsizetype at = (pages / 2) * 4096;
        for (qsizetype k = 0; k < 4096; ++k)
            b[at + k] = static_cast<char>((k * 37 + 11) & 0xff);
        QVERIFY(writeBytes(path, b));
        QVERIFY(QFile::remove(real));
    } else if (kind == "dropped" || kind == "newer" || kind == "dropped2") {
        makeReal(path);
        QVERIFY(rawSql(path, kind == "dropped"    ? "DROP TABLE runs"
                             : kind == "dropped2" ? "DROP TABLE label_mappings"
                                                  : "UPDATE schema_version SET version = 99"));
    } else {
        const QString real = file("real.setscope");
        makeReal(real);
        QByteArray b = fileBytes(real);
        QVERIFY(b.size() > 8 * 4096);
        const qsizetype keep = kind == "half" ? b.size() / 2 : kind == "onepage" ? b.size() - 4096
                             : kind == "header"                 ? 100
                                                                : 50;
        QVERIFY(writeBytes(path, b.left(keep)));
        QVERIFY(QFile::remove(real));
    }

    const QByteArray before = fileBytes(path);
    const QStringList filesBefore = QDir(m_dir->path()).entryList(QDir::Files);
    const auto msg = projectError([&] { ProjectStore::open(str(path)); });
    QVERIFY2(msg, "no ProjectError");
    QVERIFY2(msg->find(str(path)) == 0, msg->c_str()); // names the file first
    QVERIFY2(msg->find(str(expect)) != std::string::npos, msg->c_str());
    qInfo("%s", msg->c_str());
    // Untouched, and nothing left beside it.
    QCOMPARE(fileBytes(path), before);
    QCOMPARE(QDir(m_dir->path()).entryList(QDir::Files), filesBefore);
    // Refused again the same way (the first attempt did not "repair" it into something else).
    QVERIFY(projectError([&] { ProjectStore::open(str(path)); }) == msg);
}

// Issue 29 §3: a project file from elsewhere may store any integer as a label or a class id;
// every reader indexes the class names with them. Each tampered file below opens (its header
// and tables are sound), but reading the label set refuses it with the item or the class ids
// named, integrityProblems() reports it, and nothing in the file changes.
void TestProjectStore::labelValuesFromElsewhereAreChecked_data()
{
    QTest::addColumn<QString>("sql");
    QTest::addColumn<QString>("expect");   // what labels() (or undo, for the edit) says
    QTest::addColumn<QString>("integrity"); // what integrityProblems() says
    QTest::addColumn<bool>("viaUndo");
    const QString item0 = "item 0 has the label %1, which is neither -1 nor a class id in [0, 10)";
    QTest::newRow("first label 0x7ffffff0 (the issue's file)")
        << "UPDATE label_sets SET labels = X'f0ffff7f' || substr(labels, 5)" << item0.arg(2147483632)
        << "label set 'fine' (id 1): " + item0.arg(2147483632) << false;
    QTest::newRow("label 10, one past the classes")
        << "UPDATE label_sets SET labels = X'0a000000' || substr(labels, 5)" << item0.arg(10)
        << "label set 'fine' (id 1): " + item0.arg(10) << false;
    QTest::newRow("label -2 at item 1796")
        << "UPDATE label_sets SET labels = substr(labels, 1, 7184) || X'feffffff'"
        << "item 1796 has the label -2, which is neither -1 nor a class id in [0, 10)"
        << "label set 'fine' (id 1): item 1796 has the label -2" << false;
    QTest::newRow("class ids 0 .. 8 and 12")
        << "UPDATE label_classes SET class_id = 12 WHERE class_id = 9"
        << "label set 'fine' (id 1): its 10 classes have ids 0 .. 12, not 0 .. 9"
        << "label set 'fine' (id 1): its 10 classes have ids 0 .. 12, not 0 .. 9" << false;
    QTest::newRow("an edit whose undo writes 99")
        << "UPDATE edit_changes SET old_label = 99 WHERE item = 3"
        << "edit 1 of label set 'fine' (id 1): item 3 has the label 99, which is neither -1 nor a class id in [0, 10)"
        << "edit 1 of label set 'fine' (id 1) changes item 3 from 99 to 5" << true;
    QTest::newRow("an edit of item 5000 of 1797")
        << "UPDATE edit_changes SET item = 5000 WHERE item = 3"
        << "edit 1 names item 5000 of 1797" << "changes item 5000 from 3 to 5, outside its 1797 items" << true;
}

void TestProjectStore::labelValuesFromElsewhereAreChecked()
{
    QFETCH(QString, sql);
    QFETCH(QString, expect);
    QFETCH(QString, integrity);
    QFETCH(bool, viaUndo);
    const QString path = file("elsewhere.setscope");
    std::int64_t ls = 0;
    {
        auto store = ProjectStore::open(str(path));
        const auto ds = store->addDataset("digits", "/data/digits", "d1g1t5", 1797);
        std::vector<std::string> classes;
        for (int k = 0; k < 10; ++k)
            classes.push_back(std::to_string(k));
        Labels labels(1797);
        for (int i = 0; i < 1797; ++i)
            labels[static_cast<std::size_t>(i)] = i % 10;
        ls = store->createLabelSet(ds, "fine", classes, labels);
        store->applyEdit(ls, {{3, 5}}, "item 3 is a five");
        QVERIFY(store->integrityProblems().empty());
    }
    QVERIFY(rawSql(path, sql.toUtf8().constData()));
    const QByteArray before = fileBytes(path);

    auto store = ProjectStore::open(str(path)); // header and tables are sound
    const auto msg = projectError([&] {
        if (viaUndo)
            store->undo(ls);
        else
            (void)store->labels(ls);
    });
    QVERIFY2(msg, "no ProjectError");
    qInfo("%s", msg->c_str());
    QVERIFY2(msg->find(str(path)) == 0, msg->c_str());
    QVERIFY2(msg->find(str(expect)) != std::string::npos, msg->c_str());
    const std::vector<std::string> problems = store->integrityProblems();
    QString all;
    for (const std::string& p : problems)
        all += QString::fromStdString(p) + "\n";
    QVERIFY2(all.contains(integrity), qPrintable(all));
    store.reset();
    QCOMPARE(fileBytes(path), before); // nothing saved was changed or lost
}

void TestProjectStore::missingFolderIsAnError()
{
    const QString path = file("no/such/folder/p.setscope");
    const auto msg = projectError([&] { ProjectStore::open(str(path)); });
    QVERIFY(msg);
    QVERIFY2(msg->find(str(path)) == 0, msg->c_str());
    QVERIFY(!QFileInfo::exists(file("no")));
    QVERIFY(projectError([&] { ProjectStore::open(""); }));
    QVERIFY(projectError([&] { ProjectStore::open(str(m_dir->path())); })); // a folder
}

void TestProjectStore::threadsShareOneStore()
{
    auto store = ProjectStore::open(str(file("t.setscope")));
    const auto ds = store->addDataset("zoo", "/data/zoo.csv", "0123abcd", 6);
    const auto run = store->createRun(ds, "{}");
    const auto ls = store->createLabelSet(ds, "species", kClasses, kInitial);
    constexpr int kPerThread = 100;
    std::atomic<int> errors{0};
    auto writer = [&](const std::string& name) {
        try {
            for (int i = 0; i < kPerThread; ++i)
                store->addMetrics(run, 0, i, {{name, double(i)}});
        } catch (...) {
            ++errors;
        }
    };
    auto editor = [&] {
        try {
            for (int i = 0; i < kPerThread / 2; ++i) {
                store->applyEdit(ls, kEdit1, "e1");
                if (!store->undo(ls))
                    ++errors;
            }
        } catch (...) {
            ++errors;
        }
    };
    std::thread a(writer, "a"), b(writer, "b"), c(editor);
    a.join();
    b.join();
    c.join();
    QCOMPARE(errors.load(), 0);
    const auto m = store->metrics(run);
    QCOMPARE(m.size(), std::size_t(2 * kPerThread));
    // Each writer's values arrive in its own order.
    for (const char* name : {"a", "b"}) {
        int next = 0;
        for (const auto& r : m)
            if (r.name == name)
                QCOMPARE(r.value, double(next++));
        QCOMPARE(next, kPerThread);
    }
    QCOMPARE(store->labels(ls), kInitial);
    QVERIFY(store->integrityCheck());
}

void TestProjectStore::twoProcessesWriteAtOnce()
{
    // The child edits labels while this process records metrics in the same file: both wait
    // for each other's write lock (busy timeout) instead of failing.
    namespace ce = childedits;
    const QString path = file("two.setscope");
    auto store = ProjectStore::open(str(path));
    const auto ds = store->addDataset("kill", "/data/kill.bin", "c0ffee", ce::kItems);
    const auto ls = store->createLabelSet(ds, "l", {"a", "b", "c", "d", "e"}, ce::initialLabels());
    const auto run = store->createRun(ds, "{}");

    constexpr int kEdits = 60;
    QProcess child;
    child.start(QStringLiteral(PROJECT_CHILD),
                {path, QString::number(ls), QStringLiteral("1"), QString::number(kEdits)});
    QVERIFY2(child.waitForStarted(), qPrintable(child.errorString()));
    int steps = 0;
    QElapsedTimer timer;
    timer.start();
    bool finished = false;
    while (!(finished = child.waitForFinished(0)) && timer.elapsed() < 180000) {
        store->addMetrics(run, 0, steps, {{"loss", double(steps)}, {"acc", 0.5}});
        ++steps;
        QThread::usleep(300); // a training loop pauses between steps; without it the child could starve
    }
    QVERIFY(finished);
    const QByteArray err = child.readAllStandardError();
    QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, err.constData());
    QCOMPARE(int(child.readAllStandardOutput().count('\n')), kEdits);

    Labels expected = ce::initialLabels();
    for (int k = 1; k <= kEdits; ++k)
        ce::applyTo(expected, k);
    QCOMPARE(store->labels(ls), expected);
    QCOMPARE(store->history(ls).size(), std::size_t(kEdits));
    QCOMPARE(store->metrics(run).size(), std::size_t(2 * steps));
    qInfo("parent recorded %d metric steps while the child made %d edits", steps, kEdits);
    QVERIFY(store->integrityCheck());
}

void TestProjectStore::killDuringEdits()
{
    namespace ce = childedits;
    const QString path = file("kill.setscope");
    std::int64_t ls = 0;
    {
        auto store = ProjectStore::open(str(path));
        const auto ds = store->addDataset("kill", "/data/kill.bin", "c0ffee", ce::kItems);
        ls = store->createLabelSet(ds, "l", {"a", "b", "c", "d", "e"}, ce::initialLabels());
    }

    const quint32 seed = QRandomGenerator::global()->generate();
    qInfo("kill delays seeded with %u", seed);
    QRandomGenerator rng(seed);
    Labels model = ce::initialLabels(); // the labels after `committed` edits, replayed here
    std::int64_t committed = 0;
    constexpr int kRounds = 5;
    for (int round = 0; round < kRounds; ++round) {
        // In odd rounds this process keeps the project open while the child writes and dies,
        // so the WAL is not folded back into the file between rounds.
        std::unique_ptr<ProjectStore> reader;
        if (round % 2 == 1)
            reader = ProjectStore::open(str(path));

        QProcess child;
        child.start(QStringLiteral(PROJECT_CHILD),
                    {path, QString::number(ls), QString::number(committed + 1), QStringLiteral("0")});
        QVERIFY2(child.waitForStarted(), qPrintable(child.errorString()));
        const int minReported = 2 + round * 3;
        QByteArray out;
        QElapsedTimer timer;
        timer.start();
        while (out.count('\n') < minReported && child.state() == QProcess::Running && timer.elapsed() < 60000) {
            child.waitForReadyRead(50);
            out += child.readAllStandardOutput();
        }
        QVERIFY2(out.count('\n') >= minReported, child.readAllStandardError().constData());
        const int delayUs = static_cast<int>(rng.bounded(40000));
        QThread::usleep(delayUs);
        child.kill(); // SIGKILL on Unix: no destructor, no flush, no COMMIT of an open transaction
        QVERIFY(child.waitForFinished(10000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);
        out += child.readAllStandardOutput();

        // Complete lines only: a number without its newline was not fully reported.
        const QList<QByteArray> lines = out.left(out.lastIndexOf('\n') + 1).split('\n');
        std::int64_t reported = committed;
        for (const QByteArray& line : lines) {
            if (line.isEmpty())
                continue;
            // Consecutive, continuing from the previous round.
            QCOMPARE(static_cast<std::int64_t>(line.toLongLong()), reported + 1);
            ++reported;
        }

        auto store = ProjectStore::open(str(path));
        const auto problems = store->integrityProblems();
        QVERIFY2(problems.empty(), problems.empty() ? "" : problems.front().c_str());
        const auto hist = store->history(ls);
        const auto inFile = static_cast<std::int64_t>(hist.size());
        // Every reported edit is there; at most one more committed after its last report.
        QVERIFY2(inFile == reported || inFile == reported + 1,
                 qPrintable(QStringLiteral("reported %1, file has %2").arg(reported).arg(inFile)));
        for (std::int64_t k = committed + 1; k <= inFile; ++k) {
            const EditRecord& e = hist[static_cast<std::size_t>(k - 1)];
            QCOMPARE(e.description, "edit " + std::to_string(k));
            QCOMPARE(e.changes, std::int64_t(ce::kChangesPerEdit));
            QVERIFY(!e.undone);
            // Exactly this edit's labels, with the labels it replaced as old labels.
            std::vector<EditChangeRecord> expected;
            for (const LabelChange& c : ce::edit(k))
                expected.push_back({c.item, model[static_cast<std::size_t>(c.item)], c.label});
            std::sort(expected.begin(), expected.end(), [](auto& x, auto& y) { return x.item < y.item; });
            const auto got = store->editChanges(e.id);
            QCOMPARE(got.size(), expected.size());
            for (std::size_t i = 0; i < got.size(); ++i) {
                QCOMPARE(got[i].item, expected[i].item);
                QCOMPARE(got[i].oldLabel, expected[i].oldLabel);
                QCOMPARE(got[i].newLabel, expected[i].newLabel);
            }
            ce::applyTo(model, k);
        }
        // No half-applied edit: the labels are exactly those of the committed edits. (Each
        // edit rewrites 64 items, so a partial one would show.)
        QCOMPARE(store->labels(ls), model);
        if (reader) {
            QCOMPARE(reader->labels(ls), model);
            QVERIFY(reader->integrityCheck());
        }
        qInfo("round %d: killed after a random %d us; last reported edit %lld, edits in the file %lld", round, delayUs,
              static_cast<long long>(std::max<std::int64_t>(reported, 0)), static_cast<long long>(inFile));
        committed = inFile;
    }

    // The stored old labels take every item back to the start, and redo forward again.
    auto store = ProjectStore::open(str(path));
    while (store->undo(ls)) {
    }
    QCOMPARE(store->labels(ls), ce::initialLabels());
    while (store->redo(ls)) {
    }
    QCOMPARE(store->labels(ls), model);
    QVERIFY(store->integrityCheck());
}

QTEST_GUILESS_MAIN(TestProjectStore)
#include "tst_ProjectStore.moc"
