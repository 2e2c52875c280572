// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/map/EmbeddingView.h"
#include "gui/views/map/MapWindow.h"

#include "gui/session/SelectionModel.h"

#include "core/data/Dataset.h"
#include "core/job/TaskJob.h"
#include "core/layout/LayoutJob.h"
#include "gui/imgui/ImGuiQt.h"
#include "gui/views/Palette.h"

#include <imgui.h>

#include <QComboBox>
#include <QDebug>
#include <QFile>
#include <QGuiApplication>
#include <QSaveFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QSignalBlocker>
#include <QKeyEvent>
#include <QLineF>
#include <QMouseEvent>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QSurfaceFormat>
#include <QTimer>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

namespace setscope::gui {

namespace {

constexpr double kHoverSlackPx = 4.0;
constexpr double kClickSlackPx = 4.0; // a press and release closer than this is a click
constexpr double kLassoStepPx = 2.0;  // the lasso gets a vertex every this many pixels
constexpr const char* kFontFile = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

ImVec4 toImVec4(const QColor& c) { return ImVec4(float(c.redF()), float(c.greenF()), float(c.blueF()), 1.0f); }

QRectF windowRect()
{
    const ImVec2 p = ImGui::GetWindowPos();
    const ImVec2 s = ImGui::GetWindowSize();
    return QRectF(p.x, p.y, s.x, s.y);
}

std::uint32_t rgbOf(const QColor& c) { return c.rgb() & 0xffffffu; }

const QString kSetSize = QStringLiteral("set size");

/// Whether `text` contains `needle` (already lower case), ASCII case folding.
bool containsFolded(const std::string& text, const std::string& needle)
{
    if (needle.size() > text.size())
        return false;
    const auto it = std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
        return (a >= 'A' && a <= 'Z' ? char(a - 'A' + 'a') : a) == b;
    });
    return it != text.end();
}

/// The finite range of `v` ({0, 0} when it has no finite value).
std::pair<float, float> finiteRange(const std::vector<float>& v)
{
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (float x : v)
        if (std::isfinite(x)) {
            lo = std::min(lo, x);
            hi = std::max(hi, x);
        }
    return lo <= hi ? std::pair{lo, hi} : std::pair{0.0f, 0.0f};
}

} // namespace

EmbeddingView::EmbeddingView(QWidget* parent)
    : QWidget(parent)
    , m_imgui(std::make_unique<ImGuiQt>())
{
    // The view needs GL 3.3 core whatever the application's default format is.
    m_surface = new MapWindow(this);
    QSurfaceFormat fmt = QSurfaceFormat::defaultFormat();
    if (fmt.majorVersion() < 3 || (fmt.majorVersion() == 3 && fmt.minorVersion() < 3)) {
        fmt.setVersion(3, 3);
        fmt.setProfile(QSurfaceFormat::CoreProfile);
    }
    m_surface->setFormat(fmt);
    m_container = QWidget::createWindowContainer(m_surface, this);
    m_container->setObjectName(QStringLiteral("mapSurface"));
    m_container->setFocusPolicy(Qt::StrongFocus);
    m_container->setMinimumSize(200, 150);
    setFocusPolicy(Qt::StrongFocus);
    m_canvas.camera().setViewport(QSizeF(mapSize()));

    m_settle = new QTimer(this);
    m_settle->setSingleShot(true);
    m_settle->setInterval(kSettleMs);
    connect(m_settle, &QTimer::timeout, this, [this] {
        m_interacting = false;
        requestFrames();
    });

    m_toolBar = new QWidget(this);
    m_toolBar->setObjectName(QStringLiteral("mapToolBar"));
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(m_toolBar);
    column->addWidget(m_container, 1);
    auto* row = new QHBoxLayout(m_toolBar);
    row->setContentsMargins(6, 3, 6, 3);
    row->setSpacing(6);
    m_colorCombo = new QComboBox;
    m_colorCombo->setObjectName(QStringLiteral("colorBy"));
    m_colorCombo->setToolTip(tr("Colour the points by a label set or a numeric column"));
    m_colorCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_sizeCombo = new QComboBox;
    m_sizeCombo->setObjectName(QStringLiteral("sizeBy"));
    m_sizeCombo->setToolTip(tr("Scale the points by a numeric column"));
    m_sizeCombo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    row->addWidget(new QLabel(tr("Colour")));
    row->addWidget(m_colorCombo);
    row->addWidget(new QLabel(tr("Size")));
    row->addWidget(m_sizeCombo);
    m_searchEdit = new QLineEdit;
    m_searchEdit->setObjectName(QStringLiteral("search"));
    m_searchEdit->setPlaceholderText(tr("Search labels and text"));
    m_searchEdit->setClearButtonEnabled(true);
    m_searchEdit->setMinimumWidth(180);
    m_searchEdit->hide();
    m_searchCount = new QLabel;
    m_searchCount->setObjectName(QStringLiteral("searchCount"));
    m_searchCount->hide();
    row->addWidget(m_searchEdit);
    row->addWidget(m_searchCount);
    row->addStretch(1);
    connect(m_searchEdit, &QLineEdit::textChanged, this, &EmbeddingView::runSearch);
    connect(m_searchEdit, &QLineEdit::returnPressed, this, [this] { fitTo(m_searchMatches); });
    auto* find = new QShortcut(QKeySequence::Find, this);
    find->setContext(Qt::WidgetWithChildrenShortcut);
    connect(find, &QShortcut::activated, this, [this] { showSearch(m_searchEdit->text()); });
    auto* close = new QShortcut(QKeySequence(Qt::Key_Escape), m_searchEdit);
    close->setContext(Qt::WidgetShortcut);
    connect(close, &QShortcut::activated, this, [this] {
        m_searchEdit->hide();
        m_searchCount->hide();
        m_container->setFocus(); // back to the map (its window takes the keys)
    });
    connect(m_colorCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0)
            setColorBy(m_colorCombo->itemData(i).toString());
    });
    connect(m_sizeCombo, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0)
            setSizeBy(m_sizeCombo->itemData(i).toString());
    });
    rebuildToolBar();
    // Agreement jobs replaced by a newer layout are cancelled and joined once they end.
    m_reapTimer.setInterval(100);
    connect(&m_reapTimer, &QTimer::timeout, this, [this] {
        m_retired.reap();
        if (m_retired.empty())
            m_reapTimer.stop();
    });
    m_retired.onAdded([this] {
        if (!m_reapTimer.isActive())
            m_reapTimer.start();
    });
}

