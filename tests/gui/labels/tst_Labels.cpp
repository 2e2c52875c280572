// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The label loop without the map (offscreen): LabelController against a real project file
// (assign into a new set and class, one edit each, undo / redo and their texts, refusals),
// the assign dialog's fields, the mapping editor's model (rows, targets, the LabelMapping it
// gives) and dialog (derive, re-derive as one undoable edit, the stored mapping preloaded).
#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/data/LabelMapping.h"
#include "core/data/Synthetic.h"
#include "core/plugin/Registry.h"
#include "core/project/ProjectStore.h"
#include "gui/labels/AssignLabelDialog.h"
#include "gui/labels/LabelController.h"
#include "gui/labels/MappingEditorDialog.h"
#include "gui/labels/MappingModel.h"
#include "gui/session/Session.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace setscope;
using gui::LabelController;
using gui::MappingModel;
using gui::Session;

namespace {

std::shared_ptr<const data::Dataset> synthetic(const std::string& spec)
{
    return std::make_shared<const data::Dataset>(data::makeHierarchicalGaussians(data::SyntheticSpec::parse(spec)));
}

layout::LayoutJob::Options pca()
{
    layout::LayoutJob::Options o;
    o.method = layout::LayoutMethod::Pca;
    return o;
}

} // namespace

class TestLabels : public QObject {
    Q_OBJECT

private:
    plugin::Registry m_registry;
    QTemporaryDir m_dir;
    std::unique_ptr<Session> m_session;
    std::unique_ptr<LabelController> m_labels;

    /// A session with a fresh project and an 8-class (4 coarse) synthetic dataset in it.
    void openProject(const QString& name)
    {
        m_labels.reset();
        m_session = std::make_unique<Session>(m_registry);
        m_session->setLayoutOptions(pca());
        m_labels = std::make_unique<LabelController>(m_session.get());
        QVERIFY(m_session->openProject(m_dir.filePath(name)));
        QSignalSpy opened(m_session.get(), &Session::datasetChanged);
        m_session->setDataset(synthetic("dim=4,coarse=4,fine=2,points=20"), QStringLiteral("mem"));
        QVERIFY(opened.wait(30000));
        QVERIFY(m_labels->canEdit());
    }

private Q_SLOTS:
    void initTestCase()
    {
        builtins::registerBuiltins(m_registry);
        QVERIFY(m_dir.isValid());
    }

    void cleanup()
    {
        m_labels.reset();
        m_session.reset();
    }

    void withoutAProjectLabelsAreRefused()
    {
        Session s(m_registry);
        s.setLayoutOptions(pca());
        LabelController labels(&s);
        QVERIFY(!labels.canEdit());
        QVERIFY(labels.whyNot().contains(QStringLiteral("dataset")));
        s.setDataset(synthetic("points=5"), QStringLiteral("mem"));
        QVERIFY(!labels.canEdit());
        QVERIFY2(labels.whyNot().contains(QStringLiteral("project")), qPrintable(labels.whyNot()));
        QString error;
        QVERIFY(!labels.assign({0, 1}, QStringLiteral("mine"), QStringLiteral("a"), &error));
        QVERIFY(error.contains(QStringLiteral("project")));
        QVERIFY(!labels.canUndo());
        QVERIFY(labels.undoText().isEmpty());
    }

