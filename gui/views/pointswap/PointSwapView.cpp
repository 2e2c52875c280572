// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/pointswap/PointSwapView.h"

#include "core/data/Dataset.h"
#include "core/workspace/ItemText.h"
#include "core/workspace/SetFlow.h"
#include "core/workspace/WorkspaceJobs.h"
#include "gui/session/SelectionModel.h"
#include "gui/session/Session.h"
#include "gui/views/export/Svg.h"
#include "gui/views/pointswap/SetGlyph.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <cmath>
#include <set>

namespace setscope::gui {

namespace {

const QColor kItem(0x4c, 0x72, 0xb0);
const QColor kChanged(0xdd, 0x84, 0x52);
const QColor kDropped(0xb0, 0xb0, 0xb0);

QString methodValueName(workspace::AugmentMethod m)
{
    switch (m) {
    case workspace::AugmentMethod::PointSwap: return QStringLiteral("ω");
    case workspace::AugmentMethod::PointDrop: return QStringLiteral("p");
    case workspace::AugmentMethod::PointMixup: return QStringLiteral("λ");
    }
    return {};
}

} // namespace

PointSwapView::PointSwapView(Session* session, SelectionModel* selection, QWidget* parent)
    : ExplorerView(session, selection, parent)
{
    m_header = new QLabel(tr("Click an item on the map to augment it."));
    m_header->setWordWrap(true);
    m_partnerLabel = new QLabel;
    m_partnerLabel->setWordWrap(true);
    m_method = new QComboBox;
    m_method->addItem(tr("PointSwap"), static_cast<int>(workspace::AugmentMethod::PointSwap));
    m_method->addItem(tr("PointDrop"), static_cast<int>(workspace::AugmentMethod::PointDrop));
    m_method->addItem(tr("PointMixup"), static_cast<int>(workspace::AugmentMethod::PointMixup));
    m_variant = new QComboBox;
    m_variant->addItem(tr("EMD-nearest, along the flow (PointSwap)"), 0);
    m_variant->addItem(tr("(1) random partner, random substitute"), 1);
    m_variant->addItem(tr("(2) random partner, along the flow"), 2);
    m_variant->addItem(tr("(3) EMD-nearest, random substitute"), 3);
    m_variant->setToolTip(tr("Seed 001 Table 11: PointSwap and its ablations"));
    m_slider = new QSlider(Qt::Horizontal);
    m_slider->setRange(0, 100);
    m_slider->setValue(50);
    m_slider->setObjectName(QStringLiteral("valueSlider"));
    m_valueLabel = new QLabel;
    m_valueLabel->setMinimumWidth(60);
    m_seed = new QSpinBox;
    m_seed->setRange(1, 1000000);
    m_seed->setPrefix(tr("seed "));
    m_resample = new QPushButton(tr("Re-sample"));
    m_table = new QTableWidget(0, 5);
    m_table->setObjectName(QStringLiteral("changes"));
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_document = new QTextBrowser;
    m_document->setObjectName(QStringLiteral("document"));
    m_glyph = new SetGlyph;
    m_glyph->setObjectName(QStringLiteral("glyph"));

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_method);
    controls->addWidget(m_variant, 1);
    auto* valueRow = new QHBoxLayout;
    valueRow->addWidget(m_valueLabel);
    valueRow->addWidget(m_slider, 1);
    valueRow->addWidget(m_seed);
    valueRow->addWidget(m_resample);
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_table);
    split->addWidget(m_document);
    split->addWidget(m_glyph);
    auto* lay = new QVBoxLayout(this);
    lay->addWidget(m_header);
    lay->addWidget(m_partnerLabel);
    lay->addLayout(controls);
    lay->addLayout(valueRow);
    lay->addWidget(split, 1);
    lay->addWidget(statusLabel());

    auto again = [this] {
        if (m_item >= 0)
            augment(m_item);
    };
    connect(m_method, &QComboBox::currentIndexChanged, this, [this, again] {
        m_variant->setEnabled(m_method->currentIndex() == 0);
        updateValueLabel();
        again();
    });
    connect(m_variant, &QComboBox::currentIndexChanged, this, again);
    connect(m_slider, &QSlider::valueChanged, this, [this, again] {
        updateValueLabel();
        again();
    });
    connect(m_seed, &QSpinBox::valueChanged, this, again);
    connect(m_resample, &QPushButton::clicked, this, [this] { m_seed->setValue(m_seed->value() + 1); });
    updateValueLabel();
    onDatasetChanged();
}

