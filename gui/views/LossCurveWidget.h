// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <QWidget>

#include <cstdint>
#include <vector>

namespace setscope::gui {

/// Training loss against step, drawn with QPainter: the mean per pixel column as a line
/// over a band from the column's minimum to its maximum (so a long run stays readable
/// without drawing every step), dashed lines at epoch ends, axes with round tick values.
/// GUI thread only.
class LossCurveWidget final : public QWidget {
    Q_OBJECT
public:
    explicit LossCurveWidget(QWidget* parent = nullptr);

    /// Points in the order they arrive (steps increase).
    void addLoss(qint64 step, double loss);
    /// Marks the end of `epoch` at `step`.
    void addEpochMarker(qint64 step, int epoch);
    /// The run's total steps, so the x axis does not rescale as it goes (0 = fit the data).
    void setTotalSteps(qint64 total);
    void clear();

    std::size_t pointCount() const { return m_steps.size(); }
    QSize sizeHint() const override { return {320, 160}; }
    QSize minimumSizeHint() const override { return {160, 90}; }

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    std::vector<qint64> m_steps;
    std::vector<double> m_losses;
    std::vector<std::pair<qint64, int>> m_epochs;
    qint64 m_totalSteps = 0;
};

} // namespace setscope::gui