    void assignUndoRedo()
    {
        openProject(QStringLiteral("assign.setscope"));
        QSignalSpy history(m_labels.get(), &LabelController::historyChanged);
        QSignalSpy labelsChanged(m_session.get(), &Session::labelsChanged);
        const auto before = m_session->dataset();
        const std::size_t n = before->size();

        QString error;
        QVERIFY2(m_labels->assign({5, 3, 3, 9}, QStringLiteral("mine"), QStringLiteral("tops"), &error), qPrintable(error));
        QCOMPARE(labelsChanged.count(), 1);
        QCOMPARE(labelsChanged.at(0).at(0).toString(), QStringLiteral("mine"));
        QVERIFY(history.count() >= 1);
        QCOMPARE(m_labels->editedLabelSet(), QStringLiteral("mine"));
        QCOMPARE(m_labels->undoText(), QStringLiteral("assign 3 items to 'tops'"));
        QVERIFY(m_labels->canUndo());
        QVERIFY(!m_labels->canRedo());
        // The session's dataset carries the new set (a new object; the old one unchanged).
        const data::LabelSet* mine = m_session->dataset()->labelSet("mine");
        QVERIFY(mine);
        QVERIFY(before->labelSet("mine") == nullptr);
        QCOMPARE(mine->labels.size(), n);
        QCOMPARE(mine->classNames, std::vector<std::string>{"tops"});
        QCOMPARE(mine->labels[3], 0);
        QCOMPARE(mine->labels[5], 0);
        QCOMPARE(mine->labels[9], 0);
        QCOMPARE(mine->labels[4], -1);
        QCOMPARE(m_labels->labelSets().count(QStringLiteral("mine")), 1);
        QCOMPARE(m_labels->classes(QStringLiteral("mine")), QStringList{QStringLiteral("tops")});

        // A second class; an item that changes class; items already there are left out.
        QVERIFY(m_labels->assign({5, 6}, QStringLiteral("mine"), QStringLiteral("shoes"), &error));
        QCOMPARE(m_labels->undoText(), QStringLiteral("assign 2 items to 'shoes'"));
        QVERIFY(!m_labels->assign({6}, QStringLiteral("mine"), QStringLiteral("shoes"), &error));
        QVERIFY2(error.contains(QStringLiteral("already")), qPrintable(error));
        QVERIFY(!m_labels->assign({}, QStringLiteral("mine"), QStringLiteral("shoes"), &error));
        QVERIFY(!m_labels->assign({1}, QStringLiteral(" "), QStringLiteral("shoes"), &error));

        // Undo / redo: labels, texts and the dataset follow.
        QVERIFY(m_labels->undo());
        QCOMPARE(m_session->dataset()->requireLabelSet("mine").labels[5], 0);
        QCOMPARE(m_session->dataset()->requireLabelSet("mine").labels[6], -1);
        QCOMPARE(m_labels->undoText(), QStringLiteral("assign 3 items to 'tops'"));
        QCOMPARE(m_labels->redoText(), QStringLiteral("assign 2 items to 'shoes'"));
        QVERIFY(m_labels->canRedo());
        QVERIFY(m_labels->undo());
        QVERIFY(!m_labels->canUndo());
        QVERIFY(m_labels->undoText().isEmpty());
        QCOMPARE(m_session->dataset()->requireLabelSet("mine").labels[3], -1);
        QVERIFY(!m_labels->undo());
        QVERIFY(m_labels->redo());
        QVERIFY(m_labels->redo());
        QVERIFY(!m_labels->canRedo());
        QCOMPARE(m_session->dataset()->requireLabelSet("mine").labels[6], 1);

        // Everything is in the file already: a second store on it sees the same.
        auto store = project::ProjectStore::open(m_session->projectPath().toStdString());
        const auto rec = store->findLabelSet(m_session->projectDatasetId(), "mine");
        QVERIFY(rec);
        QCOMPARE(store->labels(rec->id), m_session->dataset()->requireLabelSet("mine").labels);
        const auto h = store->history(rec->id);
        QCOMPARE(h.size(), std::size_t(2));
        QVERIFY(!h[0].undone && !h[1].undone);

        // Assigning into an existing shipped set: a new class there.
        QVERIFY(m_labels->assign({0}, QStringLiteral("fine"), QStringLiteral("odd one"), &error));
        QCOMPARE(m_labels->editedLabelSet(), QStringLiteral("fine"));
        const data::LabelSet& fine = m_session->dataset()->requireLabelSet("fine");
        QCOMPARE(fine.classNames.back(), std::string("odd one"));
        QCOMPARE(fine.labels[0], fine.numClasses() - 1);

        // Another dataset: the edited set is forgotten.
        QSignalSpy opened(m_session.get(), &Session::datasetChanged);
        m_session->setDataset(synthetic("points=6"), QStringLiteral("other"));
        QVERIFY(opened.wait(30000));
        QVERIFY(m_labels->editedLabelSet().isEmpty());
        QVERIFY(!m_labels->canUndo());
    }

