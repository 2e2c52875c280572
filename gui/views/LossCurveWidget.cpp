// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/LossCurveWidget.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

namespace setscope::gui {

namespace {

/// Round tick values covering [lo, hi], about `target` of them.
std::vector<double> niceTicks(double lo, double hi, int target)
{
    std::vector<double> ticks;
    if (!(hi > lo))
        return ticks;
    const double raw = (hi - lo) / std::max(1, target);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double norm = raw / mag;
    const double step = (norm < 1.5 ? 1.0 : norm < 3.0 ? 2.0 : norm < 7.0 ? 5.0 : 10.0) * mag;
    for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
        ticks.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
    return ticks;
}

QString tickLabel(double v)
{
    const double a = std::abs(v);
    if (a >= 10000)
        return QString::number(v / 1000.0, 'f', 0) + QLatin1Char('k');
    if (a >= 100 || a == std::floor(a))
        return QString::number(v, 'f', 0);
    return QString::number(v, 'g', 3);
}

} // namespace

LossCurveWidget::LossCurveWidget(QWidget* parent)
    : QWidget(parent)
{
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("Training loss per step (line: mean per pixel column; band: min to max). Dashed: epoch ends."));
}

void LossCurveWidget::addLoss(qint64 step, double loss)
{
    if (!std::isfinite(loss))
        return;
    m_steps.push_back(step);
    m_losses.push_back(loss);
    update();
}

void LossCurveWidget::addEpochMarker(qint64 step, int epoch)
{
    m_epochs.emplace_back(step, epoch);
    update();
}

void LossCurveWidget::setTotalSteps(qint64 total)
{
    m_totalSteps = total;
    update();
}

void LossCurveWidget::clear()
{
    m_steps.clear();
    m_losses.clear();
    m_epochs.clear();
    m_totalSteps = 0;
    update();
}

void LossCurveWidget::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics fm = p.fontMetrics();
    const QColor text = palette().color(QPalette::Text);
    const QColor faint = palette().color(QPalette::Mid);

    const int left = fm.horizontalAdvance(QStringLiteral("0.000")) + 10;
    const int bottom = fm.height() + 8;
    const QRect plot = rect().adjusted(left, 8, -10, -bottom);
    if (plot.width() < 20 || plot.height() < 20)
        return;

    if (m_steps.empty()) {
        p.setPen(faint);
        p.drawRect(plot);
        p.setPen(text);
        p.drawText(plot, Qt::AlignCenter, tr("loss per step appears here during training"));
        return;
    }

    // Axis ranges: x from 0 to the run's length, y from 0 (losses are non-negative) to the max.
    const double x1 = static_cast<double>(std::max<qint64>({m_totalSteps, m_steps.back(), 1}));
    double yMax = *std::max_element(m_losses.begin(), m_losses.end());
    double yMin = std::min(0.0, *std::min_element(m_losses.begin(), m_losses.end()));
    if (!(yMax > yMin))
        yMax = yMin + 1.0;
    yMax += (yMax - yMin) * 0.05;
    auto px = [&](double step) { return plot.left() + step / x1 * plot.width(); };
    auto py = [&](double loss) { return plot.bottom() - (loss - yMin) / (yMax - yMin) * plot.height(); };

    // Grid and tick labels.
    p.setPen(QPen(faint, 0));
    for (double t : niceTicks(yMin, yMax, std::max(2, plot.height() / 35))) {
        const double y = py(t);
        p.setPen(QPen(faint, 0, Qt::DotLine));
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.setPen(text);
        p.drawText(QRectF(0, y - fm.height() / 2.0, left - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   tickLabel(t));
    }
    for (double t : niceTicks(0.0, x1, std::max(2, plot.width() / 80))) {
        const double x = px(t);
        p.setPen(QPen(faint, 0));
        p.drawLine(QPointF(x, plot.bottom()), QPointF(x, plot.bottom() + 3));
        p.setPen(text);
        p.drawText(QRectF(x - 40, plot.bottom() + 4, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop, tickLabel(t));
    }
    p.setPen(QPen(faint, 0));
    p.drawRect(plot);

    // Epoch ends.
    for (const auto& [step, epoch] : m_epochs) {
        const double x = px(static_cast<double>(step));
        p.setPen(QPen(QColor(150, 150, 160), 0, Qt::DashLine));
        p.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
        p.setPen(text);
        const QString label = tr("e%1").arg(epoch);
        const int lw = fm.horizontalAdvance(label);
        // Right of the line, or left of it when it would leave the plot.
        const double lx = x + 3 + lw > plot.right() ? x - 3 - lw : x + 3;
        p.drawText(QPointF(lx, plot.bottom() - 3), label);
    }

    // Decimate: one bucket per pixel column.
    const int columns = std::max(1, plot.width());
    struct Bucket {
        double lo = std::numeric_limits<double>::max(), hi = -std::numeric_limits<double>::max(), sum = 0;
        int n = 0;
    };
    std::vector<Bucket> buckets(static_cast<std::size_t>(columns));
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
        const int c = std::clamp(static_cast<int>(static_cast<double>(m_steps[i]) / x1 * columns), 0, columns - 1);
        Bucket& b = buckets[static_cast<std::size_t>(c)];
        b.lo = std::min(b.lo, m_losses[i]);
        b.hi = std::max(b.hi, m_losses[i]);
        b.sum += m_losses[i];
        ++b.n;
    }
    QPainterPath band, line;
    std::vector<QPointF> upper, lower;
    for (int c = 0; c < columns; ++c) {
        const Bucket& b = buckets[static_cast<std::size_t>(c)];
        if (!b.n)
            continue;
        const double x = plot.left() + c + 0.5;
        const QPointF mean(x, py(b.sum / b.n));
        if (upper.empty()) // (QPainterPath::isEmpty() is still true after a lone moveTo)
            line.moveTo(mean);
        else
            line.lineTo(mean);
        upper.emplace_back(x, py(b.hi));
        lower.emplace_back(x, py(b.lo));
    }
    if (upper.size() > 1) {
        band.moveTo(upper.front());
        for (const QPointF& q : upper)
            band.lineTo(q);
        for (auto it = lower.rbegin(); it != lower.rend(); ++it)
            band.lineTo(*it);
        band.closeSubpath();
        p.fillPath(band, QColor(78, 121, 167, 70));
    }
    p.setPen(QPen(QColor(58, 100, 150), 2.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    p.setBrush(Qt::NoBrush);
    if (upper.size() == 1)
        p.drawEllipse(line.currentPosition(), 2.0, 2.0);
    else
        p.drawPath(line);

    p.setPen(text);
    p.drawText(plot.adjusted(4, 2, -4, -2), Qt::AlignRight | Qt::AlignTop,
               tr("loss %1 at step %2").arg(m_losses.back(), 0, 'f', 4).arg(m_steps.back()));
}

} // namespace setscope::gui
