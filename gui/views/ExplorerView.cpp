// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/ExplorerView.h"

#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"

#include <QLabel>

namespace setscope::gui {

ExplorerView::ExplorerView(Session* session, SelectionModel* selection, QWidget* parent)
    : QWidget(parent)
    , m_session(session)
    , m_selection(selection)
    , m_slot(session->retiredJobs())
{
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("status"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(session, &Session::datasetChanged, this, [this] {
        cancelJob();
        onDatasetChanged();
    });
    if (selection)
        connect(selection, &SelectionModel::currentChanged, this,
                [this](qint64 item) { onCurrentChanged(static_cast<std::int64_t>(item)); });
}

ExplorerView::~ExplorerView()
{
    if (m_slot.job())
        m_slot.job()->cancel(); // ~JobSlot joins it
}

void ExplorerView::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    // Queued: by then the widget counts as visible for the view's own checks.
    QMetaObject::invokeMethod(
        this,
        [this] {
            if (m_selection && isVisible() && m_selection->current() >= 0 && m_selection->current() != shownItem())
                onCurrentChanged(m_selection->current());
        },
        Qt::QueuedConnection);
}

Session* ExplorerView::session() const { return m_session; }

SelectionModel* ExplorerView::selection() const { return m_selection; }

std::shared_ptr<const data::Dataset> ExplorerView::dataset() const
{
    return m_session ? m_session->dataset() : nullptr;
}

QString ExplorerView::statusText() const { return m_status->text(); }

void ExplorerView::setStatus(const QString& text) { m_status->setText(text); }

void ExplorerView::showProgress(qint64 done, qint64 total, const QString& what)
{
    setStatus(total > 0 ? tr("%1 (%2 of %3)…").arg(what).arg(done).arg(total) : what + QStringLiteral("…"));
}

} // namespace setscope::gui