PointSwapView::~PointSwapView() = default;

void PointSwapView::setMethod(workspace::AugmentMethod m) { m_method->setCurrentIndex(static_cast<int>(m)); }

void PointSwapView::setValue(double v) { m_slider->setValue(static_cast<int>(std::lround(v * 100.0))); }

double PointSwapView::value() const { return m_slider->value() / 100.0; }

void PointSwapView::updateValueLabel()
{
    const auto m = static_cast<workspace::AugmentMethod>(m_method->currentData().toInt());
    m_valueLabel->setText(QStringLiteral("%1 = %2").arg(methodValueName(m)).arg(value(), 0, 'f', 2));
}

void PointSwapView::onDatasetChanged()
{
    m_item = -1;
    m_partners.clear();
    m_preview.reset();
    m_table->setRowCount(0);
    m_document->clear();
    m_glyph->setPoints({});
    m_header->setText(tr("Click an item on the map to augment it."));
    m_partnerLabel->clear();
    const auto ds = dataset();
    const bool words = ds && ds->hasElementText();
    m_document->setVisible(words);
    m_glyph->setVisible(!words);
    setStatus({});
}

void PointSwapView::onCurrentChanged(std::int64_t item)
{
    if (item >= 0 && isVisible())
        augment(item);
}

workspace::AugmentRequest PointSwapView::request() const
{
    workspace::AugmentRequest r;
    r.item = m_item;
    r.method = static_cast<workspace::AugmentMethod>(m_method->currentData().toInt());
    r.variant = m_variant->currentData().toInt();
    r.omega = r.p = r.lambda = value();
    r.seed = static_cast<std::uint64_t>(m_seed->value());
    return r;
}

bool PointSwapView::augment(std::int64_t item)
{
    const auto ds = dataset();
    if (!ds) {
        setStatus(tr("Open a dataset first."));
        return false;
    }
    if (item < 0 || static_cast<std::size_t>(item) >= ds->size()) {
        setStatus(tr("Pick an item: click one on the map."));
        return false;
    }
    if (item != m_item) {
        m_preview.reset();
        m_table->setRowCount(0);
    }
    m_item = item;
    const workspace::AugmentRequest req = request();
    try {
        req.validate();
    } catch (const std::exception& e) {
        setStatus(QString::fromUtf8(e.what()));
        return false;
    }
    const auto it = m_partners.find(item);
    const workspace::Partner partner = it != m_partners.end() ? it->second : workspace::Partner{};
    m_header->setText(tr("<b>Item %1</b> · %2 · %3 elements")
                          .arg(item)
                          .arg(QString::fromStdString(workspace::labelOf(*ds, static_cast<std::size_t>(item), workspace::primaryLabelSet(*ds)))
                                   .toHtmlEscaped())
                          .arg(ds->setSize(static_cast<std::size_t>(item))));
    runJob(workspace::makeAugmentJob(ds, req, partner, nullptr), [this, req](int status, const QString& detail) {
        auto* job = currentJob<job::TaskJob<workspace::AugmentPreview>>();
        const auto out = job ? job->result() : nullptr;
        if (static_cast<job::JobStatus>(status) == job::JobStatus::Finished && out) {
            const bool randomPartner = req.method == workspace::AugmentMethod::PointSwap && (req.variant == 1 || req.variant == 2);
            if (out->partner.item >= 0 && !randomPartner)
                m_partners[req.item] = out->partner;
            m_preview = *out;
            showPreview();
            setStatus({});
        } else if (static_cast<job::JobStatus>(status) == job::JobStatus::Failed) {
            setStatus(tr("Augmentation failed: %1").arg(detail));
        }
    });
    return true;
}

