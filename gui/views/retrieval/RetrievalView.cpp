// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/retrieval/RetrievalView.h"

#include "core/data/Dataset.h"
#include "core/model/ModelHandle.h"
#include "core/workspace/ItemText.h"
#include "core/workspace/Models.h"
#include "core/workspace/WorkspaceJobs.h"
#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"
#include "gui/views/export/Svg.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace setscope::gui {

namespace {

const QColor kCorrect(0xd9, 0xf2, 0xd9);
const QColor kWrong(0xf8, 0xd7, 0xd7);

/// "0.35 ms", "1.20 s".
QString duration(double s)
{
    if (s < 1e-3)
        return QStringLiteral("%1 µs").arg(s * 1e6, 0, 'f', 1);
    if (s < 1.0)
        return QStringLiteral("%1 ms").arg(s * 1e3, 0, 'f', 2);
    return QStringLiteral("%1 s").arg(s, 0, 'f', 2);
}

QTableWidget* makeTable(const QString& distanceHeader)
{
    auto* t = new QTableWidget(0, 5);
    t->setHorizontalHeaderLabels({QObject::tr("#"), QObject::tr("item"), QObject::tr("label"), distanceHeader,
                                  QObject::tr("")});
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

} // namespace

RetrievalView::RetrievalView(Session* session, SelectionModel* selection, QWidget* parent)
    : ExplorerView(session, selection, parent)
{
    m_header = new QLabel(tr("Click an item on the map to use it as the query."));
    m_header->setWordWrap(true);
    m_modelLabel = new QLabel;
    m_modelLabel->setWordWrap(true);
    auto* checkpoint = new QPushButton(tr("Checkpoint…"));
    checkpoint->setToolTip(tr("Retrieve with a saved checkpoint instead of the live run"));
    m_k = new QSpinBox;
    m_k->setRange(1, 200);
    m_k->setValue(10);
    m_k->setPrefix(tr("K = "));
    m_candidates = new QComboBox;
    m_candidates->addItem(tr("train split"), false);
    m_candidates->addItem(tr("every item"), true);
    m_candidates->setToolTip(tr("Candidates: the train split (every item when there is none) or every item"));
    m_follow = new QCheckBox(tr("Follow"));
    m_follow->setChecked(true);
    m_follow->setToolTip(tr("Retrieve for each item that becomes current (a click on the map)"));
    m_run = new QPushButton(tr("Retrieve"));
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setEnabled(false);

    m_embTable = makeTable(tr("distance"));
    m_embTable->setObjectName(QStringLiteral("embeddingTable"));
    m_emdTable = makeTable(tr("EMD"));
    m_emdTable->setObjectName(QStringLiteral("emdTable"));
    auto* embBox = new QWidget;
    auto* embLay = new QVBoxLayout(embBox);
    embLay->setContentsMargins(0, 0, 0, 0);
    embLay->addWidget(new QLabel(tr("<b>By the learned embedding</b>")));
    embLay->addWidget(m_embTable);
    auto* emdBox = new QWidget;
    auto* emdLay = new QVBoxLayout(emdBox);
    emdLay->setContentsMargins(0, 0, 0, 0);
    emdLay->addWidget(new QLabel(tr("<b>By exact EMD</b>")));
    emdLay->addWidget(m_emdTable);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(embBox);
    split->addWidget(emdBox);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("summary"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* showMap = new QPushButton(tr("Show on map"));
    showMap->setToolTip(tr("Select the query and both lists on the map"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_k);
    controls->addWidget(m_candidates);
    controls->addWidget(m_follow);
    controls->addStretch();
    controls->addWidget(m_run);
    controls->addWidget(m_cancel);
    auto* modelRow = new QHBoxLayout;
    modelRow->addWidget(m_modelLabel, 1);
    modelRow->addWidget(checkpoint);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(m_summary, 1);
    bottom->addWidget(showMap, 0, Qt::AlignTop);
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(m_header);
    lay->addLayout(modelRow);
    lay->addLayout(controls);
    lay->addWidget(split, 1);
    lay->addLayout(bottom);
    lay->addWidget(statusLabel());

    connect(checkpoint, &QPushButton::clicked, this, &RetrievalView::chooseCheckpoint);
    connect(m_run, &QPushButton::clicked, this, [this] {
        retrieve(m_query >= 0 ? m_query : (this->selection() ? this->selection()->current() : -1));
    });
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        cancelJob();
        m_cancel->setEnabled(false);
        setStatus(tr("Cancelled."));
    });
    connect(showMap, &QPushButton::clicked, this, &RetrievalView::showOnMap);
    for (QTableWidget* t : {m_embTable, m_emdTable})
        connect(t, &QTableWidget::cellDoubleClicked, this, [this, t](int row, int) {
            bool ok = false;
            const qlonglong item = t->item(row, 1) ? t->item(row, 1)->text().toLongLong(&ok) : -1;
            if (ok && this->selection())
                this->selection()->select({item}); // makes it current: the view follows
            else if (ok)
                retrieve(item);
        });
    connect(session, &Session::snapshotChanged, this, &RetrievalView::refreshLiveModel);
    connect(session, &Session::trainingFinished, this, &RetrievalView::refreshLiveModel);
    refreshLiveModel();
}

RetrievalView::~RetrievalView() = default;

void RetrievalView::onDatasetChanged()
{
    m_result.reset();
    m_query = -1;
    m_database.reset();
    if (m_checkpointLoaded && m_model && dataset() && !workspace::modelMismatch(*m_model, *dataset()).empty()) {
        m_model.reset();
        m_checkpointLoaded = false;
    }
    m_embTable->setRowCount(0);
    m_emdTable->setRowCount(0);
    m_summary->clear();
    m_cancel->setEnabled(false);
    if (!m_checkpointLoaded)
        setModel(nullptr, {});
    updateHeader();
    setStatus({});
}

void RetrievalView::onCurrentChanged(std::int64_t item)
{
    if (m_follow->isChecked() && item >= 0 && isVisible())
        retrieve(item);
}

void RetrievalView::refreshLiveModel()
{
    if (m_checkpointLoaded)
        return;
    const auto live = session() ? session()->currentModel() : nullptr;
    if (live == m_model)
        return;
    setModel(live, live ? tr("live run, step %1").arg(live->step()) : QString());
}

void RetrievalView::setModel(std::shared_ptr<const model::ModelHandle> model, const QString& what)
{
    const auto ds = dataset();
    if (model && ds) {
        const std::string why = workspace::modelMismatch(*model, *ds);
        if (!why.empty()) {
            setStatus(tr("Cannot use %1: %2").arg(what, QString::fromStdString(why)));
            return;
        }
    }
    if (model != m_model)
        m_database.reset();
    m_model = std::move(model);
    m_modelWhat = what;
    m_modelLabel->setText(m_model ? tr("Model: %1 (%2-d embedding)").arg(what).arg(m_model->dim())
                                  : tr("Model: none yet. Start a training run, or load a checkpoint."));
}

bool RetrievalView::loadCheckpoint(const QString& path)
{
    try {
        auto model = workspace::openModel(path.toStdString(), session()->registry());
        const auto ds = dataset();
        if (ds) {
            const std::string why = workspace::modelMismatch(*model, *ds);
            if (!why.empty()) {
                setStatus(tr("Cannot use %1: %2").arg(path, QString::fromStdString(why)));
                return false;
            }
        }
        m_checkpointLoaded = true;
        setModel(std::move(model), QFileInfo(path).fileName());
        setStatus(tr("Loaded %1").arg(path));
        return true;
    } catch (const std::exception& e) {
        setStatus(tr("Cannot load %1: %2").arg(path, QString::fromUtf8(e.what())));
        return false;
    }
}

void RetrievalView::chooseCheckpoint()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Load a checkpoint"), QString(),
                                                      tr("setscope checkpoints (*.pt)"));
    if (!path.isEmpty())
        loadCheckpoint(path);
}

