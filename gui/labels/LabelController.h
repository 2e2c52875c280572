// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/train/TrainerConfig.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <string>
#include <vector>

namespace setscope::data {
struct LabelMapping;
}

namespace setscope::gui {

class Session;

/// The label-and-retrain loop behind the GUI's Labels menu, the map's context menu and
/// Edit ▸ Undo / Redo: assigns selected items to a class, undoes and redoes edits, derives a
/// label set by a mapping, and builds the configuration of a fine-tuning run. Widgets only
/// ask and show; every label write goes through here into the session's project store.
///
/// Durability: each assign / undo / redo / derive is written to the project file before the
/// call returns (ProjectStore: one fsync'd transaction per call); nothing of an edit is held
/// in memory only. The session's dataset is then refreshed (Session::refreshLabels), so the
/// map recolours. GUI thread only; the store calls block (milliseconds for small edits).
class LabelController final : public QObject {
    Q_OBJECT
public:
    /// `session` must outlive the controller.
    explicit LabelController(Session* session, QObject* parent = nullptr);

    /// Whether labels can be written now: a project is open and the dataset is attached to it.
    bool canEdit() const;
    /// Why canEdit() is false ("" when it is true), for a message.
    QString whyNot() const;

    /// Label sets of the open dataset (in the project), and the classes of one.
    QStringList labelSets() const;
    QStringList classes(const QString& labelSet) const;

    /// Assigns `items` (dataset indices) to class `className` of label set `labelSet`,
    /// creating the set (every item unlabelled at first) and the class when they are new,
    /// as ONE undoable edit "assign N items to 'class'" of only the items whose label
    /// changes. False with `error` set when nothing was written for a reason the user can act
    /// on (no project, empty name, no items, every item already has that class).
    bool assign(const std::vector<std::int64_t>& items, const QString& labelSet, const QString& className,
                QString* error = nullptr);

    /// Derives label set mapping.name from mapping.source (project::deriveLabelSet: created,
    /// or re-derived as one undoable edit). Makes it the edited set. False with `error`.
    bool derive(const data::LabelMapping& mapping, QString* error = nullptr);
    /// The mapping stored with `labelSet` (JSON, "" when it was not derived by one).
    QString storedMapping(const QString& labelSet) const;

    /// The label set whose history Undo / Redo act on: the one last edited ("" before).
    QString editedLabelSet() const { return m_labelSet; }
    /// Makes `labelSet` the one Undo / Redo act on (e.g. the label set shown).
    void setEditedLabelSet(const QString& labelSet);
    bool canUndo() const;
    bool canRedo() const;
    /// Descriptions of the edit undo() / redo() would revert / re-apply ("" when none).
    QString undoText() const;
    QString redoText() const;
    bool undo();
    bool redo();

    /// The configuration of a retraining run: `base` (the training panel's settings)
    /// supervised by `labelSet`, starting from the weights of `fromCheckpoint` when it is not
    /// empty (TrainerConfig::initFrom: fresh optimizer and schedule), with the model fields
    /// of `model` (the run whose weights those are) so that the weights fit. Never a resume.
    static train::TrainerConfig retrainConfig(train::TrainerConfig base, const std::string& labelSet,
                                              const std::string& fromCheckpoint, const train::TrainerConfig* model);
    /// The weights a retrain starts from: the current (or last) run's best.pt, else its newest
    /// checkpoint ("" when there is none, e.g. no run yet or no project).
    std::string currentCheckpoint() const;
    /// Starts a fine-tuning run of `base` with `labelSet` from currentCheckpoint() (a fresh
    /// run when there is none; the session's message says so). False (and the session's
    /// error()) when the session refuses it.
    bool retrain(const train::TrainerConfig& base, const QString& labelSet);

Q_SIGNALS:
    /// An edit, undo, redo or derive was written, or the edited set changed: the Undo / Redo
    /// actions' texts and enablement are to be updated.
    void historyChanged();

private:
    std::int64_t labelSetId(const QString& name) const;
    bool refresh(const QString& labelSet);

    Session* m_session;
    QString m_labelSet;
};

} // namespace setscope::gui
