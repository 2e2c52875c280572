// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/labels/LabelController.h"

#include "core/data/Dataset.h"
#include "core/data/LabelMapping.h"
#include "core/project/LabelSets.h"
#include "core/project/ProjectStore.h"
#include "core/train/TrainingJob.h"
#include "gui/session/Session.h"

#include <algorithm>
#include <exception>

namespace setscope::gui {

namespace {
QString qstr(const std::string& s) { return QString::fromStdString(s); }
void setError(QString* out, const QString& text)
{
    if (out)
        *out = text;
}
} // namespace

LabelController::LabelController(Session* session, QObject* parent)
    : QObject(parent)
    , m_session(session)
{
    // Another dataset or project: the edited set's history belongs to the old one.
    connect(session, &Session::datasetChanged, this, [this] {
        m_labelSet.clear();
        Q_EMIT historyChanged();
    });
}

bool LabelController::canEdit() const { return whyNot().isEmpty(); }

QString LabelController::whyNot() const
{
    if (!m_session->dataset())
        return tr("Open a dataset first");
    if (!m_session->project())
        return tr("Labels are kept in a project file: open or create one (File ▸ Open or create project…)");
    if (m_session->isLoading() || m_session->projectDatasetId() == 0)
        return tr("The dataset is still being opened in the project");
    return {};
}

std::int64_t LabelController::labelSetId(const QString& name) const
{
    if (!canEdit() || name.isEmpty())
        return 0;
    try {
        const auto rec = m_session->project()->findLabelSet(m_session->projectDatasetId(), name.toStdString());
        return rec ? rec->id : 0;
    } catch (const std::exception&) {
        return 0;
    }
}

QStringList LabelController::labelSets() const
{
    QStringList out;
    if (!canEdit())
        return out;
    for (const auto& rec : m_session->project()->labelSets(m_session->projectDatasetId()))
        out << qstr(rec.name);
    return out;
}

QStringList LabelController::classes(const QString& labelSet) const
{
    QStringList out;
    if (const std::int64_t id = labelSetId(labelSet))
        if (const auto rec = m_session->project()->labelSet(id))
            for (const std::string& c : rec->classNames)
                out << qstr(c);
    return out;
}

bool LabelController::refresh(const QString& labelSet)
{
    const bool ok = m_session->refreshLabels(labelSet.toStdString());
    m_labelSet = labelSet;
    Q_EMIT historyChanged();
    return ok;
}

bool LabelController::assign(const std::vector<std::int64_t>& items, const QString& labelSetName,
                             const QString& className, QString* error)
{
    if (!canEdit()) {
        setError(error, whyNot());
        return false;
    }
    const QString setName = labelSetName.trimmed(), cls = className.trimmed();
    if (setName.isEmpty() || cls.isEmpty()) {
        setError(error, tr("Give a label set and a class"));
        return false;
    }
    if (items.empty()) {
        setError(error, tr("Select items on the map first (click, Shift-drag or Alt-drag a lasso)"));
        return false;
    }
    project::ProjectStore& store = *m_session->project();
    const std::int64_t datasetId = m_session->projectDatasetId();
    bool created = false;
    try {
        std::int64_t id = labelSetId(setName);
        if (!id) {
            // A new set starts with every item unlabelled: the assignment below is its first
            // undoable edit, so undo leaves it empty rather than deleting the set.
            const auto n = static_cast<std::size_t>(m_session->dataset()->size());
            id = store.createLabelSet(datasetId, setName.toStdString(), {}, std::vector<std::int32_t>(n, -1));
            created = true;
        }
        const auto rec = store.labelSet(id);
        const auto& names = rec->classNames;
        const auto it = std::find(names.begin(), names.end(), cls.toStdString());
        const std::int32_t label = it != names.end() ? static_cast<std::int32_t>(it - names.begin())
                                                     : store.addClass(id, cls.toStdString());
        const std::vector<std::int32_t> current = store.labels(id);
        std::vector<std::int64_t> sorted = items;
        std::sort(sorted.begin(), sorted.end());
        sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
        std::vector<project::LabelChange> changes;
        for (std::int64_t i : sorted)
            if (i >= 0 && static_cast<std::size_t>(i) < current.size() && current[static_cast<std::size_t>(i)] != label)
                changes.push_back({i, label});
        if (changes.empty()) {
            refresh(setName); // a new set or class was written: show it
            setError(error, tr("All %1 items already belong to '%2'").arg(sorted.size()).arg(cls));
            return false;
        }
        const std::string description = "assign " + std::to_string(changes.size()) + (changes.size() == 1 ? " item" : " items") +
                                        " to '" + cls.toStdString() + "'";
        store.applyEdit(id, changes, description);
    } catch (const std::exception& e) {
        setError(error, QString::fromUtf8(e.what()));
        if (created) // the new set is in the file: show it as it is there
            refresh(setName);
        return false;
    }
    return refresh(setName);
}

bool LabelController::derive(const data::LabelMapping& mapping, QString* error)
{
    if (!canEdit()) {
        setError(error, whyNot());
        return false;
    }
    try {
        const project::DerivedLabelSet d =
            project::deriveLabelSet(*m_session->project(), m_session->projectDatasetId(), *m_session->dataset(), mapping);
        Q_EMIT m_session->message(d.created ? tr("Label set '%1' derived from '%2'")
                                           .arg(qstr(mapping.name), qstr(mapping.source))
                                     : tr("Label set '%1' re-derived from '%2': %3 items changed (Edit ▸ Undo reverts it)")
                                           .arg(qstr(mapping.name), qstr(mapping.source))
                                           .arg(d.changed));
    } catch (const std::exception& e) {
        setError(error, QString::fromUtf8(e.what()));
        return false;
    }
    return refresh(qstr(mapping.name));
}

QString LabelController::storedMapping(const QString& labelSet) const
{
    if (const std::int64_t id = labelSetId(labelSet))
        if (const auto m = m_session->project()->labelMapping(id))
            return qstr(m->mappingJson);
    return {};
}

void LabelController::setEditedLabelSet(const QString& labelSet)
{
    if (labelSet == m_labelSet)
        return;
    m_labelSet = labelSet;
    Q_EMIT historyChanged();
}

bool LabelController::canUndo() const
{
    const std::int64_t id = labelSetId(m_labelSet);
    return id && m_session->project()->canUndo(id);
}

bool LabelController::canRedo() const
{
    const std::int64_t id = labelSetId(m_labelSet);
    return id && m_session->project()->canRedo(id);
}

QString LabelController::undoText() const
{
    const std::int64_t id = labelSetId(m_labelSet);
    if (!id)
        return {};
    const auto h = m_session->project()->history(id);
    for (auto it = h.rbegin(); it != h.rend(); ++it)
        if (!it->undone)
            return qstr(it->description);
    return {};
}

QString LabelController::redoText() const
{
    const std::int64_t id = labelSetId(m_labelSet);
    if (!id)
        return {};
    for (const auto& e : m_session->project()->history(id))
        if (e.undone)
            return qstr(e.description);
    return {};
}

bool LabelController::undo()
{
    const std::int64_t id = labelSetId(m_labelSet);
    try {
        if (!id || !m_session->project()->undo(id))
            return false;
    } catch (const std::exception& e) {
        Q_EMIT m_session->error(QString::fromUtf8(e.what()));
        return false;
    }
    return refresh(m_labelSet);
}

bool LabelController::redo()
{
    const std::int64_t id = labelSetId(m_labelSet);
    try {
        if (!id || !m_session->project()->redo(id))
            return false;
    } catch (const std::exception& e) {
        Q_EMIT m_session->error(QString::fromUtf8(e.what()));
        return false;
    }
    return refresh(m_labelSet);
}

train::TrainerConfig LabelController::retrainConfig(train::TrainerConfig base, const std::string& labelSet,
                                                    const std::string& fromCheckpoint, const train::TrainerConfig* model)
{
    base.labelSet = labelSet;
    base.resumeFrom.clear();
    base.resumeOverrides.clear();
    base.initFrom = fromCheckpoint;
    if (!fromCheckpoint.empty() && model) {
        base.model = model->model;
        base.modelOptions = model->modelOptions;
        base.embeddingDim = model->embeddingDim;
    }
    return base;
}

std::string LabelController::currentCheckpoint() const { return m_session->currentCheckpoint(); }

bool LabelController::retrain(const train::TrainerConfig& base, const QString& labelSet)
{
    const std::string from = currentCheckpoint();
    const train::TrainingJob* job = m_session->trainingJob();
    const train::TrainerConfig cfg =
        retrainConfig(base, labelSet.toStdString(), from, job ? &job->config() : nullptr);
    Q_EMIT m_session->message(from.empty()
                           ? tr("Retraining with '%1' from fresh weights (no checkpoint of a previous run: "
                                "runs write checkpoints when a project is open)")
                                 .arg(labelSet)
                           : tr("Retraining with '%1' from %2").arg(labelSet, qstr(from)));
    return m_session->startTraining(cfg);
}

} // namespace setscope::gui