void RetrievalView::updateHeader()
{
    const auto ds = dataset();
    if (!ds || m_query < 0 || static_cast<std::size_t>(m_query) >= ds->size()) {
        m_header->setText(tr("Click an item on the map to use it as the query."));
        return;
    }
    const auto q = static_cast<std::size_t>(m_query);
    m_header->setText(tr("<b>Query:</b> item %1 · %2 · %3 elements")
                          .arg(m_query)
                          .arg(QString::fromStdString(workspace::labelOf(*ds, q, workspace::primaryLabelSet(*ds))).toHtmlEscaped())
                          .arg(ds->setSize(q)));
}

bool RetrievalView::retrieve(std::int64_t query)
{
    const auto ds = dataset();
    if (!ds) {
        setStatus(tr("Open a dataset first."));
        return false;
    }
    if (query < 0 || static_cast<std::size_t>(query) >= ds->size()) {
        setStatus(tr("Pick a query: click an item on the map."));
        return false;
    }
    m_query = query;
    updateHeader();
    refreshLiveModel();
    if (!m_model) {
        setStatus(tr("No model to embed with: start a training run, or load a checkpoint."));
        return false;
    }
    workspace::RetrievalOptions o;
    o.k = m_k->value();
    o.allCandidates = m_candidates->currentData().toBool();
    o.labelSet = workspace::primaryLabelSet(*ds);
    const auto model = m_model;
    runJob(workspace::makeRetrievalJob(ds, model, m_database, query, o), [this, model](int status, const QString& detail) {
        m_cancel->setEnabled(false);
        auto* job = currentJob<job::TaskJob<workspace::RetrievalOutcome>>();
        const auto out = job ? job->result() : nullptr;
        if (static_cast<job::JobStatus>(status) == job::JobStatus::Finished && out) {
            if (model == m_model)
                m_database = out->database;
            m_result = out->result;
            showResult();
            setStatus(out->databaseSeconds > 0
                          ? tr("Embedded the database (%1 items) in %2 s, once for this model.")
                                .arg(dataset() ? dataset()->size() : 0)
                                .arg(out->databaseSeconds, 0, 'f', 2)
                          : QString());
        } else if (static_cast<job::JobStatus>(status) == job::JobStatus::Failed) {
            setStatus(tr("Retrieval failed: %1").arg(detail));
        }
    });
    m_cancel->setEnabled(true);
    return true;
}

