// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/MetricsPanel.h"

#include "core/data/Dataset.h"
#include "core/eval/Metrics.h"
#include "core/train/TrainingSink.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <optional>

namespace setscope::gui {

namespace {

QTableWidgetItem* cell(const QString& text, bool number = true)
{
    auto* it = new QTableWidgetItem(text);
    it->setTextAlignment((number ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    return it;
}

QString score(double v) { return v < 0 || !std::isfinite(v) ? QStringLiteral("–") : QString::number(v, 'f', 4); }

} // namespace

MetricsPanel::MetricsPanel(QWidget* parent)
    : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    m_table = new QTableWidget(0, FixedColumns + 1);
    m_table->setObjectName(QStringLiteral("metricsTable"));
    m_table->setHorizontalHeaderLabels({tr("Epoch"), tr("Stage"), tr("Mean loss"), tr("Time (s)")});
    m_table->horizontalHeaderItem(Stage)->setToolTip(tr("The stage of the method the epoch belongs to; \"best (epoch N)\" "
                                                        "is the run's model, the weights of its best validation epoch"));
    m_table->horizontalHeaderItem(MeanLoss)->setToolTip(tr("Mean training loss over the epoch's steps"));
    m_table->horizontalHeaderItem(FixedColumns)->setToolTip(tr("Wall time since the run started"));
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_table->horizontalHeader()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table->horizontalHeader(), &QWidget::customContextMenuRequested, this, &MetricsPanel::showHeaderMenu);
    layout->addWidget(m_table, 1);

    auto* row = new QHBoxLayout;
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("baselineNote"));
    m_baselineButton = new QPushButton(tr("Score raw vectors"));
    m_baselineButton->setObjectName(QStringLiteral("baselineButton"));
    m_baselineButton->setToolTip(tr("kNN accuracy and Recall@K of the raw input vectors: the baseline a learned "
                                    "metric must beat (runs in the background)"));
    row->addWidget(m_note, 1);
    row->addWidget(m_baselineButton);
    layout->addLayout(row);
    connect(m_baselineButton, &QPushButton::clicked, this, &MetricsPanel::baselineRequested);
    setDataset(nullptr);
}

int MetricsPanel::columnOf(const QString& name) const
{
    const int i = m_valueNames.indexOf(name);
    return i < 0 ? -1 : FixedColumns + i;
}

int MetricsPanel::timeColumn() const { return FixedColumns + static_cast<int>(m_valueNames.size()); }

int MetricsPanel::ensureColumn(const std::string& name)
{
    const QString n = QString::fromStdString(name);
    if (const int c = columnOf(n); c >= 0)
        return c;
    const int c = timeColumn();
    m_table->insertColumn(c);
    m_valueNames << n;
    auto* header = new QTableWidgetItem(QString::fromStdString(eval::shortMetricName(name)));
    header->setToolTip(n + QStringLiteral(": ") + QString::fromStdString(eval::describeMetric(name)));
    m_table->setHorizontalHeaderItem(c, header);
    // Shown by default: the scores the papers' tables report; the rest on request.
    const bool hidden = n.startsWith(QLatin1String("precision@")) || n.startsWith(QLatin1String("emd-")) ||
                        n == QLatin1String("padding-share");
    m_table->setColumnHidden(c, hidden);
    for (int r = 0; r < m_table->rowCount(); ++r)
        m_table->setItem(r, c, cell(QStringLiteral("–")));
    return c;
}

void MetricsPanel::showHeaderMenu(const QPoint& at)
{
    QMenu menu(this);
    for (int c = 0; c < m_table->columnCount(); ++c) {
        if (c == Epoch)
            continue;
        QAction* a = menu.addAction(m_table->horizontalHeaderItem(c)->text());
        a->setCheckable(true);
        a->setChecked(!m_table->isColumnHidden(c));
        a->setToolTip(m_table->horizontalHeaderItem(c)->toolTip());
        connect(a, &QAction::toggled, this, [this, c](bool on) { m_table->setColumnHidden(c, !on); });
    }
    menu.exec(m_table->horizontalHeader()->mapToGlobal(at));
}

void MetricsPanel::setDataset(const data::Dataset* dataset)
{
    m_table->setRowCount(0);
    while (!m_valueNames.isEmpty()) {
        m_table->removeColumn(FixedColumns);
        m_valueNames.removeFirst();
    }
    m_hasBaseline = false;
    m_vectorDataset = dataset && dataset->isVectorDataset();
    m_baselineButton->setEnabled(m_vectorDataset);
    if (!dataset)
        m_note->setText(QString());
    else if (!m_vectorDataset)
        m_note->setText(tr("Raw-vector baseline: not defined for sets"));
    else if (dataset->size() <= kAutoBaselineMaxItems)
        m_note->setText(tr("Raw-vector baseline: computing…"));
    else
        m_note->setText(tr("Raw-vector baseline: %1 items, on request").arg(dataset->size()));
    if (m_vectorDataset && dataset->size() <= kAutoBaselineMaxItems)
        Q_EMIT baselineRequested();
}

void MetricsPanel::fillRow(int row, const train::EpochMetrics& m, bool baseline)
{
    for (const auto& [name, value] : m.values)
        ensureColumn(name);
    m_table->setItem(row, Epoch, cell(baseline ? tr("raw vectors") : QString::number(m.epoch), baseline));
    m_table->setItem(row, Stage, cell(baseline || m.stage == "train" ? QString() : QString::fromStdString(m.stage), false));
    m_table->setItem(row, MeanLoss, cell(baseline ? QStringLiteral("–") : QString::number(m.meanLoss, 'f', 4)));
    for (int i = 0; i < m_valueNames.size(); ++i) {
        const std::optional<double> v = m.value(m_valueNames[i].toStdString());
        const bool count = m_valueNames[i].startsWith(QLatin1String("emd-"));
        m_table->setItem(row, FixedColumns + i,
                         cell(!v ? QStringLiteral("–") : count ? QString::number(*v, 'g', 5) : score(*v)));
    }
    m_table->setItem(row, timeColumn(), cell(baseline ? QStringLiteral("–") : QString::number(m.seconds, 'f', 1)));
    if (baseline)
        for (int c = 0; c < m_table->columnCount(); ++c)
            if (QTableWidgetItem* it = m_table->item(row, c)) {
                QFont f = it->font();
                f.setItalic(true);
                it->setFont(f);
            }
}

void MetricsPanel::addEpoch(const train::EpochMetrics& m)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    fillRow(row, m, false);
    m_table->scrollToBottom();
}

void MetricsPanel::setBaseline(const train::EpochMetrics& m)
{
    if (!m_hasBaseline) {
        m_table->insertRow(0);
        m_hasBaseline = true;
    }
    fillRow(0, m, true);
    m_note->setText(tr("Raw-vector baseline: done"));
}

void MetricsPanel::setBaselineRunning(bool running)
{
    m_baselineButton->setEnabled(m_vectorDataset && !running);
    if (running)
        m_note->setText(tr("Raw-vector baseline: computing…"));
}

void MetricsPanel::clearRun() { m_table->setRowCount(m_hasBaseline ? 1 : 0); }

} // namespace setscope::gui
