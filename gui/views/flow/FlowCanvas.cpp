// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/flow/FlowCanvas.h"

#include "gui/views/export/Svg.h"

#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace setscope::gui {

namespace {
const QColor kSetColor[2] = {QColor(0x4c, 0x72, 0xb0), QColor(0xdd, 0x84, 0x52)};
const QColor kFlow(0x55, 0x55, 0x55);
} // namespace

FlowCanvas::FlowCanvas(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumSize(240, 200);
}

void FlowCanvas::setFlow(std::optional<workspace::SetFlow> flow)
{
    m_flow = std::move(flow);
    m_hovered = {};
    m_minX = m_minY = 0;
    m_maxX = m_maxY = 1;
    m_maxWeight = m_maxAmount = 1;
    if (m_flow) {
        std::vector<float> xs, ys;
        for (const auto* xy : {&m_flow->xyA, &m_flow->xyB})
            for (std::size_t i = 0; i + 1 < xy->size(); i += 2) {
                xs.push_back((*xy)[i]);
                ys.push_back((*xy)[i + 1]);
            }
        if (!xs.empty()) {
            m_minX = *std::min_element(xs.begin(), xs.end());
            m_maxX = *std::max_element(xs.begin(), xs.end());
            m_minY = *std::min_element(ys.begin(), ys.end());
            m_maxY = *std::max_element(ys.begin(), ys.end());
        }
        double w = 0;
        for (const auto* ws : {&m_flow->weightsA, &m_flow->weightsB})
            for (float v : *ws)
                w = std::max(w, static_cast<double>(v));
        m_maxWeight = w > 0 ? w : 1;
        double a = 0;
        for (const workspace::FlowArc& arc : m_flow->arcs)
            a = std::max(a, arc.amount);
        m_maxAmount = a > 0 ? a : 1;
    }
    update();
}

QRectF FlowCanvas::plotBox() const { return QRectF(rect()).adjusted(30, 20, -80, -30); } // room for words on the right

QPointF FlowCanvas::place(float x, float y, const QRectF& box) const
{
    const double w = std::max(1e-9f, m_maxX - m_minX), h = std::max(1e-9f, m_maxY - m_minY);
    const double s = std::min(box.width() / w, box.height() / h);
    const double cx = 0.5 * (m_minX + m_maxX), cy = 0.5 * (m_minY + m_maxY);
    return {box.center().x() + (x - cx) * s, box.center().y() - (y - cy) * s};
}

QPointF FlowCanvas::position(Element e) const
{
    if (!m_flow || !e.valid())
        return {};
    const std::vector<float>& xy = e.set == 0 ? m_flow->xyA : m_flow->xyB;
    const auto i = static_cast<std::size_t>(e.index);
    if (2 * i + 1 >= xy.size())
        return {};
    return place(xy[2 * i], xy[2 * i + 1], plotBox());
}

double FlowCanvas::radius(int set, int index) const
{
    const std::vector<float>& w = set == 0 ? m_flow->weightsA : m_flow->weightsB;
    return 2.5 + 6.0 * std::sqrt(std::max(0.0f, w[static_cast<std::size_t>(index)]) / m_maxWeight);
}

FlowCanvas::Element FlowCanvas::elementAt(QPointF pos) const
{
    if (!m_flow)
        return {};
    Element best;
    double bestD = 8.0 * 8.0; // pixels
    for (int set = 0; set < 2; ++set) {
        const int n = static_cast<int>((set == 0 ? m_flow->xyA : m_flow->xyB).size() / 2);
        for (int i = 0; i < n; ++i) {
            const QPointF d = position({set, i}) - pos;
            const double dd = d.x() * d.x() + d.y() * d.y();
            if (dd < bestD) {
                bestD = dd;
                best = {set, i};
            }
        }
    }
    return best;
}

bool FlowCanvas::arcTouches(const workspace::FlowArc& a, Element e) const
{
    return (e.set == 0 && a.i == e.index) || (e.set == 1 && a.j == e.index);
}

void FlowCanvas::setHovered(Element e)
{
    if (e == m_hovered)
        return;
    m_hovered = e;
    update();
    Q_EMIT hoveredChanged();
}

QStringList FlowCanvas::describe(Element e) const
{
    if (!m_flow || !e.valid())
        return {};
    const auto& names = e.set == 0 ? m_flow->namesA : m_flow->namesB;
    const auto& other = e.set == 0 ? m_flow->namesB : m_flow->namesA;
    QStringList lines{QString::fromStdString(names[static_cast<std::size_t>(e.index)])};
    for (const workspace::FlowArc& a : m_flow->arcs)
        if (arcTouches(a, e))
            lines << tr("%1 %2: %3 (cost %4)")
                         .arg(e.set == 0 ? QStringLiteral("→") : QStringLiteral("←"))
                         .arg(QString::fromStdString(other[static_cast<std::size_t>(e.set == 0 ? a.j : a.i)]))
                         .arg(a.amount, 0, 'g', 4)
                         .arg(a.cost, 0, 'g', 4);
    return lines;
}