EmbeddingView::~EmbeddingView()
{
    if (m_agreementJob.job())
        m_agreementJob.job()->cancel(); // the slot joins it
    m_retired.cancelAll();
    // The GL objects go while the surface and its context still exist; then the surface
    // (a child of a child) stops calling into this half-destroyed view.
    if (m_glReady && m_surface->context()) {
        m_surface->makeCurrent();
        cleanupGL();
        m_surface->doneCurrent();
    }
    m_surface->detach();
}

// --- data ------------------------------------------------------------------------------

void EmbeddingView::setDataset(std::shared_ptr<const data::Dataset> dataset)
{
    m_dataset = std::move(dataset);
    m_presenter.setDataset(m_dataset);
    m_columns.clear();
    if (m_dataset) {
        std::vector<float> sizes(m_dataset->size());
        for (std::size_t i = 0; i < sizes.size(); ++i)
            sizes[i] = static_cast<float>(m_dataset->setSize(i));
        m_columns.emplace_back(kSetSize, std::move(sizes));
        if (!m_dataset->labelSets().empty())
            m_columns.emplace_back(QString::fromLatin1(kAgreementColumn),
                                   std::vector<float>(m_dataset->size(), std::numeric_limits<float>::quiet_NaN()));
    }
    invalidateAgreement();
    rebuildToolBar();
    m_searchMatches.clear();
    if (m_searchEdit)
        m_searchCount->clear();
    m_layout.reset();
    m_canvas.clear();
    m_autoFit = true;
    setHovered(-1);
    requestFrames();
}

void EmbeddingView::updateLabels(std::shared_ptr<const data::Dataset> dataset)
{
    if (!dataset || !m_dataset || dataset->size() != m_dataset->size()) {
        setDataset(std::move(dataset));
        return;
    }
    m_dataset = std::move(dataset);
    m_presenter.setDataset(m_dataset);
    const QString agreement = QString::fromLatin1(kAgreementColumn);
    const bool hasAgreement =
        std::any_of(m_columns.begin(), m_columns.end(), [&](const auto& c) { return c.first == agreement; });
    if (!hasAgreement && !m_dataset->labelSets().empty())
        m_columns.emplace_back(agreement, std::vector<float>(m_dataset->size(), std::numeric_limits<float>::quiet_NaN()));
    invalidateAgreement(); // the classes it compares changed
    rebuildToolBar();
    updateAgreement();
    recomputeColors();
    requestFrames();
}

void EmbeddingView::setLayout(std::shared_ptr<const layout::Layout> layout)
{
    if (!layout) {
        setDataset(m_dataset);
        return;
    }
    const std::size_t limit = m_dataset ? m_dataset->size() : 0;
    std::vector<std::int64_t> items;
    std::vector<float> xy;
    items.reserve(layout->items.size());
    xy.reserve(2 * layout->items.size());
    for (std::size_t i = 0; i < layout->items.size(); ++i) {
        const std::int64_t id = layout->items[i];
        if (id < 0 || static_cast<std::size_t>(id) >= limit || 2 * i + 1 >= layout->xy.size())
            continue;
        items.push_back(id);
        xy.push_back(layout->xy[2 * i]);
        xy.push_back(layout->xy[2 * i + 1]);
    }
    m_layout = std::move(layout);
    m_canvas.setPoints(std::move(items), std::move(xy));
    invalidateAgreement();
    updateAgreement();
    recomputeColors();
    recomputeSizes();
    syncSelection();
    m_hoverStale = true;
    if (m_hovered >= 0 && m_canvas.vertexOf(m_hovered) < 0)
        setHovered(-1);
    requestFrames();
}

void EmbeddingView::setColorBy(const QString& labelSetOrColumn)
{
    m_colorBy = labelSetOrColumn;
    if (m_dataset && m_dataset->labelSet(m_colorBy.toStdString()) && m_agreementLabelSet != m_colorBy) {
        m_agreementLabelSet = m_colorBy;
        invalidateAgreement();
    }
    updateAgreement();
    recomputeColors();
    if (const int i = m_colorCombo->findData(m_colorBy); i >= 0 && i != m_colorCombo->currentIndex()) {
        const QSignalBlocker block(m_colorCombo);
        m_colorCombo->setCurrentIndex(i);
    }
    requestFrames();
}

void EmbeddingView::setSizeBy(const QString& column)
{
    m_sizeBy = column;
    updateAgreement();
    if (m_colorBy == QLatin1String(kAgreementColumn))
        recomputeColors(); // its values may have just been computed
    recomputeSizes();
    if (const int i = m_sizeCombo->findData(m_sizeBy); i >= 0 && i != m_sizeCombo->currentIndex()) {
        const QSignalBlocker block(m_sizeCombo);
        m_sizeCombo->setCurrentIndex(i);
    }
    requestFrames();
}

bool EmbeddingView::setItemColumn(const QString& name, std::vector<float> values)
{
    if (!m_dataset || values.size() != m_dataset->size() || name.isEmpty())
        return false;
    auto it = std::find_if(m_columns.begin(), m_columns.end(), [&](const auto& c) { return c.first == name; });
    if (it != m_columns.end())
        it->second = std::move(values);
    else
        m_columns.emplace_back(name, std::move(values));
    rebuildToolBar();
    if (m_colorBy == name)
        recomputeColors();
    if (m_sizeBy == name)
        recomputeSizes();
    requestFrames();
    return true;
}

QStringList EmbeddingView::columnNames() const
{
    QStringList names;
    for (const auto& c : m_columns)
        names << c.first;
    return names;
}

const std::vector<float>& EmbeddingView::itemColumn(const QString& name) const
{
    static const std::vector<float> none;
    for (const auto& c : m_columns)
        if (c.first == name)
            return c.second;
    return none;
}

bool EmbeddingView::colorByColumn() const
{
    return m_dataset && !m_dataset->labelSet(m_colorBy.toStdString()) && !itemColumn(m_colorBy).empty();
}

