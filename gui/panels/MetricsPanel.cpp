// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/MetricsPanel.h"

#include "core/data/Dataset.h"
#include "core/train/TrainingSink.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

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
    m_table = new QTableWidget(0, ColumnCount);
    m_table->setObjectName(QStringLiteral("metricsTable"));
    const QStringList headers = {tr("Epoch"), tr("Mean loss"), tr("kNN acc."), tr("R@1"),
                                 tr("R@2"),   tr("R@4"),       tr("R@8"),      tr("Time (s)")};
    m_table->setHorizontalHeaderLabels(headers);
    const QString knnTip = tr("k-nearest-neighbour classification accuracy (k = 10, votes weighted by inverse "
                              "distance): test items classified by their neighbours in the train split");
    const QString recallTip = tr("Recall@K: fraction of test queries with at least one item of the same label "
                                 "among their K nearest neighbours in the test split");
    m_table->horizontalHeaderItem(Knn)->setToolTip(knnTip);
    for (int c : {R1, R2, R4, R8})
        m_table->horizontalHeaderItem(c)->setToolTip(recallTip);
    m_table->horizontalHeaderItem(MeanLoss)->setToolTip(tr("Mean training loss over the epoch's steps"));
    m_table->horizontalHeaderItem(Time)->setToolTip(tr("Wall time since the run started"));
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
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

void MetricsPanel::setDataset(const data::Dataset* dataset)
{
    m_table->setRowCount(0);
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
    m_table->setItem(row, Epoch, cell(baseline ? tr("raw vectors") : QString::number(m.epoch), baseline));
    m_table->setItem(row, MeanLoss, cell(baseline ? QStringLiteral("–") : QString::number(m.meanLoss, 'f', 4)));
    m_table->setItem(row, Knn, cell(score(m.knnAccuracy)));
    const int ks[] = {1, 2, 4, 8};
    for (int j = 0; j < 4; ++j) {
        double v = -1.0;
        for (std::size_t k = 0; k < m.recallK.size() && k < m.recallAtK.size(); ++k)
            if (m.recallK[k] == ks[j])
                v = m.recallAtK[k];
        m_table->setItem(row, R1 + j, cell(score(v)));
    }
    m_table->setItem(row, Time, cell(baseline ? QStringLiteral("–") : QString::number(m.seconds, 'f', 1)));
    if (baseline)
        for (int c = 0; c < ColumnCount; ++c)
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
