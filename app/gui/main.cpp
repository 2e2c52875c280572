// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// setscope: the GUI. Parses the command line, fills the plugin registry, opens the window
// and, for --screenshot, takes the documentation screenshot and quits.

#include "core/builtins/Builtins.h"
#include "core/data/Dataset.h"
#include "core/job/Job.h"
#include "core/layout/LayoutJob.h"
#include "core/plugin/Registry.h"
#include "core/train/TrainerConfig.h"
#include "core/util/OpenMpWait.h"
#include "gui/MainWindow.h"
#include "gui/labels/LabelController.h"
#include "gui/labels/MappingEditorDialog.h"
#include "gui/labels/MappingModel.h"
#include "gui/panels/TrainingPanel.h"
#include "gui/session/Session.h"
#include "gui/session/SelectionModel.h"
#include "gui/views/map/EmbeddingView.h"
#include "gui/views/ExplorerView.h"
#include "gui/views/ViewList.h"
#include "gui/views/compare/CompareView.h"
#include "gui/views/export/ExportActions.h"
#include "gui/views/substructure/SubstructureView.h"

#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QDockWidget>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QLineF>
#include <QMouseEvent>
#include <QOpenGLWindow>
#include <QSurfaceFormat>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numbers>

namespace {

using setscope::gui::MainWindow;
using setscope::gui::Session;

struct Options {
    QString dataset;
    bool train = false;
    int epochs = 0;
    qint64 maxSteps = -1;
    QString screenshot;
    QString project;
    bool noProject = false;
    bool views = false;
    bool labels = false;
    bool retrain = false;
    QString onlyView;
    qint64 item = -1;
    qint64 second = -1;
    qint64 hover = -1;
    qint64 mapItems = -1;
    QString model, recipe;
};

void describe(QCommandLineParser& p)
{
    p.setApplicationDescription(QStringLiteral(
        "Explore learned metrics: train metric-learning models in the background and watch the embedding map."));
    p.addHelpOption();
    p.addVersionOption();
    p.addOption({QStringLiteral("dataset"),
                 QStringLiteral("Dataset to open: fashion-mnist, synthetic, synthetic:key=value,... or a path "
                                "(default: the demo, fashion-mnist when installed, else synthetic)."),
                 QStringLiteral("SPEC")});
    p.addOption({QStringLiteral("train"), QStringLiteral("Start training as soon as the dataset is open.")});
    p.addOption({QStringLiteral("epochs"), QStringLiteral("Epochs of the training run."), QStringLiteral("N")});
    p.addOption({QStringLiteral("max-steps"), QStringLiteral("Stop training after N steps (0 = no limit)."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("screenshot"),
                 QStringLiteral("After the first epoch (or, without --train, the first finished map) point at "
                                "one item, save the window to FILE and the map alone to FILE-map.png, then quit."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("project"),
                 QStringLiteral("Project file to open or create (*.setscope): datasets, labels and every training "
                                "run are recorded there (default: the per-user demo project)."),
                 QStringLiteral("FILE")});
    p.addOption({QStringLiteral("no-project"), QStringLiteral("Do not record anything in a project file.")});
    p.addOption({QStringLiteral("views"),
                 QStringLiteral("With --screenshot: then click an item (--item, else the one pointed at), show each "
                                "of the explorer's views on it and save each to FILE-<view>.png.")});
    p.addOption({QStringLiteral("labels"),
                 QStringLiteral("With --screenshot: then select the items in an ellipse left of the map's centre, "
                                "assign them to class 'picked' of label set 'mine' in the project (use --project with "
                                "a scratch file), save the window to FILE-labels.png and the mapping editor to "
                                "FILE-mapping.png.")});
    p.addOption({QStringLiteral("retrain"),
                 QStringLiteral("With --labels: then derive the mapping editor's set ('coarse-mine'), retrain with it "
                                "(Labels > Retrain: from the current model's weights, or fresh ones) and, when the run "
                                "has finished and its map settled, save the window to FILE-retrain.png.")});
    p.addOption({QStringLiteral("view"),
                 QStringLiteral("With --screenshot: as --views, but only the view ID (e.g. substructure: the project's "
                                "newest weak-metric run)."),
                 QStringLiteral("ID")});
    p.addOption({QStringLiteral("item"), QStringLiteral("With --views: the item to click."), QStringLiteral("N")});
    p.addOption({QStringLiteral("hover"),
                 QStringLiteral("With --screenshot: the item to point at (its hover card is in the picture; default: "
                                "the item drawn nearest a spot right of the map's centre)."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("second"),
                 QStringLiteral("With --views: a second item to select (the EMD-flow view compares the two)."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("map-items"),
                 QStringLiteral("Items on the map: 0 = every item (the default), else a stratified subset."),
                 QStringLiteral("N")});
    p.addOption({QStringLiteral("model"), QStringLiteral("The encoder of the training run (mlp, deepsets, selfattn, ...)."),
                 QStringLiteral("NAME")});
    p.addOption({QStringLiteral("recipe"), QStringLiteral("The recipe of the training run (ours, sset, ...)."),
                 QStringLiteral("NAME")});
}

bool asksForHelp(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        for (const char* o : {"-h", "--help", "--help-all", "-v", "--version", "-?"})
            if (std::strcmp(argv[i], o) == 0)
                return true;
    return false;
}

/// Takes the --screenshot pictures once the map shows what the options promised: with
/// --train, a map of a snapshot taken at or after the end of the first epoch; without, the
/// dataset's first map. Waits for that map to converge (at most kSettleMs after it first
/// appeared) and for the point animation to finish, then saves and quits.
class ScreenshotTaker : public QObject {
public:
    static constexpr qint64 kSettleMs = 60000;
    static constexpr int kGiveUpMs = 20 * 60 * 1000;

    ScreenshotTaker(MainWindow& window, QString file, bool train, bool views, bool labels, bool retrain, QString onlyView,
                    qint64 item, qint64 second, qint64 hover)
        : m_window(window)
        , m_file(std::move(file))
        , m_train(train)
        , m_views(views || !onlyView.isEmpty())
        , m_labels(labels)
        , m_retrain(retrain)
        , m_onlyView(std::move(onlyView))
        , m_item(item)
        , m_second(second)
        , m_hover(hover)
    {
        Session* s = window.session();
        connect(s, &Session::epochMetrics, this, [this](const setscope::train::EpochMetrics& m) {
            if (m.epoch >= 1 && m_epochStep < 0)
                m_epochStep = m.step;
            check();
        });
        connect(s, &Session::layoutChanged, this, &ScreenshotTaker::check);
        connect(s, &Session::trainingFinished, this, [this](int, const QString&) {
            // A run shorter than an epoch (--max-steps) still gets its picture.
            if (m_epochStep < 0 && m_window.session()->snapshot())
                m_epochStep = m_window.session()->snapshot()->step;
            check();
        });
        // Nothing to take a picture of: say why and stop instead of waiting.
        connect(s, &Session::loadFailed, this, [](const QString& spec, const QString& message) {
            std::fprintf(stderr, "setscope: --screenshot: could not open %s: %s\n", qPrintable(spec), qPrintable(message));
            QApplication::exit(1);
        });
        connect(s, &Session::error, this, [](const QString& message) {
            std::fprintf(stderr, "setscope: --screenshot: %s\n", qPrintable(message));
            QApplication::exit(1);
        });
        m_poll.setInterval(1000);
        connect(&m_poll, &QTimer::timeout, this, &ScreenshotTaker::check);
        m_poll.start();
        QTimer::singleShot(kGiveUpMs, this, [this] {
            std::fprintf(stderr, "setscope: --screenshot: gave up waiting for the map; saving what is shown\n");
            capture(1);
        });
    }

private:
    void check()
    {
        if (m_done)
            return;
        const auto layout = m_window.session()->layout();
        if (!layout || (m_train && (m_epochStep < 0 || layout->sourceStep < m_epochStep)))
            return;
        if (!m_ready.isValid())
            m_ready.start();
        if (!layout->converged && m_ready.elapsed() < kSettleMs)
            return;
        m_done = true;
        // Let the view draw the newest layout and finish animating towards it, then point
        // at one item so the picture shows the hover card too.
        QTimer::singleShot(m_window.view()->animationDuration() + 400, this, [this] {
            hoverAnItem();
            QTimer::singleShot(300, this, [this] { capture(0); });
        });
    }

    /// Moves the (virtual) mouse onto item --hover, else onto the item drawn nearest to a
    /// spot right of the centre.
    void hoverAnItem()
    {
        setscope::gui::EmbeddingView* view = m_window.view();
        const std::vector<float> xy = view->currentPositions();
        const std::vector<std::int64_t>& items = view->items();
        const QPointF target(view->mapSize().width() * 0.58, view->mapSize().height() * 0.42);
        QPointF best;
        double bestD = 1e300;
        if (m_hover >= 0 && std::find(items.begin(), items.end(), m_hover) == items.end())
            std::fprintf(stderr, "setscope: --hover: item %lld is not on the map; pointing at another\n",
                         static_cast<long long>(m_hover));
        for (std::size_t i = 0; 2 * i + 1 < xy.size(); ++i) {
            const QPointF w = view->mapToWidget(QPointF(xy[2 * i], xy[2 * i + 1]));
            if (m_hover >= 0 && i < items.size() && items[i] == m_hover) {
                best = w;
                bestD = 0.0;
                break;
            }
            const double d = QLineF(w, target).length();
            if (d < bestD) {
                bestD = d;
                best = w;
            }
        }
        if (bestD < 1e300) {
            QMouseEvent move(QEvent::MouseMove, best, view->surface()->mapToGlobal(best), Qt::NoButton, Qt::NoButton,
                             Qt::NoModifier);
            QCoreApplication::sendEvent(view->surface(), &move);
        }
    }

    /// --views: makes the item current (as a click would), then shows the views one by one,
    /// each saved once its job has ended (or after kViewWaitMs), and quits.
    void captureViews(int code)
    {
        setscope::gui::SelectionModel* sel = m_window.selection();
        const qint64 item = m_item >= 0 ? m_item : m_window.view()->hoveredItem();
        if (item < 0 && m_onlyView.isEmpty()) {
            std::fprintf(stderr, "setscope: --views: no item to click\n");
            QApplication::exit(1);
            return;
        }
        if (item >= 0) {
            if (m_second >= 0) // both selected, the first current: the flow view compares the two
                sel->select({m_second});
            sel->select({item},
                        m_second >= 0 ? setscope::gui::SelectionModel::Mode::Add : setscope::gui::SelectionModel::Mode::Replace);
        }
        m_pending.clear();
        for (const setscope::gui::ViewSpec& spec : setscope::gui::explorerViews())
            if (m_onlyView.isEmpty() || spec.id == m_onlyView)
                m_pending << spec.id;
        if (m_pending.isEmpty()) {
            std::fprintf(stderr, "setscope: --view: no view '%s'\n", qPrintable(m_onlyView));
            QApplication::exit(1);
            return;
        }
        nextView(code);
    }

    void nextView(int code)
    {
        if (m_pending.isEmpty()) {
            const QImage window = setscope::gui::exporting::grabWidget(&m_window);
            const QFileInfo fi(m_file);
            window.save(fi.dir().filePath(fi.completeBaseName() + QStringLiteral("-window.png")));
            QApplication::exit(code);
            return;
        }
        const QString id = m_pending.takeFirst();
        setscope::gui::ExplorerView* view = m_window.explorerView(id);
        QDockWidget* dock = m_window.viewDock(id);
        m_window.showView(id);
        // Compare: map the first recorded run of the project (another run than the live one).
        if (auto* compare = qobject_cast<setscope::gui::CompareView*>(view)) {
            for (int i = 0; i < compare->runMenu()->count(); ++i)
                if (compare->runMenu()->itemData(i).toString() != QLatin1String("live")) {
                    compare->runMenu()->setCurrentIndex(i);
                    compare->mapSelected();
                    break;
                }
        }
        // Substructure: the project's newest weak-metric run.
        if (auto* sub = qobject_cast<setscope::gui::SubstructureView*>(view)) {
            sub->refreshRuns();
            if (sub->runMenu()->count() > 0) {
                sub->runMenu()->setCurrentIndex(0);
                sub->showSelected();
            } else {
                std::fprintf(stderr, "setscope: --views: no weak-metric run in the project for the substructure view\n");
            }
        }
        // Float the dock at a size that shows the view well, then put it back.
        dock->setFloating(true);
        if (id == QLatin1String("substructure"))
            dock->resize(1400, 600);
        else
            dock->resize(980, 660);
        auto save = [this, id, view, dock, code] {
            const QFileInfo fi(m_file);
            const QString file = fi.dir().filePath(fi.completeBaseName() + QLatin1Char('-') + id + QStringLiteral(".png"));
            const bool ok = setscope::gui::exporting::grabWidget(view).save(file, nullptr, 0); // 0: the smallest PNG
            std::fprintf(stderr, "setscope: %s %s\n", ok ? "saved" : "could not save", qPrintable(file));
            dock->setFloating(false);
            QTimer::singleShot(0, this, [this, code] { nextView(code); });
        };
        // The view starts its job when shown (a queued call): give it a moment, then wait for
        // it to end.
        QTimer::singleShot(500, this, [this, view, save] {
            if (!view->busy()) {
                QTimer::singleShot(200, this, save);
                return;
            }
            auto once = std::make_shared<QMetaObject::Connection>();
            *once = connect(view, &setscope::gui::ExplorerView::jobEnded, this, [once, this, save](int) {
                disconnect(*once);
                QTimer::singleShot(300, this, save);
            });
        });
    }

    void capture(int code)
    {
        m_poll.stop();
        const QImage map = m_window.view()->grabMap();
        const QImage window = setscope::gui::exporting::grabWidget(&m_window);
        const QFileInfo fi(m_file);
        const QString mapFile = fi.dir().filePath(fi.completeBaseName() + QStringLiteral("-map.png"));
        const bool ok = window.save(m_file) && map.save(mapFile);
        std::fprintf(stderr, "setscope: %s %s and %s\n", ok ? "saved" : "could not save", qPrintable(m_file),
                     qPrintable(mapFile));
        if (ok && m_labels)
            captureLabels(code);
        else if (ok && m_views)
            captureViews(code);
        else
            QApplication::exit(ok ? code : 1);
    }

    /// --labels: a selection (an ellipse left of the centre, as a lasso would take it), assigned
    /// to a new class of a new label set; the window with the recoloured map, then the mapping
    /// editor on "fine" (its first three classes merged).
    void captureLabels(int code)
    {
        setscope::gui::EmbeddingView* view = m_window.view();
        const QSize size = view->mapSize();
        QPolygonF lasso;
        for (int k = 0; k < 64; ++k) {
            const double a = 2 * std::numbers::pi * k / 64;
            lasso << QPointF(size.width() * (0.36 + 0.16 * std::cos(a)), size.height() * (0.5 + 0.28 * std::sin(a)));
        }
        m_window.selection()->select(view->itemsInPolygon(lasso));
        if (!m_window.assignSelectionTo(QStringLiteral("mine"), QStringLiteral("picked"))) {
            std::fprintf(stderr, "setscope: --labels: nothing assigned (see the log)\n");
            QApplication::exit(1);
            return;
        }
        QTimer::singleShot(800, this, [this, code] {
            const QFileInfo fi(m_file);
            const QString labelsFile = fi.dir().filePath(fi.completeBaseName() + QStringLiteral("-labels.png"));
            bool ok = setscope::gui::exporting::grabWidget(&m_window).save(labelsFile);
            auto* editor = new setscope::gui::MappingEditorDialog(*m_window.labels(), m_window.session()->dataset(),
                                                                  QStringLiteral("coarse-mine"), &m_window);
            editor->setAttribute(Qt::WA_DeleteOnClose);
            editor->setSource(QStringLiteral("fine"));
            // Fashion-MNIST's garments grouped as a person would (issue 11); elsewhere the
            // first three classes merged.
            const QStringList tops{QStringLiteral("T-shirt/top"), QStringLiteral("Pullover"), QStringLiteral("Coat"),
                                   QStringLiteral("Shirt")};
            const QStringList shoes{QStringLiteral("Sandal"), QStringLiteral("Sneaker"), QStringLiteral("Ankle boot")};
            setscope::gui::MappingModel* model = editor->model();
            bool grouped = false;
            for (int r = 0; r < model->rowCount(); ++r) {
                if (tops.contains(model->sourceClass(r)))
                    grouped = model->setTarget(r, QStringLiteral("tops"));
                else if (shoes.contains(model->sourceClass(r)))
                    grouped = model->setTarget(r, QStringLiteral("footwear"));
            }
            for (int r = 1; !grouped && r < 3 && r < model->rowCount(); ++r)
                model->setTarget(r, model->target(0));
            editor->resize(560, 520);
            editor->show();
            QTimer::singleShot(400, this, [this, editor, code, ok, labelsFile, fi]() mutable {
                const QString mappingFile = fi.dir().filePath(fi.completeBaseName() + QStringLiteral("-mapping.png"));
                ok = editor->grab().toImage().save(mappingFile) && ok;
                if (m_retrain)
                    editor->accept(); // Derive: 'coarse-mine' becomes the edited set
                else
                    editor->close();
                std::fprintf(stderr, "setscope: %s %s and %s\n", ok ? "saved" : "could not save", qPrintable(labelsFile),
                             qPrintable(mappingFile));
                if (ok && m_retrain)
                    captureRetrain(code);
                else if (ok && m_views)
                    captureViews(code);
                else
                    QApplication::exit(ok ? code : 1);
            });
        });
    }

    /// --retrain: Labels > Retrain with the set just derived; once the run has finished and its
    /// map has settled, the window to FILE-retrain.png, then the views.
    void captureRetrain(int code)
    {
        Session* s = m_window.session();
        if (!m_window.retrain()) {
            std::fprintf(stderr, "setscope: --retrain: the run did not start (see the log)\n");
            QApplication::exit(1);
            return;
        }
        std::fprintf(stderr, "setscope: --retrain: retraining with '%s'\n", qPrintable(m_window.labels()->editedLabelSet()));
        auto once = std::make_shared<QMetaObject::Connection>();
        *once = connect(s, &Session::trainingFinished, this, [this, once, code](int status, const QString& detail) {
            disconnect(*once);
            if (status != static_cast<int>(setscope::job::JobStatus::Finished)) {
                std::fprintf(stderr, "setscope: --retrain: the run ended without finishing: %s\n", qPrintable(detail));
                QApplication::exit(1);
                return;
            }
            waitForFinalMap(code, 0);
        });
    }

    void waitForFinalMap(int code, int waited)
    {
        Session* s = m_window.session();
        const auto layout = s->layout();
        const auto snap = s->snapshot();
        const bool settled = layout && snap && layout->sourceStep == snap->step && layout->converged;
        if (!settled && waited < 120000) {
            QTimer::singleShot(500, this, [this, code, waited] { waitForFinalMap(code, waited + 500); });
            return;
        }
        QTimer::singleShot(m_window.view()->animationDuration() + 400, this, [this, code] {
            const QFileInfo fi(m_file);
            const QString file = fi.dir().filePath(fi.completeBaseName() + QStringLiteral("-retrain.png"));
            const bool ok = setscope::gui::exporting::grabWidget(&m_window).save(file, nullptr, 0);
            std::fprintf(stderr, "setscope: %s %s\n", ok ? "saved" : "could not save", qPrintable(file));
            if (ok && m_views)
                captureViews(code);
            else
                QApplication::exit(ok ? code : 1);
        });
    }

    MainWindow& m_window;
    QString m_file;
    bool m_train;
    bool m_views;
    bool m_labels;
    bool m_retrain;
    QString m_onlyView;
    qint64 m_item, m_second, m_hover;
    QStringList m_pending;
    qint64 m_epochStep = -1;
    bool m_done = false;
    QElapsedTimer m_ready;
    QTimer m_poll;
};

/// The command line's values (process() has checked the syntax); exits with 2 and a message for a
/// number out of range.
Options readOptions(const QCommandLineParser& parser)
{
    Options opt;
    opt.dataset = parser.value(QStringLiteral("dataset"));
    opt.train = parser.isSet(QStringLiteral("train"));
    opt.screenshot = parser.value(QStringLiteral("screenshot"));
    opt.project = parser.value(QStringLiteral("project"));
    opt.noProject = parser.isSet(QStringLiteral("no-project"));
    opt.views = parser.isSet(QStringLiteral("views"));
    opt.labels = parser.isSet(QStringLiteral("labels"));
    opt.retrain = parser.isSet(QStringLiteral("retrain"));
    opt.onlyView = parser.value(QStringLiteral("view"));
    opt.model = parser.value(QStringLiteral("model"));
    opt.recipe = parser.value(QStringLiteral("recipe"));
    auto number = [&parser](const char* name, qint64 lo) -> qint64 {
        const QString v = parser.value(QString::fromLatin1(name));
        if (v.isEmpty())
            return -1;
        bool ok = false;
        const qint64 n = v.toLongLong(&ok);
        if (!ok || n < lo) {
            std::fprintf(stderr, "setscope: --%s expects a whole number >= %lld, got '%s'\n", name,
                         static_cast<long long>(lo), qPrintable(v));
            std::exit(2);
        }
        return n;
    };
    opt.epochs = static_cast<int>(number("epochs", 1));
    opt.maxSteps = number("max-steps", 0);
    opt.item = number("item", 0);
    opt.second = number("second", 0);
    opt.hover = number("hover", 0);
    opt.mapItems = number("map-items", 0);

    return opt;
}

/// The built-ins and the plugins of the default folders; what was refused, for the window to say.
QStringList registerEverything(setscope::plugin::Registry& registry)
{
    setscope::builtins::registerBuiltins(registry);
    QStringList messages;
    std::vector<std::string> ignoredPluginFolders;
    for (const std::string& dir : setscope::plugin::defaultPluginDirectories(
             QCoreApplication::applicationFilePath().toStdString(), &ignoredPluginFolders)) {
        for (const std::string& e : registry.loadPluginDirectory(dir))
            messages << QString::fromStdString(e);
    }
    for (const std::string& e : ignoredPluginFolders)
        messages << QString::fromStdString(e);
    return messages;
}

/// Runs are recorded by default (nothing is lost when the program dies), in the per-user demo
/// project unless --project names another. False when the project the user named cannot be used
/// (said on stderr); the demo project failing only costs the recording.
bool openStartProject(MainWindow& window, const Options& opt)
{
    const QString project = opt.project.isEmpty() ? MainWindow::defaultProjectPath() : opt.project;
    const auto toStderr = QObject::connect(window.session(), &Session::error, [](const QString& text) {
        std::fprintf(stderr, "setscope: %s\n", qPrintable(text));
    });
    const bool opened = window.session()->openProject(project);
    QObject::disconnect(toStderr);
    return opened || opt.project.isEmpty();
}

/// --epochs, --max-steps, --model and --recipe into the training panel.
void applyRunOptions(MainWindow& window, const Options& opt)
{
    setscope::train::TrainerConfig config = window.trainingPanel()->config();
    if (opt.epochs > 0)
        config.epochs = opt.epochs;
    if (opt.maxSteps >= 0)
        config.maxSteps = opt.maxSteps;
    if (!opt.model.isEmpty())
        config.model = opt.model.toStdString();
    if (!opt.recipe.isEmpty())
        config.recipe = opt.recipe.toStdString();
    window.trainingPanel()->setConfig(config);
}

} // namespace

int main(int argc, char** argv)
{
    // Before anything else: libgomp has read its wait policy already, so this may re-execute.
    setscope::util::ensurePassiveOpenMpWait(argv);
    QCoreApplication::setApplicationName(QStringLiteral("setscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(SETSCOPE_VERSION));
    QCoreApplication::setOrganizationName(QStringLiteral("setscope"));

    if (asksForHelp(argc, argv)) { // works without a display
        QCoreApplication app(argc, argv);
        QCommandLineParser parser;
        describe(parser);
        parser.process(app); // prints and exits
        return 0;
    }
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        std::fputs("setscope: no display found (DISPLAY is not set). The same job runs headless: setscope-cli train "
                   "--dataset fashion-mnist --model mlp --loss triplet --epochs 3\n",
                   stderr);
        return 2;
    }

    // Before the QApplication: every GL context of the process is 3.3 core.
    QSurfaceFormat format;
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setDepthBufferSize(0);
    format.setStencilBufferSize(8);
    QSurfaceFormat::setDefaultFormat(format);
    QApplication app(argc, argv);
    app.setWindowIcon(QIcon(QStringLiteral(":/icons/setscope.png")));

    QCommandLineParser parser;
    describe(parser);
    parser.process(app);
    const Options opt = readOptions(parser);

    // Registry first: the window and its jobs keep references to it.
    setscope::plugin::Registry registry;
    const QStringList pluginMessages = registerEverything(registry);

    MainWindow window(registry);
    for (const QString& m : pluginMessages) {
        std::fprintf(stderr, "setscope: plugin refused: %s\n", qPrintable(m));
        window.showError(QObject::tr("plugin refused: %1").arg(m));
    }
    for (const auto& p : registry.plugins())
        window.showMessage(QObject::tr("plugin %1 %2 loaded from %3")
                               .arg(QString::fromStdString(p.name), QString::fromStdString(p.version),
                                    QString::fromStdString(p.path)));
    if (!opt.noProject && !openStartProject(window, opt))
        return 2; // the user named a project we cannot use: it was said on stderr
    if (opt.mapItems >= 0) // before the first map
        window.session()->setMapItemLimit(static_cast<int>(opt.mapItems));
    // Once the first dataset has opened: opening it sets its kind's defaults in the training
    // panel (recipe, model, preset, epochs), and what the command line says goes over them.
    // Connected before --train's start, so the run starts with them.
    auto applied = std::make_shared<QMetaObject::Connection>();
    *applied = QObject::connect(window.session(), &Session::datasetChanged, &window, [&window, &opt, applied] {
        QObject::disconnect(*applied);
        applyRunOptions(window, opt);
    });

    if (opt.train) {
        // Once, for the first dataset that opens.
        auto started = std::make_shared<QMetaObject::Connection>();
        *started = QObject::connect(window.session(), &Session::datasetChanged, &window, [&window, started] {
            QObject::disconnect(*started);
            window.startTraining();
        });
    }
    std::unique_ptr<ScreenshotTaker> screenshot;
    if (!opt.screenshot.isEmpty())
        screenshot = std::make_unique<ScreenshotTaker>(window, opt.screenshot, opt.train, opt.views, opt.labels, opt.retrain,
                                                        opt.onlyView, opt.item, opt.second, opt.hover);

    window.show();
    if (opt.dataset.isEmpty())
        window.openDemo();
    else
        window.openDataset(opt.dataset);
    return app.exec();
}