std::vector<std::int64_t> EmbeddingView::search(const QString& query) const
{
    std::vector<std::int64_t> out;
    const std::string needle = query.trimmed().toLower().toStdString();
    if (!m_dataset || needle.empty())
        return out;
    std::vector<char> hit(m_dataset->size(), 0);
    for (const data::LabelSet& ls : m_dataset->labelSets()) {
        std::vector<char> classHit(ls.classNames.size());
        bool any = false;
        for (std::size_t c = 0; c < classHit.size(); ++c)
            any |= (classHit[c] = containsFolded(ls.classNames[c], needle)) != 0;
        if (!any)
            continue;
        for (std::size_t i = 0; i < hit.size(); ++i)
            if (const std::int32_t l = ls.labels[i]; l >= 0 && classHit[static_cast<std::size_t>(l)])
                hit[i] = 1;
    }
    if (m_dataset->hasElementText()) {
        const std::vector<std::int64_t>& offsets = m_dataset->offsets();
        for (std::size_t i = 0; i < hit.size(); ++i)
            for (std::int64_t e = offsets[i]; !hit[i] && e < offsets[i + 1]; ++e)
                hit[i] = containsFolded(m_dataset->elementText(static_cast<std::size_t>(e)), needle);
    }
    for (std::size_t i = 0; i < hit.size(); ++i)
        if (hit[i])
            out.push_back(static_cast<std::int64_t>(i));
    return out;
}

void EmbeddingView::showSearch(const QString& query)
{
    m_searchEdit->show();
    m_searchCount->show();
    if (m_searchEdit->text() != query)
        m_searchEdit->setText(query); // runs the search
    else
        runSearch(query);
    m_searchEdit->setFocus();
    m_searchEdit->selectAll();
    // Ctrl+F typed on the map: the keyboard is with the map's native window, and a widget's
    // setFocus() does not take it back; the field needs the widget window to have it.
    if (QGuiApplication::focusWindow() == m_surface)
        if (QWindow* top = window()->windowHandle())
            top->requestActivate();
}

void EmbeddingView::runSearch(const QString& query)
{
    m_searchMatches = search(query);
    if (query.trimmed().isEmpty())
        m_searchCount->setText(QString());
    else
        m_searchCount->setText(m_searchMatches.size() == 1 ? tr("1 match") : tr("%1 matches").arg(m_searchMatches.size()));
    if (m_selection && !query.trimmed().isEmpty())
        m_selection->select(m_searchMatches);
}

void EmbeddingView::fitTo(const std::vector<std::int64_t>& items)
{
    if (std::none_of(items.begin(), items.end(), [this](std::int64_t i) { return m_canvas.vertexOf(i) >= 0; }))
        return;
    const QRectF box = m_canvas.boundsOf(items);
    // A single point (or a tight group) gets a box of at least a tenth of the map, so that
    // its neighbourhood stays in view.
    const QRectF all = m_canvas.currentBounds();
    const double minSide = 0.1 * std::max(all.width(), all.height());
    QRectF target = box;
    if (target.width() < minSide)
        target.adjust(-(minSide - target.width()) / 2, 0, (minSide - target.width()) / 2, 0);
    if (target.height() < minSide)
        target.adjust(0, -(minSide - target.height()) / 2, 0, (minSide - target.height()) / 2);
    m_canvas.camera().fit(target);
    m_autoFit = false;
    requestFrames();
}

void EmbeddingView::rebuildToolBar()
{
    const QSignalBlocker blockColor(m_colorCombo), blockSize(m_sizeCombo);
    m_colorCombo->clear();
    m_sizeCombo->clear();
    m_sizeCombo->addItem(tr("uniform"), QString());
    if (m_dataset) {
        for (const data::LabelSet& ls : m_dataset->labelSets()) {
            const QString name = QString::fromStdString(ls.name);
            m_colorCombo->addItem(name, name);
        }
        for (const auto& c : m_columns) {
            m_colorCombo->addItem(c.first, c.first);
            m_sizeCombo->addItem(c.first, c.first);
        }
    }
    if (const int i = m_colorCombo->findData(m_colorBy); i >= 0)
        m_colorCombo->setCurrentIndex(i);
    m_sizeCombo->setCurrentIndex(std::max(0, m_sizeCombo->findData(m_sizeBy)));
}

void EmbeddingView::invalidateAgreement()
{
    m_agreementStale = true;
    m_agreementJob.retire();
}

void EmbeddingView::updateAgreement()
{
    const QString name = QString::fromLatin1(kAgreementColumn);
    if (!m_agreementStale || !m_dataset || (m_colorBy != name && m_sizeBy != name))
        return;
    auto it = std::find_if(m_columns.begin(), m_columns.end(), [&](const auto& c) { return c.first == name; });
    if (it == m_columns.end())
        return;
    const data::LabelSet* ls = m_dataset->labelSet(m_agreementLabelSet.toStdString());
    if (!ls)
        ls = &m_dataset->labelSets().front();
    std::fill(it->second.begin(), it->second.end(), std::numeric_limits<float>::quiet_NaN());
    m_agreementStale = false;
    // Copies for the job: the layout may change while it runs (then this job is retired and
    // its result never arrives).
    auto items = std::make_shared<const std::vector<std::int64_t>>(m_canvas.items());
    std::vector<std::int32_t> labels(items->size());
    for (std::size_t v = 0; v < items->size(); ++v)
        labels[v] = ls->labels[static_cast<std::size_t>((*items)[v])];
    std::vector<float> xy = m_canvas.targetPositions();
    auto job = std::make_unique<job::TaskJob<std::vector<float>>>(
        "kNN agreement on the map",
        [xy = std::move(xy), labels = std::move(labels)](job::JobControl& control, const auto&) {
            return neighbourAgreement(xy.data(), labels, kAgreementK, [&control] { return control.cancelRequested(); });
        });
    m_agreementJob.prepare();
    m_agreementJob.on(&QtJobSink::jobFinished, this, [this, items, name](int status, const QString&) {
        const auto* done = m_agreementJob.jobAs<job::TaskJob<std::vector<float>>>();
        const auto values = done ? done->result() : nullptr;
        if (static_cast<job::JobStatus>(status) != job::JobStatus::Finished || !values || values->size() != items->size())
            return;
        auto column = std::find_if(m_columns.begin(), m_columns.end(), [&](const auto& c) { return c.first == name; });
        if (column == m_columns.end())
            return;
        for (std::size_t v = 0; v < items->size(); ++v)
            column->second[static_cast<std::size_t>((*items)[v])] = (*values)[v];
        if (m_colorBy == name)
            recomputeColors();
        if (m_sizeBy == name)
            recomputeSizes();
        m_hoverStale = true;
        requestFrames();
        Q_EMIT agreementComputed();
    });
    m_agreementJob.start(std::move(job));
}

