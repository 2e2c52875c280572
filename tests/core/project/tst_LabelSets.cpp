// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Derived label sets in a project: created, re-derived as one undoable edit, the mapping kept
// with them; label CSV export and import. Expected labels are written out by hand.
#include "core/data/Dataset.h"
#include "core/data/LabelMapping.h"
#include "core/project/LabelSets.h"
#include "core/project/ProjectStore.h"
#include "core/project/RunRecorder.h"

#include <setscope/sdk/Errors.h>

#include "tests/support/ZooDataset.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace setscope;
using Labels = std::vector<std::int32_t>;

namespace {

const char* kKind = R"({"name": "kind", "from": "fine",
  "classes": {"fish": ["trout", "salmon"], "mammal": ["cat", "dog"]}})";
// The mapping changed: cats are their own class now, salmon counts as "other".
const char* kKind2 = R"({"name": "kind", "from": "fine",
  "classes": {"fish": ["trout"], "mammal": ["dog"], "cat": ["cat"], "other": ["salmon"]}})";

std::string inputError(const std::function<void()>& f)
{
    try {
        f();
    } catch (const sdk::InputError& e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestLabelSets : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void deriveThenRederiveThenUndo()
    {
        QTemporaryDir dir;
        const std::string path = dir.filePath("p.setscope").toStdString();
        const data::Dataset ds = testutil::zooDataset();
        std::int64_t id = 0;
        {
            auto store = project::ProjectStore::open(path);
            const auto attached = project::attachDataset(*store, ds, "/data/zoo");
            const auto d = project::deriveLabelSet(*store, attached.datasetId, *attached.dataset,
                                                   data::LabelMapping::fromJson(kKind));
            QVERIFY(d.created);
            QCOMPARE(d.editId, std::int64_t(0));
            id = d.labelSetId;
            QCOMPARE(store->labels(id), (Labels{1, 1, 0, 0, -1, 1}));
            QCOMPARE(store->labelSet(id)->classNames, (std::vector<std::string>{"fish", "mammal"}));
            QCOMPARE(store->labelMapping(id)->source, std::string("fine"));

            // Deriving again by the same mapping changes nothing and writes no edit.
            const auto same = project::deriveLabelSet(*store, attached.datasetId, *attached.dataset,
                                                      data::LabelMapping::fromJson(kKind));
            QVERIFY(!same.created);
            QCOMPARE(same.editId, std::int64_t(0));
            QVERIFY(store->history(id).empty());
        }
        {
            // Reopened (as after a restart): the new mapping re-derives in one edit. Existing
            // classes keep their ids (fish 0, mammal 1); cat 2 and other 3 are added.
            auto store = project::ProjectStore::open(path);
            const auto attached = project::attachDataset(*store, ds, "/data/zoo");
            QCOMPARE(attached.dataset->labelSet("kind")->labels, (Labels{1, 1, 0, 0, -1, 1}));
            const auto d = project::deriveLabelSet(*store, attached.datasetId, *attached.dataset,
                                                   data::LabelMapping::fromJson(kKind2));
            QVERIFY(!d.created);
            QCOMPARE(d.addedClasses, (std::vector<std::string>{"cat", "other"}));
            QCOMPARE(d.changed, std::int64_t(2)); // item 0 mammal -> cat, item 3 fish -> other
            QCOMPARE(store->labels(id), (Labels{2, 1, 0, 3, -1, 1}));
            QCOMPARE(store->history(id).size(), std::size_t(1));
            QVERIFY(store->labelMapping(id)->mappingJson.find("\"other\"") != std::string::npos);
            // Undo brings the first derivation's labels back; redo the second's.
            QVERIFY(store->undo(id));
            QCOMPARE(store->labels(id), (Labels{1, 1, 0, 0, -1, 1}));
            QVERIFY(store->redo(id));
            QCOMPARE(store->labels(id), (Labels{2, 1, 0, 3, -1, 1}));
            QVERIFY(store->integrityCheck());
        }
    }

    void hand_editsAreOverwrittenUndoably()
    {
        // A person relabelled item 1; re-deriving puts the mapping's label back, as one edit
        // that undo reverts (so the person's label is not lost).
        QTemporaryDir dir;
        auto store = project::ProjectStore::open(dir.filePath("p.setscope").toStdString());
        const auto attached = project::attachDataset(*store, testutil::zooDataset(), "/data/zoo");
        const auto m = data::LabelMapping::fromJson(kKind);
        const auto id = project::deriveLabelSet(*store, attached.datasetId, *attached.dataset, m).labelSetId;
        store->applyEdit(id, {{1, 0}}, "a person says fish");
        const auto d = project::deriveLabelSet(*store, attached.datasetId, *attached.dataset, m);
        QCOMPARE(d.changed, std::int64_t(1));
        QCOMPARE(store->labels(id)[1], 1);
        QVERIFY(store->undo(id));
        QCOMPARE(store->labels(id)[1], 0);
    }

    void csvRoundTripAndErrors()
    {
        QTemporaryDir dir;
        const std::string csv = dir.filePath("l.csv").toStdString();
        project::writeLabelCsv(csv, "kind", {"fish", "mam,mal \"x\""}, {1, 1, 0, -1, 0});
        {
            std::ifstream in(csv);
            std::string all((std::istreambuf_iterator<char>(in)), {});
            QCOMPARE(all, std::string("item,\"kind\"\n0,\"mam,mal \"\"x\"\"\"\n1,\"mam,mal \"\"x\"\"\"\n2,\"fish\"\n"
                                      "4,\"fish\"\n"));
        }
        QVERIFY(!QFileInfo::exists(QString::fromStdString(csv + ".part")));
        // Read back against classes in another order, with one new class in the file.
        std::vector<std::string> classes{"mam,mal \"x\"", "bird"};
        std::ofstream(csv, std::ios::app) << "3,\"newt\"\n";
        // New classes get ids in the order the file meets them: fish (line 4) 2, newt (line 6) 3.
        QCOMPARE(project::readLabelCsv(csv, 5, classes), (Labels{0, 0, 2, 3, 2}));
        QCOMPARE(classes, (std::vector<std::string>{"mam,mal \"x\"", "bird", "fish", "newt"}));

        const auto bad = [&](const char* text, std::int64_t items = 5) {
            std::ofstream(csv, std::ios::trunc) << text;
            std::vector<std::string> c;
            return inputError([&] { project::readLabelCsv(csv, items, c); });
        };
        QVERIFY(bad("item,kind\n7,fish\n").find("(line 2): item 7 is not in [0, 5)") != std::string::npos);
        QVERIFY(bad("item,kind\n1,fish\n1,cat\n").find("(line 3): item 1 is given twice") != std::string::npos);
        QVERIFY(bad("item,kind\n1x,fish\n").find("\"1x\" is not a whole number") != std::string::npos);
        QVERIFY(bad("id,kind\n1,fish\n").find("expected the header") != std::string::npos);
        // An empty label leaves the item unlabelled.
        std::ofstream(csv, std::ios::trunc) << "item,kind\n0,\n1,fish\n";
        std::vector<std::string> c;
        QCOMPARE(project::readLabelCsv(csv, 3, c), (Labels{-1, 0, -1}));
    }
};

QTEST_GUILESS_MAIN(TestLabelSets)
#include "tst_LabelSets.moc"
