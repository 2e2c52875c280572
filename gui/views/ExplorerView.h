// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "gui/session/JobSlot.h"

#include <QPointer>
#include <QString>
#include <QWidget>

#include <cstdint>
#include <memory>

class QLabel;

namespace setscope::data {
class Dataset;
}

namespace setscope::gui {

class SelectionModel;
class Session;

/// What the explorer's views share: the session they read (dataset, live model, project),
/// the window's selection (its current item is what the per-item views show), one job slot
/// whose retired jobs the session reaps, and a status line. A view is a widget the main
/// window hosts in a dock (gui/views/ViewList.h); its logic is testable without the window.
class ExplorerView : public QWidget {
    Q_OBJECT
public:
    ExplorerView(Session* session, SelectionModel* selection, QWidget* parent = nullptr);
    /// Cancels and joins the view's job.
    ~ExplorerView() override;

    Session* session() const;
    SelectionModel* selection() const; ///< may be null
    /// The open dataset (null when none).
    std::shared_ptr<const data::Dataset> dataset() const;

    /// The view as SVG (a standalone document), or "" when it has no vector form (then it is
    /// exported as PNG only).
    virtual QString toSvg() const { return {}; }
    /// True while the view's job runs.
    bool busy() const { return m_slot.running(); }
    /// The status line's text (what the view is doing or why it shows nothing).
    QString statusText() const;

Q_SIGNALS:
    /// The view's job ended (`status` a job::JobStatus) and what it shows is up to date.
    void jobEnded(int status);

protected:
    /// A new dataset is open (or none): drop what belonged to the previous one.
    virtual void onDatasetChanged() = 0;
    /// The selection's current item changed (-1: none). Views that follow it work only while
    /// visible; when one becomes visible and shownItem() is not the current item, this is
    /// called again (a hidden tab catches up when raised).
    virtual void onCurrentChanged(std::int64_t item) { Q_UNUSED(item); }
    /// The item the view shows or is working on (-1: none, or a view that shows no item).
    virtual std::int64_t shownItem() const { return -1; }
    void showEvent(QShowEvent* e) override;

    /// Starts `job` in the view's slot (retiring the previous one); `done` runs on the GUI
    /// thread when it ends, with the job still in the slot. Progress goes to the status line.
    template <class J, class Done>
    void runJob(std::unique_ptr<J> job, Done done)
    {
        m_slot.prepare();
        m_slot.on(&QtJobSink::progressReported, this,
                  [this](qint64 d, qint64 t, const QString& what) { showProgress(d, t, what); });
        m_slot.on(&QtJobSink::jobFinished, this, [this, done](int status, const QString& detail) {
            done(status, detail);
            Q_EMIT jobEnded(status);
        });
        m_slot.start(std::move(job));
    }
    /// Cancels the view's job (its late signals are ignored).
    void cancelJob() { m_slot.retire(); }
    template <class J>
    J* currentJob() const
    {
        return m_slot.jobAs<J>();
    }
    void setStatus(const QString& text);
    QLabel* statusLabel() const { return m_status; }

private:
    void showProgress(qint64 done, qint64 total, const QString& what);

    QPointer<Session> m_session;
    QPointer<SelectionModel> m_selection;
    JobSlot m_slot;
    QLabel* m_status = nullptr;
};

} // namespace setscope::gui