void PointSwapView::showPreview()
{
    const auto ds = dataset();
    if (!m_preview || !ds)
        return;
    const workspace::AugmentPreview& pv = *m_preview;
    const auto method = pv.request.method;
    if (pv.partner.item >= 0)
        m_partnerLabel->setText(
            tr("<b>Partner:</b> item %1 · %2 · EMD %3 — %4")
                .arg(pv.partner.item)
                .arg(QString::fromStdString(workspace::labelOf(*ds, static_cast<std::size_t>(pv.partner.item), workspace::primaryLabelSet(*ds)))
                         .toHtmlEscaped())
                .arg(pv.partner.emd, 0, 'g', 5)
                .arg(QString::fromStdString(pv.partner.chosenAs).toHtmlEscaped()));
    else
        m_partnerLabel->setText(tr("<b>Partner:</b> none (PointDrop borrows from no other set)"));

    QStringList headers{tr("element"), tr("original")};
    switch (method) {
    case workspace::AugmentMethod::PointSwap: headers << tr("→ substitute") << tr("partner element") << tr("flow"); break;
    case workspace::AugmentMethod::PointDrop: headers << tr("") << tr("") << tr("weight"); break;
    case workspace::AugmentMethod::PointMixup:
        headers << tr("+ partner element") << tr("flow") << (ds->hasElementText() ? tr("nearest word to the mix") : tr("mix"));
        break;
    }
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(static_cast<int>(pv.rows.size()));
    for (int r = 0; r < static_cast<int>(pv.rows.size()); ++r) {
        const workspace::ChangeRow& row = pv.rows[static_cast<std::size_t>(r)];
        QStringList cells{QString::number(row.change.element), QString::fromStdString(row.original)};
        switch (method) {
        case workspace::AugmentMethod::PointSwap:
            cells << QString::fromStdString(row.substitute) << QString::number(row.change.partnerElement)
                  << QString::number(row.change.flow, 'g', 5);
            break;
        case workspace::AugmentMethod::PointDrop: cells << QString() << QString() << QString::number(row.weight, 'g', 5); break;
        case workspace::AugmentMethod::PointMixup:
            cells << QString::fromStdString(row.substitute) << QString::number(row.change.flow, 'g', 5)
                  << QString::fromStdString(row.mixed);
            break;
        }
        for (int c = 0; c < cells.size(); ++c)
            m_table->setItem(r, c, new QTableWidgetItem(cells[c]));
    }
    const char* verb = method == workspace::AugmentMethod::PointSwap   ? "swapped"
                       : method == workspace::AugmentMethod::PointDrop ? "dropped"
                                                                       : "mixed";
    setStatus(tr("%1 %2 of %3 elements").arg(QString::fromLatin1(verb)).arg(pv.rows.size()).arg(pv.elements));
    if (ds->hasElementText())
        showDocument();
    else
        showGlyph();
}

void PointSwapView::showDocument()
{
    const auto ds = dataset();
    const workspace::AugmentPreview& pv = *m_preview;
    const auto item = static_cast<std::size_t>(pv.request.item);
    std::map<std::int64_t, const workspace::ChangeRow*> changed;
    for (const workspace::ChangeRow& r : pv.rows)
        changed.emplace(r.change.element, &r); // first row per element (PointMixup may have several)
    auto mark = [](const QString& w, const char* color) {
        return QStringLiteral("<span style=\"background:%1\">%2</span>").arg(QLatin1String(color), w.toHtmlEscaped());
    };
    QString before, after;
    for (std::int64_t e = 0; e < pv.elements; ++e) {
        const QString w = QString::fromStdString(workspace::describeElement(*ds, item, e));
        const auto it = changed.find(e);
        if (it == changed.end()) {
            before += w.toHtmlEscaped() + QLatin1Char(' ');
            after += w.toHtmlEscaped() + QLatin1Char(' ');
            continue;
        }
        switch (pv.request.method) {
        case workspace::AugmentMethod::PointSwap:
            before += mark(w, "#fde0c5") + QLatin1Char(' ');
            after += mark(QString::fromStdString(it->second->substitute), "#fde0c5") + QLatin1Char(' ');
            break;
        case workspace::AugmentMethod::PointDrop:
            before += QStringLiteral("<s style=\"color:#888\">%1</s> ").arg(w.toHtmlEscaped());
            break;
        case workspace::AugmentMethod::PointMixup:
            before += mark(w, "#fde0c5") + QLatin1Char(' ');
            after += mark(QString::fromStdString(it->second->mixed), "#fde0c5") + QLatin1Char(' ');
            break;
        }
    }
    m_document->setHtml(tr("<p><b>Original</b> (changed words highlighted)</p><p>%1</p><p><b>Augmented</b></p><p>%2</p>")
                            .arg(before, after));
}