    void assignDialog()
    {
        openProject(QStringLiteral("dialog.setscope"));
        gui::AssignLabelDialog d(*m_labels, 12, QStringLiteral("fine"));
        QCOMPARE(d.labelSet(), QStringLiteral("fine"));
        QVERIFY(!d.acceptable()); // no class yet
        d.setClassName(m_labels->classes(QStringLiteral("fine")).first());
        QVERIFY(d.acceptable());
        QVERIFY(d.hint().isEmpty()); // both exist
        d.setClassName(QStringLiteral("brand new"));
        QVERIFY2(d.hint().contains(QStringLiteral("new class 'brand new'")), qPrintable(d.hint()));
        d.setLabelSet(QStringLiteral("garments"));
        QVERIFY2(d.hint().contains(QStringLiteral("new label set 'garments'")), qPrintable(d.hint()));
        QCOMPARE(d.className(), QStringLiteral("brand new"));
        QVERIFY(d.acceptable());
        d.setLabelSet(QString());
        QVERIFY(!d.acceptable());
    }

    void mappingModel()
    {
        data::LabelSet fine;
        fine.name = "fine";
        fine.classNames = {"shirt", "coat", "sneaker", "boot"};
        fine.labels = {0, 0, 1, 2, 3, 3, 3, -1};
        MappingModel m;
        m.setSource(fine);
        QCOMPARE(m.rowCount(), 4);
        QCOMPARE(m.columnCount(), 3);
        QCOMPARE(m.data(m.index(3, MappingModel::CountColumn), Qt::EditRole).toULongLong(), 3ull);
        QCOMPARE(m.data(m.index(1, MappingModel::TargetColumn)).toString(), QStringLiteral("coat")); // identity
        QVERIFY(m.flags(m.index(0, MappingModel::TargetColumn)) & Qt::ItemIsEditable);
        QVERIFY(!(m.flags(m.index(0, MappingModel::SourceColumn)) & Qt::ItemIsEditable));
        QCOMPARE(m.problem(QStringLiteral("coarse")), QString());
        QVERIFY(!m.problem(QStringLiteral("fine")).isEmpty()); // cannot replace its source
        QVERIFY(!m.problem(QString()).isEmpty());

        QVERIFY(m.setData(m.index(0, MappingModel::TargetColumn), QStringLiteral("tops")));
        QVERIFY(m.setData(m.index(1, MappingModel::TargetColumn), QStringLiteral(" tops ")));
        QVERIFY(m.setTarget(2, QStringLiteral("shoes")));
        QVERIFY(m.setTarget(3, QStringLiteral("shoes")));
        QCOMPARE(m.targets(), (QStringList{QStringLiteral("tops"), QStringLiteral("shoes")}));
        const data::LabelMapping mapping = m.mapping(QStringLiteral("coarse"));
        QCOMPARE(mapping.name, std::string("coarse"));
        QCOMPARE(mapping.source, std::string("fine"));
        // The JSON reads back to the same mapping, and it applies to the source set.
        const data::LabelMapping back = data::LabelMapping::fromJson(mapping.toJson());
        QCOMPARE(back.classNames(), (std::vector<std::string>{"tops", "shoes"}));
        QCOMPARE(back.classes[0].second, (std::vector<std::string>{"shirt", "coat"}));
        QCOMPARE(back.classes[1].second, (std::vector<std::string>{"sneaker", "boot"}));
        QCOMPARE(back.targetOf(fine), (std::vector<std::int32_t>{0, 0, 1, 1}));

        QVERIFY(m.setTarget(1, QString()));
        QVERIFY(m.problem(QStringLiteral("coarse")).contains(QStringLiteral("coat")));
        QVERIFY(!m.setTarget(4, QStringLiteral("x")));

        // A stored mapping: its targets; classes the source lacks are reported.
        MappingModel again;
        again.setSource(fine);
        data::LabelMapping stored = back;
        stored.classes[1].second.push_back("sandal");
        QCOMPARE(again.loadMapping(stored), QStringList{QStringLiteral("sandal")});
        QCOMPARE(again.target(1), QStringLiteral("tops"));
        QCOMPARE(again.target(3), QStringLiteral("shoes"));
        // identityMapping is where a fresh editor starts: the same as setSource's rows.
        const data::LabelMapping identity = data::identityMapping(fine, "copy");
        MappingModel fresh;
        fresh.setSource(fine);
        QCOMPARE(fresh.mapping(QStringLiteral("copy")).toJson(), identity.toJson());
    }