void EmbeddingView::recomputeSizes()
{
    const std::vector<float>& column = itemColumn(m_sizeBy);
    if (column.empty()) {
        m_canvas.setSizes({});
        return;
    }
    const std::vector<std::int64_t>& items = m_canvas.items();
    const auto [lo, hi] = finiteRange(column);
    std::vector<float> factors(items.size(), 1.0f);
    for (std::size_t i = 0; i < items.size(); ++i) {
        const float v = column[static_cast<std::size_t>(items[i])];
        if (std::isfinite(v))
            factors[i] = hi > lo ? 0.5f + 1.5f * (v - lo) / (hi - lo) : 1.0f;
    }
    m_canvas.setSizes(std::move(factors));
}

void EmbeddingView::setTrainingInfo(qint64 step, const QString& phase)
{
    m_trainingStep = step;
    m_trainingPhase = phase;
}

void EmbeddingView::recomputeColors()
{
    const std::vector<std::int64_t>& items = m_canvas.items();
    std::vector<std::uint32_t> rgb(items.size(), rgbOf(Palette::unlabelled()));
    m_colorRange = {0.0f, 0.0f};
    if (colorByColumn()) {
        const std::vector<float>& column = itemColumn(m_colorBy);
        m_colorRange = finiteRange(column);
        const auto [lo, hi] = m_colorRange;
        for (std::size_t i = 0; i < items.size(); ++i) {
            const float v = column[static_cast<std::size_t>(items[i])];
            if (std::isfinite(v))
                rgb[i] = rgbOf(Palette::sequential(hi > lo ? (v - lo) / (hi - lo) : 0.5));
        }
    } else if (m_dataset && !m_dataset->labelSets().empty()) {
        const data::LabelSet* ls = m_dataset->labelSet(m_colorBy.toStdString());
        if (!ls)
            ls = &m_dataset->labelSets().front();
        for (std::size_t i = 0; i < items.size(); ++i)
            rgb[i] = rgbOf(Palette::color(ls->labels[static_cast<std::size_t>(items[i])]));
    }
    m_canvas.setColors(std::move(rgb));
}

// --- view transform --------------------------------------------------------------------

void EmbeddingView::applyFit()
{
    if (!m_canvas.empty())
        m_canvas.camera().fit(m_canvas.currentBounds());
}

void EmbeddingView::fitAll()
{
    m_autoFit = true;
    applyFit();
    requestFrames();
}

void EmbeddingView::setPointSize(float px)
{
    m_pointSize = px;
    m_surface->update();
}

float EmbeddingView::pointSize() const
{
    if (m_pointSize > 0.0f)
        return m_pointSize;
    const std::size_t n = m_canvas.size();
    return n <= 500 ? 9.0f : n <= 3000 ? 6.0f : n <= 20000 ? 4.0f : 3.0f;
}

void EmbeddingView::setSelectionModel(SelectionModel* selection)
{
    if (m_selection)
        disconnect(m_selection, nullptr, this, nullptr);
    m_selection = selection;
    if (m_selection)
        connect(m_selection, &SelectionModel::changed, this, [this] {
            syncSelection();
            requestFrames();
        });
    syncSelection();
    requestFrames();
}

void EmbeddingView::syncSelection()
{
    m_canvas.setSelectedItems(m_selection ? m_selection->items() : std::vector<std::int64_t>{});
}

QRectF EmbeddingView::rubberBand() const
{
    return m_boxSelecting ? QRectF(m_pressPos, m_mousePos).normalized() : QRectF();
}

std::int64_t EmbeddingView::itemAt(QPointF widgetPos) const
{
    return m_canvas.itemAt(widgetPos, pointSize() / 2.0 + kHoverSlackPx);
}

void EmbeddingView::cameraMoved()
{
    m_interacting = true;
    m_settle->start();
}

void EmbeddingView::setHovered(std::int64_t item)
{
    if (item == m_hovered)
        return;
    m_hovered = item;
    requestFrames();
    Q_EMIT hoveredChanged(item);
}

void EmbeddingView::requestFrames(int n)
{
    m_framesWanted = std::max(m_framesWanted, n);
    m_surface->update();
}

QOpenGLWindow* EmbeddingView::surface() const
{
    return m_surface;
}

QSize EmbeddingView::mapSize() const
{
    return m_surface->size();
}

// --- events ----------------------------------------------------------------------------

void EmbeddingView::surfaceMousePress(QMouseEvent* e)
{
    const int button = e->button() == Qt::LeftButton ? 0 : e->button() == Qt::RightButton ? 1 : 2;
    m_imgui->mouseMove(e->position());
    m_imgui->mousePress(button);
    if (e->button() == Qt::LeftButton && !m_imgui->wantCaptureMouse()) {
        m_pressPos = e->position();
        m_mousePos = e->position();
        m_pressMoved = false;
        m_pressModifiers = e->modifiers();
        if (m_selection && (e->modifiers() & Qt::ShiftModifier)) {
            m_boxSelecting = true;
            setHovered(-1); // the card would follow the mouse over what is being selected
            m_surface->setCursor(Qt::CrossCursor);
        } else if (m_selection && (m_lassoMode || (e->modifiers() & Qt::AltModifier))) {
            m_lassoSelecting = true;
            m_lasso = QPolygonF({e->position()});
            setHovered(-1);
            m_surface->setCursor(Qt::CrossCursor);
        } else {
            m_dragging = true;
            m_lastMouse = e->position();
            m_surface->setCursor(Qt::ClosedHandCursor);
        }
    }
    requestFrames();
}