void RetrievalView::fillTable(QTableWidget* table, const std::vector<workspace::RetrievalHit>& hits) const
{
    const auto ds = dataset();
    table->setRowCount(static_cast<int>(hits.size()));
    for (int r = 0; r < static_cast<int>(hits.size()); ++r) {
        const workspace::RetrievalHit& h = hits[static_cast<std::size_t>(r)];
        const QString label = ds ? QString::fromStdString(workspace::labelOf(*ds, static_cast<std::size_t>(h.item),
                                                                            m_result->labelSet))
                                 : QString();
        const QStringList cells{QString::number(r + 1), QString::number(h.item), label,
                                QString::number(h.distance, 'g', 5),
                                QString(h.sameLabel ? QStringLiteral("✓") : QStringLiteral("✗")) +
                                    (h.inBoth ? tr(" · in both") : QString())};
        for (int c = 0; c < cells.size(); ++c) {
            auto* it = new QTableWidgetItem(cells[c]);
            if (m_result->queryLabelled)
                it->setBackground(h.sameLabel ? kCorrect : kWrong);
            table->setItem(r, c, it);
        }
    }
}

void RetrievalView::showResult()
{
    if (!m_result)
        return;
    const workspace::RetrievalResult& r = *m_result;
    fillTable(m_embTable, r.byEmbedding);
    fillTable(m_emdTable, r.byEmd);
    const int k = r.k;
    auto scores = [k](const workspace::RetrievalScore& s) {
        return tr("recall-hit@%1 %2 · recall-class@%1 %3 · precision@%1 %4")
            .arg(k)
            .arg(s.recallHit, 0, 'f', 0)
            .arg(s.recallClass, 0, 'f', 4)
            .arg(s.precision, 0, 'f', 2);
    };
    QString text = tr("%1 candidates (%2) · %3 of %4 in both lists<br>").arg(r.candidates).arg(QString::fromStdString(r.pool)).arg(r.overlap).arg(k);
    if (r.queryLabelled)
        text += tr("<b>Embedding:</b> %1<br><b>Exact EMD:</b> %2<br>").arg(scores(r.embeddingScore), scores(r.emdScore));
    text += tr("<b>Time:</b> embedding %1 (encode %2 + search %3) · exact EMD %4 (%5 exact solves of %6, %7 pruned; "
               "%8 threads) · <b>%9× faster</b> by the embedding")
                .arg(duration(r.embeddingSeconds()), duration(r.encodeSeconds), duration(r.searchSeconds),
                     duration(r.exactSeconds))
                .arg(r.exactStats.exactSolves)
                .arg(r.exactStats.candidates)
                .arg(r.exactStats.prunedByWcd + r.exactStats.prunedByRwmd)
                .arg(r.threads)
                .arg(r.exactSeconds / std::max(r.embeddingSeconds(), 1e-9), 0, 'f', 1);
    m_summary->setText(text);
}