std::vector<bool> FlowCanvas::labelled(int set) const
{
    // Words for documents: the heaviest elements of each set, up to kMaxLabels / 2 each.
    const auto& names = set == 0 ? m_flow->namesA : m_flow->namesB;
    const auto& w = set == 0 ? m_flow->weightsA : m_flow->weightsB;
    std::vector<bool> out(names.size(), false);
    if (names.empty() || names.front().empty() || names.front().front() == '(')
        return out; // coordinates, not words
    std::vector<std::size_t> order(names.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return w[a] > w[b]; });
    for (std::size_t k = 0; k < order.size() && k < static_cast<std::size_t>(kMaxLabels / 2); ++k)
        out[order[k]] = true;
    return out;
}

void FlowCanvas::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), Qt::white);
    if (!m_flow) {
        p.setPen(Qt::darkGray);
        p.drawText(rect(), Qt::AlignCenter, tr("No flow yet: click an item on the map"));
        return;
    }
    const bool focus = m_hovered.valid();
    for (const workspace::FlowArc& a : m_flow->arcs) {
        const bool on = focus && arcTouches(a, m_hovered);
        QColor c = on ? QColor(Qt::black) : kFlow;
        c.setAlphaF(focus && !on ? 0.12f : 0.55f);
        p.setPen(QPen(c, 0.5 + 5.5 * a.amount / m_maxAmount, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(position({0, a.i}), position({1, a.j}));
    }
    for (int set = 0; set < 2; ++set) {
        const int n = static_cast<int>((set == 0 ? m_flow->xyA : m_flow->xyB).size() / 2);
        const std::vector<bool> label = labelled(set);
        const auto& names = set == 0 ? m_flow->namesA : m_flow->namesB;
        for (int i = 0; i < n; ++i) {
            const QPointF at = position({set, i});
            const double r = radius(set, i);
            p.setBrush(kSetColor[set]);
            p.setPen(m_hovered == Element{set, i} ? QPen(Qt::black, 2) : QPen(Qt::white, 1));
            p.drawEllipse(at, r, r);
            if (label[static_cast<std::size_t>(i)]) {
                p.setPen(kSetColor[set].darker(140));
                p.drawText(at + QPointF(r + 2, 4), QString::fromStdString(names[static_cast<std::size_t>(i)]));
            }
        }
    }
    p.setPen(Qt::darkGray);
    p.drawText(QRectF(rect()).adjusted(8, 0, -8, -6), Qt::AlignBottom | Qt::AlignLeft,
               tr("blue: item %1 · orange: item %2 · line width: flow · axes: %3")
                   .arg(m_flow->a)
                   .arg(m_flow->b)
                   .arg(m_flow->projection == "PCA"
                            ? tr("PCA of both sets' elements (%1% of the variance)").arg(m_flow->explainedVariance * 100, 0, 'f', 0)
                            : tr("the elements' coordinates")));
}

void FlowCanvas::mouseMoveEvent(QMouseEvent* e)
{
    const Element el = elementAt(e->position());
    setHovered(el);
    if (el.valid())
        QToolTip::showText(e->globalPosition().toPoint(), describe(el).join(QLatin1Char('\n')), this);
    else
        QToolTip::hideText();
}

void FlowCanvas::leaveEvent(QEvent*) { setHovered({}); }

void FlowCanvas::drawSvg(SvgWriter& svg, const QRectF& area) const
{
    if (!m_flow)
        return;
    // Same drawing in `area` (positions scaled from the widget's plot box).
    const QRectF from = plotBox();
    const QRectF to = area.adjusted(30, 20, -80, -30);
    auto map = [&](QPointF p) {
        return QPointF(to.left() + (p.x() - from.left()) * to.width() / std::max(1.0, from.width()),
                       to.top() + (p.y() - from.top()) * to.height() / std::max(1.0, from.height()));
    };
    svg.rect(area, Qt::white, Qt::lightGray, 1);
    for (const workspace::FlowArc& a : m_flow->arcs)
        svg.line(map(position({0, a.i})), map(position({1, a.j})), kFlow, 0.5 + 5.5 * a.amount / m_maxAmount, 0.55);
    for (int set = 0; set < 2; ++set) {
        const int n = static_cast<int>((set == 0 ? m_flow->xyA : m_flow->xyB).size() / 2);
        const std::vector<bool> label = labelled(set);
        const auto& names = set == 0 ? m_flow->namesA : m_flow->namesB;
        for (int i = 0; i < n; ++i) {
            const QPointF at = map(position({set, i}));
            const double r = radius(set, i);
            svg.circle(at, r, kSetColor[set], Qt::white, 1);
            if (label[static_cast<std::size_t>(i)])
                svg.text(at + QPointF(r + 2, 4), QString::fromStdString(names[static_cast<std::size_t>(i)]), 11,
                         kSetColor[set].darker(140));
        }
    }
}

} // namespace setscope::gui