void EmbeddingView::surfaceMouseMove(QMouseEvent* e)
{
    m_mousePos = e->position();
    m_imgui->mouseMove(e->position());
    if ((m_dragging || m_boxSelecting || m_lassoSelecting) && QLineF(m_pressPos, e->position()).length() > kClickSlackPx)
        m_pressMoved = true;
    if (m_lassoSelecting) {
        if (QLineF(m_lasso.back(), e->position()).length() >= kLassoStepPx)
            m_lasso << e->position();
        requestFrames(1);
        return;
    }
    if (m_boxSelecting) {
        requestFrames(1);
        return;
    }
    if (m_dragging) {
        m_canvas.camera().panBy(e->position() - m_lastMouse);
        m_lastMouse = e->position();
        m_autoFit = false;
        cameraMoved();
        requestFrames(1);
        return;
    }
    setHovered(m_imgui->wantCaptureMouse() ? -1 : itemAt(e->position()));
    if (m_imgui->wantCaptureMouse())
        requestFrames(1); // ImGui highlights what is under the mouse
}

void EmbeddingView::surfaceMouseRelease(QMouseEvent* e)
{
    const int button = e->button() == Qt::LeftButton ? 0 : e->button() == Qt::RightButton ? 1 : 2;
    m_imgui->mouseRelease(button);
    if (e->button() == Qt::LeftButton && m_boxSelecting) {
        m_boxSelecting = false;
        m_surface->unsetCursor();
        const bool add = m_pressModifiers & Qt::ControlModifier;
        if (m_selection)
            m_selection->select(itemsIn(QRectF(m_pressPos, e->position()).normalized()),
                                add ? SelectionModel::Mode::Add : SelectionModel::Mode::Replace);
    } else if (e->button() == Qt::LeftButton && m_lassoSelecting) {
        m_lassoSelecting = false;
        m_surface->unsetCursor();
        if (!m_pressMoved) {
            clickSelect(e->position());
        } else if (m_selection) {
            m_lasso << e->position();
            const bool add = m_pressModifiers & Qt::ControlModifier;
            m_selection->select(itemsInPolygon(m_lasso), add ? SelectionModel::Mode::Add : SelectionModel::Mode::Replace);
        }
        m_lasso.clear();
    } else if (e->button() == Qt::LeftButton && m_dragging) {
        m_dragging = false;
        m_surface->unsetCursor();
        if (!m_pressMoved) // a click, not a pan
            clickSelect(e->position());
    }
    requestFrames();
}

void EmbeddingView::clickSelect(QPointF pos)
{
    if (!m_selection)
        return;
    const std::int64_t item = itemAt(pos);
    if (m_pressModifiers & Qt::ControlModifier) {
        if (item >= 0)
            m_selection->select({item}, SelectionModel::Mode::Toggle);
    } else {
        m_selection->select(item >= 0 ? std::vector<std::int64_t>{item} : std::vector<std::int64_t>{});
    }
}

void EmbeddingView::setLassoMode(bool on)
{
    m_lassoMode = on;
    requestFrames();
}

void EmbeddingView::keyPressEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_L && !(e->modifiers() & ~Qt::KeypadModifier)) {
        setLassoMode(!m_lassoMode);
        return;
    }
    if (e->matches(QKeySequence::Find)) { // when the shortcut did not see it (focus in the surface)
        showSearch(m_searchEdit->text());
        return;
    }
    QWidget::keyPressEvent(e);
}

void EmbeddingView::surfaceKeyPress(QKeyEvent* e)
{
    keyPressEvent(e);
}

void EmbeddingView::surfaceMouseDoubleClick(QMouseEvent* e)
{
    if (e->button() == Qt::LeftButton && !m_imgui->wantCaptureMouse())
        fitAll();
}

void EmbeddingView::surfaceWheel(QWheelEvent* e)
{
    const QPoint delta = e->angleDelta();
    if (m_imgui->wantCaptureMouse()) {
        m_imgui->wheel(delta.y() / 120.0f, delta.x() / 120.0f);
        requestFrames();
        return;
    }
    if (delta.y() == 0)
        return;
    // Keep the map point under the cursor where it is: about 1.2x per wheel notch.
    m_canvas.camera().zoomAbout(e->position(), std::pow(1.0015, static_cast<double>(delta.y())));
    m_autoFit = false;
    cameraMoved();
    setHovered(itemAt(e->position()));
    requestFrames();
}

void EmbeddingView::surfaceLeft()
{
    m_imgui->mouseLeave();
    m_mousePos = QPointF(-1.0, -1.0);
    setHovered(-1);
}

// --- GL --------------------------------------------------------------------------------

void EmbeddingView::initializeSurface()
{
    // QOpenGLWindow calls this even when its context could not be created (no OpenGL on
    // the platform, e.g. offscreen without a display): then the map stays uninitialised and
    // paintSurface() makes no GL call.
    QOpenGLContext* ctx = m_surface->context();
    if (!ctx || !ctx->isValid() || QOpenGLContext::currentContext() != ctx) {
        m_glProblem = tr("No OpenGL context for the map on this platform");
        qWarning().noquote() << "setscope:" << m_glProblem;
        return;
    }
    if (!m_surface->initializeOpenGLFunctions()) {
        m_glProblem = tr("OpenGL 3.3 core is not available (got %1.%2)")
                          .arg(ctx->format().majorVersion())
                          .arg(ctx->format().minorVersion());
        qWarning().noquote() << "setscope:" << m_glProblem;
        return;
    }
    // The context lives as long as the surface, which the destructor outlives: it cleans up.
    if (!m_canvas.initializeGL(m_surface, &m_glProblem)) {
        qWarning().noquote() << "setscope:" << m_glProblem;
        return;
    }
    m_presenter.initializeGL(m_surface);
    if (!m_imgui->initializeGL(QString::fromLatin1(kFontFile), 14.0f, m_surface->devicePixelRatio()))
        m_glProblem = tr("The Dear ImGui OpenGL 3 backend failed to initialise");
    m_glReady = true;
}

void EmbeddingView::cleanupGL()
{
    if (!m_glReady)
        return;
    m_imgui->shutdownGL();
    m_presenter.cleanupGL();
    m_canvas.cleanupGL();
    m_glReady = false;
}

