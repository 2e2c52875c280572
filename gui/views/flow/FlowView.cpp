// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/flow/FlowView.h"

#include "core/data/Dataset.h"
#include "core/job/TaskJob.h"
#include "core/workspace/AugmentPreview.h"
#include "core/workspace/ItemText.h"
#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"
#include "gui/views/export/Svg.h"
#include "gui/views/flow/FlowCanvas.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace setscope::gui {

namespace {
/// The flow and how its second set was chosen.
struct FlowOutcome {
    workspace::SetFlow flow;
    std::string partnerHow;
};
} // namespace

FlowView::FlowView(Session* session, SelectionModel* selection, QWidget* parent)
    : ExplorerView(session, selection, parent)
{
    m_ground = new QComboBox;
    for (auto g : {ot::GroundDistance::Euclidean, ot::GroundDistance::SquaredEuclidean, ot::GroundDistance::Cosine})
        m_ground->addItem(QString::fromLatin1(ot::groundDistanceName(g)), static_cast<int>(g));
    m_ground->setToolTip(tr("Ground distance between elements"));
    m_summary = new QLabel(tr("Click an item on the map; Ctrl-click a second one to compare the two."));
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_canvas = new FlowCanvas;
    m_canvas->setObjectName(QStringLiteral("flowCanvas"));
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_ground, 0, Qt::AlignTop);
    auto* lay = new QVBoxLayout(this);
    lay->addLayout(top);
    lay->addWidget(m_canvas, 1);
    lay->addWidget(statusLabel());
    connect(m_ground, &QComboBox::currentIndexChanged, this, [this] {
        if (m_a >= 0)
            showFlow(m_a, m_b);
    });
    if (selection)
        connect(selection, &SelectionModel::changed, this, [this] {
            // A second item selected beside the current one: compare the two.
            const std::int64_t cur = this->selection()->current();
            const std::int64_t other = selectedPartner(cur);
            if (cur >= 0 && other >= 0 && (cur != m_a || other != m_b) && isVisible())
                showFlow(cur, other);
        });
}

FlowView::~FlowView() = default;

void FlowView::onDatasetChanged()
{
    m_a = m_b = -1;
    m_canvas->setFlow(std::nullopt);
    m_summary->setText(tr("Click an item on the map; Ctrl-click a second one to compare the two."));
    setStatus({});
}

void FlowView::onCurrentChanged(std::int64_t item)
{
    const std::int64_t other = selectedPartner(item);
    // A Ctrl-click selects and makes current at once: changed() has already asked for this pair.
    if (item >= 0 && isVisible() && !(item == m_a && other >= 0 && other == m_b))
        showFlow(item, other);
}

std::int64_t FlowView::selectedPartner(std::int64_t a) const
{
    if (!selection() || a < 0 || !selection()->contains(a))
        return -1;
    for (const std::int64_t i : selection()->items())
        if (i != a)
            return i;
    return -1;
}

bool FlowView::showFlow(std::int64_t a, std::int64_t b)
{
    const auto ds = dataset();
    if (!ds) {
        setStatus(tr("Open a dataset first."));
        return false;
    }
    if (a < 0 || static_cast<std::size_t>(a) >= ds->size() || (b >= 0 && static_cast<std::size_t>(b) >= ds->size())) {
        setStatus(tr("Pick an item: click one on the map."));
        return false;
    }
    m_a = a;
    m_b = b;
    const auto ground = static_cast<ot::GroundDistance>(m_ground->currentData().toInt());
    auto job = std::make_unique<job::TaskJob<FlowOutcome>>(
        "EMD flow of item " + std::to_string(a), [ds, a, b, ground](job::JobControl& control, const auto& progress) {
            FlowOutcome out;
            std::int64_t other = b;
            if (other < 0) {
                progress(0, 0, "searching the EMD-nearest item of item " + std::to_string(a));
                const workspace::Partner p = workspace::nearestPartner(*ds, a, &control);
                other = p.item;
                out.partnerHow = p.chosenAs;
            } else {
                out.partnerHow = "selected";
            }
            out.flow = workspace::computeSetFlow(*ds, a, other, ground, &control);
            return out;
        });
    runJob(std::move(job), [this](int status, const QString& detail) {
        auto* j = currentJob<job::TaskJob<FlowOutcome>>();
        const auto out = j ? j->result() : nullptr;
        if (static_cast<job::JobStatus>(status) == job::JobStatus::Finished && out) {
            m_b = out->flow.b;
            m_partnerHow = out->partnerHow;
            m_canvas->setFlow(out->flow);
            showSummary();
            setStatus({});
        } else if (static_cast<job::JobStatus>(status) == job::JobStatus::Failed) {
            setStatus(tr("Flow failed: %1").arg(detail));
        }
    });
    return true;
}

void FlowView::showSummary()
{
    const auto ds = dataset();
    const auto& f = m_canvas->flow();
    if (!f || !ds)
        return;
    auto label = [&](std::int64_t i) {
        return QString::fromStdString(workspace::labelOf(*ds, static_cast<std::size_t>(i), workspace::primaryLabelSet(*ds))).toHtmlEscaped();
    };
    m_summary->setText(tr("<b>Item %1</b> (%2, %3 elements) → <b>item %4</b> (%5, %6 elements; %7)<br>"
                          "EMD <b>%8</b> · work %9 · total flow %10 · %11 arcs · %12 ground distance")
                           .arg(f->a)
                           .arg(label(f->a))
                           .arg(f->xyA.size() / 2)
                           .arg(f->b)
                           .arg(label(f->b))
                           .arg(f->xyB.size() / 2)
                           .arg(QString::fromStdString(m_partnerHow).toHtmlEscaped())
                           .arg(f->emd, 0, 'g', 6)
                           .arg(f->work, 0, 'g', 6)
                           .arg(f->totalFlow, 0, 'g', 6)
                           .arg(f->arcs.size())
                           .arg(QString::fromLatin1(ot::groundDistanceName(f->ground))));
}

QString FlowView::toSvg() const
{
    const auto& f = m_canvas->flow();
    if (!f)
        return {};
    const double w = std::max(420, m_canvas->width()), h = std::max(360, m_canvas->height());
    SvgWriter svg(w, h + 40);
    svg.text(QPointF(10, 18),
             tr("item %1 → item %2 · EMD %3 · total flow %4").arg(f->a).arg(f->b).arg(f->emd, 0, 'g', 6).arg(f->totalFlow, 0, 'g', 6),
             13, Qt::black, QStringLiteral("start"), true);
    m_canvas->drawSvg(svg, QRectF(0, 30, w, h));
    return svg.finish();
}

} // namespace setscope::gui