void RetrievalView::showOnMap()
{
    if (!m_result || !selection())
        return;
    std::vector<std::int64_t> items{m_result->query};
    for (const auto& h : m_result->byEmbedding)
        items.push_back(h.item);
    for (const auto& h : m_result->byEmd)
        items.push_back(h.item);
    selection()->select(items, SelectionModel::Mode::Replace);
}

QString RetrievalView::toSvg() const
{
    const auto ds = dataset();
    if (!m_result || !ds)
        return {};
    const workspace::RetrievalResult& r = *m_result;
    auto rows = [&](const std::vector<workspace::RetrievalHit>& hits, std::vector<QColor>& colors) {
        std::vector<QStringList> out;
        for (std::size_t i = 0; i < hits.size(); ++i) {
            const auto& h = hits[i];
            out.push_back({QString::number(i + 1), QString::number(h.item),
                           QString::fromStdString(workspace::labelOf(*ds, static_cast<std::size_t>(h.item), r.labelSet)),
                           QString::number(h.distance, 'g', 5), h.sameLabel ? QStringLiteral("✓") : QStringLiteral("✗")});
            colors.push_back(r.queryLabelled ? (h.sameLabel ? kCorrect : kWrong) : QColor(Qt::transparent));
        }
        return out;
    };
    std::vector<QColor> ce, cx;
    const auto re = rows(r.byEmbedding, ce), rx = rows(r.byEmd, cx);
    const double h = 90 + 18.0 * (static_cast<double>(std::max(re.size(), rx.size())) + 2);
    SvgWriter svg(760, h);
    svg.text(QPointF(10, 20),
             tr("Query: item %1 (%2), K = %3, %4 candidates")
                 .arg(r.query)
                 .arg(QString::fromStdString(workspace::labelOf(*ds, static_cast<std::size_t>(r.query), r.labelSet)))
                 .arg(r.k)
                 .arg(r.candidates),
             14, Qt::black, QStringLiteral("start"), true);
    const QStringList headers{tr("#"), tr("item"), tr("label"), tr("distance"), tr("")};
    svg.table(QPointF(10, 34), tr("By the learned embedding"), headers, re, ce);
    QStringList emdHeaders = headers;
    emdHeaders[3] = tr("EMD");
    svg.table(QPointF(390, 34), tr("By exact EMD"), emdHeaders, rx, cx);
    svg.text(QPointF(10, h - 12),
             tr("embedding %1 · exact EMD %2").arg(duration(r.embeddingSeconds()), duration(r.exactSeconds)), 11);
    return svg.finish();
}

} // namespace setscope::gui