void EmbeddingView::surfaceResized()
{
    m_canvas.camera().setViewport(QSizeF(mapSize()));
    if (m_autoFit)
        applyFit();
    m_framesWanted = std::max(m_framesWanted, 2);
}

void EmbeddingView::paintSurface(unsigned int fbo)
{
    if (!m_glReady)
        return;
    QElapsedTimer frameClock;
    frameClock.start();
    const QColor bg = Palette::mapBackground();
    m_surface->glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    m_surface->glClearColor(float(bg.redF()), float(bg.greenF()), float(bg.blueF()), 1.0f);
    m_surface->glClear(GL_COLOR_BUFFER_BIT);

    const QSize size = mapSize();
    m_canvas.camera().setViewport(QSizeF(size));
    if (m_autoFit)
        applyFit();
    // Points move under a resting mouse (new layouts, auto-fit): keep the hover on whatever
    // is under it now. Picking looks at where the points end up, so once per layout is
    // enough, not once per animation frame.
    if (m_hoverStale) {
        m_hoverStale = false;
        if (m_mousePos.x() >= 0.0 && !m_dragging && !m_imgui->wantCaptureMouse())
            setHovered(itemAt(m_mousePos));
    }
    const float dpr = static_cast<float>(m_surface->devicePixelRatio());
    const bool more = m_canvas.draw(fbo, QSize(int(size.width() * dpr), int(size.height() * dpr)), dpr, pointSize(),
                                    m_hovered, m_interacting);
    drawOverlay();
    ++m_frames;
    m_lastFrameMs = static_cast<double>(frameClock.nsecsElapsed()) * 1e-6;

    // More frames only while something moves: the animation, or overlay windows that
    // ImGui sizes on their first frame and shows on the next.
    if (m_framesWanted > 0)
        --m_framesWanted;
    if (animating() || more || m_framesWanted > 0)
        m_surface->update();
}

// --- overlay ---------------------------------------------------------------------------

void EmbeddingView::drawOverlay()
{
    m_imgui->newFrame(mapSize(), m_surface->devicePixelRatio());
    m_legendRect = QRectF();
    m_tooltipRect = QRectF();
    drawLegend();
    drawHoverTooltip();
    drawStats();
    drawRubberBand();
    drawLasso();
    m_imgui->render();
}

void EmbeddingView::drawRubberBand()
{
    const QRectF r = rubberBand();
    if (r.isNull())
        return;
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    const ImVec2 a(float(r.left()), float(r.top())), b(float(r.right()), float(r.bottom()));
    dl->AddRectFilled(a, b, IM_COL32(40, 90, 200, 40));
    dl->AddRect(a, b, IM_COL32(40, 90, 200, 220), 0.0f, 0, 1.5f);
}

void EmbeddingView::drawLasso()
{
    if (!m_lassoSelecting || m_lasso.size() < 2)
        return;
    std::vector<ImVec2> pts;
    pts.reserve(static_cast<std::size_t>(m_lasso.size()));
    for (const QPointF& p : m_lasso)
        pts.emplace_back(float(p.x()), float(p.y()));
    ImDrawList* dl = ImGui::GetForegroundDrawList();
    dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), IM_COL32(40, 90, 200, 220), ImDrawFlags_Closed, 1.5f);
}

void EmbeddingView::drawLegend()
{
    const float w = static_cast<float>(mapSize().width());
    ImGui::SetNextWindowPos(ImVec2(w - 10.0f, 10.0f), ImGuiCond_Always, ImVec2(1.0f, 0.0f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(120.0f, 0.0f), ImVec2(FLT_MAX, std::max(80.0f, mapSize().height() * 0.7f)));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                   ImGuiWindowFlags_NoNav;
    if (!m_dataset) {
        if (ImGui::Begin("Legend###legend", nullptr, flags)) {
            ImGui::TextDisabled("No dataset open");
            m_legendRect = windowRect();
        }
        ImGui::End();
        return;
    }
    if (colorByColumn()) {
        drawColumnLegend(m_colorBy);
        return;
    }
    const data::LabelSet* ls = m_dataset->labelSet(m_colorBy.toStdString());
    if (!ls && !m_dataset->labelSets().empty())
        ls = &m_dataset->labelSets().front();
    const std::string title = (ls ? ls->name : std::string("no labels")) + "###legend";
    if (ImGui::Begin(title.c_str(), nullptr, flags)) {
        m_legendRect = windowRect();
        const ImGuiColorEditFlags swatch = ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoDragDrop |
                                           ImGuiColorEditFlags_NoBorder;
        const float box = ImGui::GetTextLineHeight();
        if (ls) {
            const std::vector<std::size_t> counts = ls->counts();
            if (ImGui::BeginTable("classes", 2, ImGuiTableFlags_SizingFixedFit)) {
                for (int c = 0; c < ls->numClasses(); ++c) {
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    ImGui::PushID(c);
                    ImGui::ColorButton("##c", toImVec4(Palette::color(c)), swatch, ImVec2(box, box));
                    ImGui::SameLine();
                    ImGui::TextUnformatted(ls->classNames[static_cast<std::size_t>(c)].c_str());
                    ImGui::PopID();
                    ImGui::TableNextColumn();
                    ImGui::TextDisabled("%zu", counts[static_cast<std::size_t>(c)]);
                }
                if (const std::size_t u = ls->unlabelledCount(); u > 0) {
                    ImGui::TableNextRow();
                    ImGui::TableNextColumn();
                    ImGui::ColorButton("##u", toImVec4(Palette::unlabelled()), swatch, ImVec2(box, box));
                    ImGui::SameLine();
                    ImGui::TextUnformatted("unlabelled");
                    ImGui::TableNextColumn();
                    ImGui::TextDisabled("%zu", u);
                }
                ImGui::EndTable();
            }
        } else {
            ImGui::TextDisabled("This dataset has no label sets");
        }
    }
    ImGui::End();
}

void EmbeddingView::drawColumnLegend(const QString& column)
{
    const float w = static_cast<float>(mapSize().width());
    ImGui::SetNextWindowPos(ImVec2(w - 10.0f, 10.0f), ImGuiCond_Always, ImVec2(1.0f, 0.0f));
    const ImGuiWindowFlags flags = ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoMove |
                                   ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                   ImGuiWindowFlags_NoNav;
    const std::string title = column.toStdString() + "###legend";
    if (ImGui::Begin(title.c_str(), nullptr, flags)) {
        m_legendRect = windowRect();
        // The colour bar: the map's colours from the minimum (left) to the maximum (right).
        const float barW = 160.0f, barH = ImGui::GetTextLineHeight();
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        ImGui::Dummy(ImVec2(barW, barH));
        ImDrawList* dl = ImGui::GetWindowDrawList();
        constexpr int kSteps = 32;
        for (int k = 0; k < kSteps; ++k) {
            const QColor a = Palette::sequential(double(k) / kSteps), b = Palette::sequential(double(k + 1) / kSteps);
            const ImU32 ca = IM_COL32(a.red(), a.green(), a.blue(), 255), cb = IM_COL32(b.red(), b.green(), b.blue(), 255);
            const float x0 = p0.x + barW * float(k) / kSteps, x1 = p0.x + barW * float(k + 1) / kSteps;
            dl->AddRectFilledMultiColor(ImVec2(x0, p0.y), ImVec2(x1, p0.y + barH), ca, cb, cb, ca);
        }
        const auto [lo, hi] = m_colorRange;
        const std::string low = QString::number(lo, 'g', 4).toStdString(), high = QString::number(hi, 'g', 4).toStdString();
        ImGui::TextUnformatted(low.c_str());
        ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetCursorPosX() + barW - ImGui::CalcTextSize(high.c_str()).x));
        ImGui::TextUnformatted(high.c_str());
        const std::vector<float>& values = itemColumn(column);
        const std::size_t missing = static_cast<std::size_t>(
            std::count_if(values.begin(), values.end(), [](float v) { return !std::isfinite(v); }));
        if (missing > 0)
            ImGui::TextDisabled("%zu without a value (grey)", missing);
    }
    ImGui::End();
}