void PointSwapView::showGlyph()
{
    const auto ds = dataset();
    const workspace::AugmentPreview& pv = *m_preview;
    const auto item = static_cast<std::size_t>(pv.request.item);
    const int d = ds->dim();
    const data::ItemView x = ds->item(item);
    // One projection for the item's elements and the augmented ones.
    std::vector<float> all(x.values, x.values + x.count * static_cast<std::size_t>(d));
    all.insert(all.end(), pv.augmented.points.begin(), pv.augmented.points.end());
    const std::int64_t n = static_cast<std::int64_t>(x.count) + pv.augmented.n;
    const std::vector<float> xy = workspace::principalPlane(all, n, d);
    std::set<std::int64_t> changedOut, changedIn;
    for (const workspace::ChangeRow& r : pv.rows) {
        changedIn.insert(r.change.element);
        if (r.change.output >= 0)
            changedOut.insert(r.change.output);
    }
    std::vector<SetGlyph::Point> pts;
    for (std::size_t e = 0; e < x.count; ++e) {
        const bool dropped = pv.request.method == workspace::AugmentMethod::PointDrop && changedIn.count(static_cast<std::int64_t>(e));
        if (changedIn.count(static_cast<std::int64_t>(e)) && !dropped)
            continue; // drawn as its replacement below
        pts.push_back({xy[2 * e], xy[2 * e + 1], x.weights[e], dropped ? kDropped : kItem, dropped});
    }
    for (const std::int64_t o : changedOut) {
        const std::size_t r = x.count + static_cast<std::size_t>(o);
        pts.push_back({xy[2 * r], xy[2 * r + 1], pv.augmented.weights[static_cast<std::size_t>(o)], kChanged, true});
    }
    m_glyph->setPoints(std::move(pts), tr("blue: kept · orange: new elements · grey: dropped"));
}

QString PointSwapView::toSvg() const
{
    const auto ds = dataset();
    if (!m_preview || !ds)
        return {};
    std::vector<QStringList> rows;
    for (int r = 0; r < m_table->rowCount(); ++r) {
        QStringList cells;
        for (int c = 0; c < m_table->columnCount(); ++c)
            cells << (m_table->item(r, c) ? m_table->item(r, c)->text() : QString());
        rows.push_back(cells);
    }
    QStringList headers;
    for (int c = 0; c < m_table->columnCount(); ++c)
        headers << m_table->horizontalHeaderItem(c)->text();
    const double tableH = 40 + 18.0 * static_cast<double>(rows.size() + 2);
    const bool glyph = !ds->hasElementText();
    SvgWriter svg(720, tableH + (glyph ? 280 : 10));
    svg.text(QPointF(10, 20), m_header->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))), 14, Qt::black,
             QStringLiteral("start"), true);
    svg.table(QPointF(10, 32), m_partnerLabel->text().remove(QRegularExpression(QStringLiteral("<[^>]*>"))), headers, rows);
    if (glyph)
        m_glyph->drawSvg(svg, QRectF(10, tableH, 300, 260));
    return svg.finish();
}

} // namespace setscope::gui