    void mappingEditorDerivesAndRederives()
    {
        openProject(QStringLiteral("derive.setscope"));
        // Held here: deriving a set replaces the session's dataset, and `fine` must outlive that.
        const std::shared_ptr<const data::Dataset> before = m_session->dataset();
        const data::LabelSet& fine = before->requireLabelSet("fine");
        QCOMPARE(fine.numClasses(), 8);
        {
            gui::MappingEditorDialog d(*m_labels, m_session->dataset(), QStringLiteral("pairs"));
            QCOMPARE(d.source(), QStringLiteral("fine"));
            QCOMPARE(d.model()->rowCount(), 8);
            QVERIFY(d.problem().isEmpty());
            for (int r = 0; r < 8; ++r)
                d.model()->setTarget(r, QStringLiteral("p%1").arg(r / 2));
            QVERIFY(d.mappingJson().contains(QStringLiteral("\"p3\"")));
            d.accept();
            QCOMPARE(d.result(), int(QDialog::Accepted));
        }
        const data::LabelSet* pairs = m_session->dataset()->labelSet("pairs");
        QVERIFY(pairs);
        QCOMPARE(pairs->numClasses(), 4);
        for (std::size_t i = 0; i < fine.labels.size(); ++i)
            QCOMPARE(pairs->labels[i], fine.labels[i] < 0 ? -1 : fine.labels[i] / 2);
        QCOMPARE(m_labels->editedLabelSet(), QStringLiteral("pairs"));
        QVERIFY(!m_labels->canUndo()); // created, not an edit
        QVERIFY(m_labels->storedMapping(QStringLiteral("pairs")).contains(QStringLiteral("p0")));

        // Re-opened: the stored mapping is preloaded; moving one class is one undoable edit.
        {
            gui::MappingEditorDialog d(*m_labels, m_session->dataset(), QStringLiteral("pairs"));
            QCOMPARE(d.model()->target(5), QStringLiteral("p2"));
            QCOMPARE(d.model()->target(7), QStringLiteral("p3"));
            d.model()->setTarget(7, QStringLiteral("p0"));
            d.accept();
            QCOMPARE(d.result(), int(QDialog::Accepted));
        }
        QVERIFY(m_labels->canUndo());
        QVERIFY2(m_labels->undoText().contains(QStringLiteral("derived from 'fine'")), qPrintable(m_labels->undoText()));
        const data::LabelSet& rederived = m_session->dataset()->requireLabelSet("pairs");
        for (std::size_t i = 0; i < fine.labels.size(); ++i)
            if (fine.labels[i] == 7)
                QCOMPARE(rederived.labels[i], 0);
        QVERIFY(m_labels->undo());
        for (std::size_t i = 0; i < fine.labels.size(); ++i)
            if (fine.labels[i] == 7)
                QCOMPARE(m_session->dataset()->requireLabelSet("pairs").labels[i], 3);

        // A refused mapping keeps the dialog open with the reason.
        gui::MappingEditorDialog bad(*m_labels, m_session->dataset(), QStringLiteral("fine"));
        QVERIFY(!bad.problem().isEmpty());
        QVERIFY(bad.mappingJson().isEmpty());
    }

    void retrainConfig()
    {
        train::TrainerConfig base;
        base.model = "deepsets";
        base.embeddingDim = 32;
        base.resumeFrom = "/x/step-1.pt";
        base.epochs = 4;
        train::TrainerConfig model;
        model.model = "mlp";
        model.embeddingDim = 8;
        model.modelOptions = {{"hidden", "16"}};
        const auto c = LabelController::retrainConfig(base, "mine", "/runs/best.pt", &model);
        QCOMPARE(c.labelSet, std::string("mine"));
        QCOMPARE(c.initFrom, std::string("/runs/best.pt"));
        QVERIFY(c.resumeFrom.empty()); // never a resume
        QCOMPARE(c.model, std::string("mlp"));
        QCOMPARE(c.embeddingDim, 8);
        QCOMPARE(c.modelOptions, model.modelOptions);
        QCOMPARE(c.epochs, 4);
        const auto fresh = LabelController::retrainConfig(base, "mine", "", &model);
        QVERIFY(fresh.initFrom.empty());
        QCOMPARE(fresh.model, std::string("deepsets")); // the panel's model when starting fresh
    }
};

QTEST_MAIN(TestLabels)
#include "tst_Labels.moc"