void EmbeddingView::drawHoverTooltip()
{
    if (m_hovered < 0 || !m_dataset)
        return;
    const std::int64_t v = m_canvas.vertexOf(m_hovered);
    const std::uint32_t colour = v >= 0 ? m_canvas.colors()[static_cast<std::size_t>(v)] : rgbOf(Palette::unlabelled());
    ImGui::BeginTooltip();
    m_presenter.drawCard(m_hovered, colour);
    m_tooltipRect = windowRect();
    ImGui::EndTooltip();
}

void EmbeddingView::drawStats()
{
    std::string line = QString::asprintf("%.1f ms  ·  %zu points", m_lastFrameMs, m_canvas.size()).toStdString();
    if (m_layout)
        line += m_layout->iteration > 0 ? QString::asprintf("  ·  t-SNE it %d", m_layout->iteration).toStdString()
                                        : std::string("  ·  PCA");
    if (m_trainingStep >= 0)
        line += QString::asprintf("  ·  step %lld", static_cast<long long>(m_trainingStep)).toStdString() +
                (m_trainingPhase.isEmpty() ? std::string() : "  ·  " + m_trainingPhase.toStdString());
    else if (m_layout)
        line += "  ·  raw vectors";
    std::string second;
    if (!m_glProblem.isEmpty())
        second = m_glProblem.toStdString();
    else if (m_dataset && m_canvas.empty())
        second = "computing the map...";

    // Sized from this frame's text: an auto-resizing window would lag one frame behind the
    // changing numbers and clip them.
    const ImGuiStyle& style = ImGui::GetStyle();
    ImVec2 size = ImGui::CalcTextSize(line.c_str());
    if (!second.empty()) {
        const ImVec2 s2 = ImGui::CalcTextSize(second.c_str());
        size.x = std::max(size.x, s2.x);
        size.y += style.ItemSpacing.y + s2.y;
    }
    size.x += 2.0f * style.WindowPadding.x + 2.0f;
    size.y += 2.0f * style.WindowPadding.y;
    ImGui::SetNextWindowPos(ImVec2(10.0f, static_cast<float>(mapSize().height()) - 10.0f), ImGuiCond_Always, ImVec2(0.0f, 1.0f));
    ImGui::SetNextWindowSize(size, ImGuiCond_Always);
    ImGui::SetNextWindowBgAlpha(0.6f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings |
                                   ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav |
                                   ImGuiWindowFlags_NoInputs;
    if (ImGui::Begin("##stats", nullptr, flags)) {
        ImGui::TextUnformatted(line.c_str());
        if (!m_glProblem.isEmpty())
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", second.c_str());
        else if (!second.empty())
            ImGui::TextDisabled("%s", second.c_str());
    }
    ImGui::End();
}

QString EmbeddingView::toSvg() const
{
    auto hex = [](std::uint32_t rgb) { return QStringLiteral("#%1").arg(rgb, 6, 16, QLatin1Char('0')); };
    auto esc = [](const QString& t) { return t.toHtmlEscaped(); };
    const int w = mapSize().width(), h = mapSize().height();
    QString svg;
    svg.reserve(static_cast<int>(200 + 80 * m_canvas.size()));
    svg += QStringLiteral("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                          "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%1\" height=\"%2\" viewBox=\"0 0 %1 %2\" "
                          "font-family=\"DejaVu Sans, sans-serif\" font-size=\"13\">\n")
               .arg(w)
               .arg(h);
    svg += QStringLiteral("<rect width=\"%1\" height=\"%2\" fill=\"%3\"/>\n").arg(w).arg(h).arg(hex(rgbOf(Palette::mapBackground())));

    const std::vector<float> p = m_canvas.currentPositions();
    const std::vector<std::int64_t>& items = m_canvas.items();
    const std::vector<std::uint32_t>& colors = m_canvas.colors();
    const std::vector<float>& sizes = m_canvas.sizes();
    const float base = pointSize();
    const QRectF view(0, 0, w, h);
    auto circle = [&](std::size_t v, bool selected) {
        const QPointF c = mapToWidget(QPointF(p[2 * v], p[2 * v + 1]));
        const double r = base * (sizes.empty() ? 1.0 : sizes[v]) / 2.0 * (selected ? 1.6 : 1.0);
        if (!view.adjusted(-r, -r, r, r).contains(c))
            return;
        const QString fill = hex(v < colors.size() ? colors[v] : rgbOf(Palette::unlabelled()));
        svg += QStringLiteral("<circle data-item=\"%1\" cx=\"%2\" cy=\"%3\" r=\"%4\" fill=\"%5\"%6/>\n")
                   .arg(items[v])
                   .arg(c.x(), 0, 'f', 2)
                   .arg(c.y(), 0, 'f', 2)
                   .arg(r, 0, 'f', 2)
                   .arg(fill, selected ? QStringLiteral(" stroke=\"#f2f2f2\" stroke-width=\"1.5\"") : QString());
    };
    svg += QStringLiteral("<g id=\"points\">\n");
    for (std::size_t v = 0; v < items.size(); ++v)
        circle(v, false);
    svg += QStringLiteral("</g>\n<g id=\"selected\">\n");
    if (m_selection)
        for (std::int64_t item : m_selection->items())
            if (const std::int64_t v = m_canvas.vertexOf(item); v >= 0)
                circle(static_cast<std::size_t>(v), true);
    svg += QStringLiteral("</g>\n");

    // The legend, top right like the overlay's.
    QStringList rows;
    QList<QString> swatches;
    QString title;
    if (m_dataset && colorByColumn()) {
        title = m_colorBy;
    } else if (m_dataset && !m_dataset->labelSets().empty()) {
        const data::LabelSet* ls = m_dataset->labelSet(m_colorBy.toStdString());
        if (!ls)
            ls = &m_dataset->labelSets().front();
        title = QString::fromStdString(ls->name);
        const std::vector<std::size_t> counts = ls->counts();
        for (int c = 0; c < ls->numClasses(); ++c) {
            rows << QStringLiteral("%1  (%2)").arg(QString::fromStdString(ls->classNames[std::size_t(c)])).arg(counts[std::size_t(c)]);
            swatches << hex(rgbOf(Palette::color(c)));
        }
        if (const std::size_t u = ls->unlabelledCount(); u > 0) {
            rows << QStringLiteral("unlabelled  (%1)").arg(u);
            swatches << hex(rgbOf(Palette::unlabelled()));
        }
    }
    if (!title.isEmpty()) {
        const bool bar = colorByColumn();
        const double lw = 200, lh = 30 + (bar ? 36 : 18 * rows.size()), x0 = w - 10 - lw, y0 = 10;
        svg += QStringLiteral("<g id=\"legend\">\n<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"%4\" fill=\"#15161a\" "
                              "fill-opacity=\"0.94\" stroke=\"#3d3f47\"/>\n")
                   .arg(x0).arg(y0).arg(lw).arg(lh);
        svg += QStringLiteral("<text x=\"%1\" y=\"%2\" fill=\"#ffffff\">%3</text>\n").arg(x0 + 8).arg(y0 + 18).arg(esc(title));
        if (bar) {
            svg += QStringLiteral("<defs><linearGradient id=\"colormap\">");
            for (int k = 0; k <= 8; ++k)
                svg += QStringLiteral("<stop offset=\"%1\" stop-color=\"%2\"/>").arg(k / 8.0).arg(hex(rgbOf(Palette::sequential(k / 8.0))));
            svg += QStringLiteral("</linearGradient></defs>\n");
            svg += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"%3\" height=\"12\" fill=\"url(#colormap)\"/>\n")
                       .arg(x0 + 8).arg(y0 + 26).arg(lw - 16);
            svg += QStringLiteral("<text x=\"%1\" y=\"%2\" fill=\"#dddddd\">%3</text>\n").arg(x0 + 8).arg(y0 + 54).arg(m_colorRange.first);
            svg += QStringLiteral("<text x=\"%1\" y=\"%2\" fill=\"#dddddd\" text-anchor=\"end\">%3</text>\n")
                       .arg(x0 + lw - 8).arg(y0 + 54).arg(m_colorRange.second);
        } else {
            for (int k = 0; k < rows.size(); ++k) {
                const double y = y0 + 28 + 18 * k;
                svg += QStringLiteral("<rect x=\"%1\" y=\"%2\" width=\"12\" height=\"12\" fill=\"%3\"/>"
                                      "<text x=\"%4\" y=\"%5\" fill=\"#dddddd\">%6</text>\n")
                           .arg(x0 + 8).arg(y).arg(swatches[k]).arg(x0 + 26).arg(y + 11).arg(esc(rows[k]));
            }
        }
        svg += QStringLiteral("</g>\n");
    }
    svg += QStringLiteral("</svg>\n");
    return svg;
}

bool EmbeddingView::exportMap(const QString& path)
{
    if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
        QSaveFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return false;
        f.write(toSvg().toUtf8());
        return f.commit();
    }
    return grabMap().save(path);
}

QImage EmbeddingView::grabMap()
{
    QImage img;
    for (int i = 0; i < 3; ++i)
        img = grabFrame();
    return img;
}

QImage EmbeddingView::grabFrame()
{
    if (!m_surface->isValid() || !m_glReady)
        return {};
    const qreal dpr = m_surface->devicePixelRatio();
    const QSize px = (QSizeF(mapSize()) * dpr).toSize();
    if (px.isEmpty())
        return {};
    m_surface->makeCurrent();
    QOpenGLFramebufferObject target(px);
    paintSurface(target.handle());
    QImage img(px, QImage::Format_RGBX8888);
    m_surface->glBindFramebuffer(GL_FRAMEBUFFER, target.handle());
    m_surface->glPixelStorei(GL_PACK_ALIGNMENT, 4);
    m_surface->glReadPixels(0, 0, px.width(), px.height(), GL_RGBA, GL_UNSIGNED_BYTE, img.bits());
    m_surface->glBindFramebuffer(GL_FRAMEBUFFER, m_surface->defaultFramebufferObject());
    // GL rows go bottom-up; the alpha channel is not part of the picture (RGBX).
    QImage out = img.mirrored().convertToFormat(QImage::Format_RGB32);
    out.setDevicePixelRatio(dpr);
    return out;
}

} // namespace setscope::gui
