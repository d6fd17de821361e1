#include "app/main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDebug>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>

#include "app/capture_dialog.h"
#include "app/conflict_inspector_view.h"
#include "app/dependency_graph_view.h"
#include "app/export_view.h"
#include "app/memory_map_view.h"
#include "app/node_table_view.h"
#include "app/pass_stepper_view.h"
#include "app/record_dialog.h"
#include "app/schedule_view.h"
#include "app/timing_view.h"

// Resources of a static library must be registered by name, outside any namespace.
static void initResources() {
    Q_INIT_RESOURCE(graphlens);
}

namespace graphlens::gui {

namespace {
constexpr int kMaxRecent = 8;
const char* kRecentKey = "recentFiles";
}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), state_(new SelectionState(this)), worker_(new CoreWorker(this)) {
    initResources();
    setObjectName(QStringLiteral("GraphLensMainWindow"));
    setWindowIcon(QIcon(QStringLiteral(":/graphlens/graphlens.svg")));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    createDocks();
    createMenus();
    busy_ = new QLabel;
    statusBar()->addPermanentWidget(busy_);

    connect(worker_, &CoreWorker::documentReady, this, &MainWindow::onDocument);
    connect(worker_, &CoreWorker::documentUpdated, this, &MainWindow::onDocumentUpdate);
    connect(worker_, &CoreWorker::failed, this, &MainWindow::showError);
    connect(worker_, &CoreWorker::renderDocCaptured, this, [this](const QString& path) {
        log(tr("RenderDoc capture written to %1 (open it in qrenderdoc)").arg(path));
        statusBar()->showMessage(tr("RenderDoc capture: %1").arg(path));
    });
    connect(worker_, &CoreWorker::busyChanged, this, [this](bool busy, const QString& what) {
        busy_->setText(busy ? what + QStringLiteral("…") : QString());
        if (busy) log(what);
    });
    connect(state_, &SelectionState::stageChanged, this, &MainWindow::updateTitle);
    connect(export_, &ExportView::failed, this, &MainWindow::showError);
    connect(worker_, &CoreWorker::runFinished, this, [this](const RunResult& run) {
        log(tr("Ran %1 mode(s) on %2")
                .arg(run.modes.size())
                .arg(QString::fromStdString(run.device)));
        for (const ModeResult& m : run.modes)
            if (m.mismatch) log(tr("MISMATCH %1").arg(describeMismatch(m)));
    });
    connect(export_, &ExportView::exported, this,
            [this](const QString& path) { log(tr("Wrote %1").arg(path)); });

    resize(1500, 950);
    default_state_ = saveState();
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("windowState")).toByteArray());
    updateRecentMenu();
    updateTitle();
}

MainWindow::~MainWindow() = default;

QList<QPair<QString, QWidget*>> MainWindow::views() const {
    return {{QStringLiteral("pass-stepper"), stepper_},
            {QStringLiteral("node-table"), nodes_},
            {QStringLiteral("schedule"), schedule_},
            {QStringLiteral("dependency-graph"), graph_},
            {QStringLiteral("conflict-inspector"), inspector_},
            {QStringLiteral("memory-map"), memory_},
            {QStringLiteral("timing"), timing_},
            {QStringLiteral("export"), export_}};
}

void MainWindow::createDocks() {
    stepper_ = new PassStepperView(state_, worker_);
    nodes_ = new NodeTableView(state_);
    schedule_ = new ScheduleView(state_);
    graph_ = new DependencyGraphView(state_);
    inspector_ = new ConflictInspectorView(state_);
    memory_ = new MemoryMapView(state_);
    timing_ = new TimingView(state_, worker_);
    export_ = new ExportView(state_, worker_);
    log_ = new QPlainTextEdit;
    log_->setReadOnly(true);
    log_->setMaximumBlockCount(2000);

    // The schedule is the centre of attention; everything else docks around it.
    setCentralWidget(schedule_);
    auto dock = [this](const QString& title, const QString& name, QWidget* w,
                       Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    auto* stepper =
        dock(tr("Pass stepper"), QStringLiteral("dock-stepper"), stepper_, Qt::LeftDockWidgetArea);
    auto* inspector = dock(tr("Conflict inspector"), QStringLiteral("dock-inspector"), inspector_,
                           Qt::RightDockWidgetArea);
    auto* memory =
        dock(tr("Memory map"), QStringLiteral("dock-memory"), memory_, Qt::RightDockWidgetArea);
    auto* nodes =
        dock(tr("Node table"), QStringLiteral("dock-nodes"), nodes_, Qt::BottomDockWidgetArea);
    auto* graph = dock(tr("Dependency graph"), QStringLiteral("dock-graph"), graph_,
                       Qt::BottomDockWidgetArea);
    auto* timing =
        dock(tr("Timing"), QStringLiteral("dock-timing"), timing_, Qt::BottomDockWidgetArea);
    auto* exp = dock(tr("Export"), QStringLiteral("dock-export"), export_, Qt::LeftDockWidgetArea);
    auto* log = dock(tr("Log"), QStringLiteral("dock-log"), log_, Qt::BottomDockWidgetArea);
    connect(graph, &QDockWidget::visibilityChanged, graph_, [this](bool visible) {
        if (visible) graph_->revealed();
    });
    tabifyDockWidget(nodes, graph);
    tabifyDockWidget(graph, timing);
    tabifyDockWidget(timing, log);
    nodes->raise();
    tabifyDockWidget(stepper, exp);
    stepper->raise();
    splitDockWidget(inspector, memory, Qt::Vertical);
    // The stepper's ten columns and the inspector's byte ranges fit without scrolling.
    resizeDocks({stepper, inspector}, {570, 410}, Qt::Horizontal);
    resizeDocks({nodes}, {330}, Qt::Vertical);
    for (const auto& [name, w] : views()) export_->addView(name, w);
}

// An action with an application-wide shortcut (the views' own widgets take focus, so the
// menu's keys work wherever the focus is).
template <typename Slot>
QAction* MainWindow::addShortcutAction(QMenu* menu, const QString& text, const QKeySequence& keys,
                                       Slot&& slot) {
    QAction* a = menu->addAction(text);
    a->setShortcut(keys);
    a->setShortcutContext(Qt::ApplicationShortcut);
    connect(a, &QAction::triggered, this, std::forward<Slot>(slot));
    return a;
}

void MainWindow::createMenus() {
    createFileMenu();
    createNavigateMenu();
    createRunMenu();
    createViewMenu();
    createHelpMenu();
}

void MainWindow::createFileMenu() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    addShortcutAction(file, tr("&Open capture…"), QKeySequence::Open, [this] {
        const QString p = QFileDialog::getOpenFileName(
            this, tr("Open capture"), {}, tr("GraphLens captures (*.json *.glcap);;All files (*)"));
        if (!p.isEmpty()) openFile(p);
    });
    addShortcutAction(file, tr("Open &sample"), QKeySequence(tr("Ctrl+Shift+O")),
                      [this] { openSample(); });
    addShortcutAction(file, tr("&Capture workload…"), QKeySequence(tr("Ctrl+Shift+C")), [this] {
        CaptureDialog dialog(worker_, this);
        if (dialog.exec() == QDialog::Accepted) {
            pending_source_.clear();
            worker_->captureWorkload(dialog.request());
        }
    });
    addShortcutAction(file, tr("&Record a program…"), QKeySequence(tr("Ctrl+Alt+R")), [this] {
        RecordDialog dialog(this);
        if (dialog.exec() == QDialog::Accepted) {
            pending_source_.clear();
            worker_->recordProgram(dialog.request());
        }
    });
    recent_menu_ = file->addMenu(tr("Open &recent"));
    file->addSeparator();
    addShortcutAction(file, tr("&Save capture as…"), QKeySequence(tr("Ctrl+Shift+S")), [this] {
        const QString p = QFileDialog::getSaveFileName(this, tr("Save capture"), {},
                                                       tr("GraphLens capture (*.json)"));
        if (!p.isEmpty()) export_->startExport(QStringLiteral("capture"), p);
    });
    createExportMenu(file->addMenu(tr("&Export")));
    file->addSeparator();
    addShortcutAction(file, tr("&Quit"), QKeySequence(tr("Ctrl+Q")), [this] { close(); });
}

// Every export of the Export view, from the menu too (each asks for a file name).
void MainWindow::createExportMenu(QMenu* exp) {
    const struct {
        QString text, format;
        QKeySequence keys;
    } exports[] = {
        {tr("Report (&HTML)…"), QStringLiteral("html"), QKeySequence(tr("Ctrl+E"))},
        {tr("Report (&Markdown)…"), QStringLiteral("md"), QKeySequence(tr("Ctrl+Alt+M"))},
        {tr("Report (&CSV)…"), QStringLiteral("csv"), QKeySequence(tr("Ctrl+Alt+V"))},
        {tr("Report (&JSON)…"), QStringLiteral("json"), QKeySequence(tr("Ctrl+Alt+J"))},
        {tr("Dependency graph (&DOT)…"), QStringLiteral("dot"), QKeySequence(tr("Ctrl+Alt+D"))},
        {tr("Run as Chrome &trace…"), QStringLiteral("trace"), QKeySequence(tr("Ctrl+Alt+T"))},
    };
    for (const auto& e : exports) {
        const QString format = e.format;
        addShortcutAction(exp, e.text, e.keys,
                          [this, format] { export_->askAndExportDocument(format); });
    }
    exp->addSeparator();
    addShortcutAction(exp, tr("View as &PNG…"), QKeySequence(tr("Ctrl+Alt+P")),
                      [this] { export_->askAndExportView(QStringLiteral("png")); });
    addShortcutAction(exp, tr("View as &SVG…"), QKeySequence(tr("Ctrl+Alt+S")),
                      [this] { export_->askAndExportView(QStringLiteral("svg")); });
}

void MainWindow::createNavigateMenu() {
    QMenu* nav = menuBar()->addMenu(tr("&Navigate"));
    auto* back =
        addShortcutAction(nav, tr("&Back"), QKeySequence::Back, [this] { state_->back(); });
    auto* fwd = addShortcutAction(nav, tr("&Forward"), QKeySequence::Forward,
                                  [this] { state_->forward(); });
    connect(state_, &SelectionState::historyChanged, this, [this, back, fwd] {
        back->setEnabled(state_->canGoBack());
        fwd->setEnabled(state_->canGoForward());
    });
    nav->addSeparator();
    addShortcutAction(nav, tr("&Next stage"), QKeySequence(Qt::Key_F8),
                      [this] { state_->nextStage(); });
    addShortcutAction(nav, tr("&Previous stage"), QKeySequence(Qt::SHIFT | Qt::Key_F8),
                      [this] { state_->previousStage(); });
    addShortcutAction(nav, tr("Compare with &previous stage"), QKeySequence(Qt::Key_F7),
                      [this] { state_->setCompareStage(std::max(0, state_->stage() - 1)); });
    addShortcutAction(nav, tr("&Find node…"), QKeySequence::Find, [this] {
        showView(nodes_);
        nodes_->filterEdit()->setFocus();
        nodes_->filterEdit()->selectAll();
    });
    addShortcutAction(nav, tr("Next &match"), QKeySequence(Qt::Key_F3), [this] {
        if (!state_->selectNextMatch(true)) statusBar()->showMessage(tr("No node matches"), 3000);
    });
    addShortcutAction(nav, tr("Pre&vious match"), QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] {
        if (!state_->selectNextMatch(false)) statusBar()->showMessage(tr("No node matches"), 3000);
    });
    addShortcutAction(nav, tr("&Go to node or group…"), QKeySequence(tr("Ctrl+G")),
                      [this] { askGoTo(); });
    addShortcutAction(nav, tr("&Clear selection"), QKeySequence(Qt::Key_Escape),
                      [this] { state_->clearSelection(); });
}

void MainWindow::createRunMenu() {
    QMenu* run = menuBar()->addMenu(tr("&Run"));
    addShortcutAction(run, tr("&Run selected modes"), QKeySequence(tr("Ctrl+R")),
                      [this] { timing_->runSelected(); });
    addShortcutAction(run, tr("&Cancel run"), QKeySequence(tr("Ctrl+Shift+R")),
                      [this] { timing_->cancel(); });
    addShortcutAction(run, tr("Load &second run…"), QKeySequence(tr("Ctrl+Shift+L")),
                      [this] { timing_->loadSecondRun(); });
    addShortcutAction(
        run, tr("Capture one execution in Render&Doc…"), QKeySequence(tr("Ctrl+Shift+D")), [this] {
            const QStringList modes = CoreWorker::executionModes();
            bool ok = false;
            const QString mode = QInputDialog::getItem(
                this, tr("Capture in RenderDoc"), tr("Execution mode:"), modes,
                std::max(0, int(modes.indexOf(QStringLiteral("levels")))), false, &ok);
            if (ok) captureInRenderDoc(mode);
        });
}

void MainWindow::createViewMenu() {
    view_menu_ = menuBar()->addMenu(tr("&View"));
    int n = 1;
    for (QDockWidget* d : findChildren<QDockWidget*>()) {
        QAction* toggle = d->toggleViewAction();
        if (n <= 9) toggle->setShortcut(QKeySequence(QStringLiteral("Ctrl+%1").arg(n++)));
        view_menu_->addAction(toggle);
    }
    view_menu_->addSeparator();
    addShortcutAction(view_menu_, tr("Zoom schedule &in"), QKeySequence::ZoomIn,
                      [this] { schedule_->zoom(1.5, 1); });
    addShortcutAction(view_menu_, tr("Zoom schedule &out"), QKeySequence::ZoomOut,
                      [this] { schedule_->zoom(1 / 1.5, 1); });
    addShortcutAction(view_menu_, tr("&Fit the whole schedule"), QKeySequence(tr("Ctrl+Shift+F")),
                      [this] {
                          showView(schedule_);
                          schedule_->fitAll();
                      });
    addShortcutAction(view_menu_, tr("Reset &layout"), QKeySequence(tr("Ctrl+Shift+0")),
                      [this] { restoreState(default_state_); });
}

void MainWindow::createHelpMenu() {
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    addShortcutAction(help, tr("&About GraphLens"), QKeySequence::HelpContents, [this] {
        QMessageBox::about(this, tr("About GraphLens"),
                           tr("<b>GraphLens</b> — a visual debugger for GPU compute graphs.<br>"
                              "Step through passes, see groups, barriers and the byte ranges "
                              "behind every hazard. See docs/user-guide.md.<br><br>"
                              "Version %1")
                               .arg(QApplication::applicationVersion()));
    });
}

void MainWindow::openFile(const QString& path) {
    pending_source_ = path;
    open_timer_.start();
    worker_->openCapture(path);
}

void MainWindow::askGoTo() {
    if (go_to_) return go_to_->raise();
    go_to_ = new QInputDialog(this);
    go_to_->setAttribute(Qt::WA_DeleteOnClose);
    go_to_->setWindowTitle(tr("Go to"));
    go_to_->setLabelText(tr("Node of this stage (#12) or concurrency group (g5):"));
    connect(go_to_, &QInputDialog::textValueSelected, this, [this](const QString& text) {
        if (!state_->goTo(text))
            statusBar()->showMessage(tr("This stage has no node or group \"%1\"").arg(text), 5000);
    });
    go_to_->open();
}

void MainWindow::openSample() {
    pending_source_.clear();
    open_timer_.start();
    worker_->openSample();
}

void MainWindow::onDocument(DocumentPtr document) {
    const int stage =
        state_->document() ? std::min<int>(state_->stage(), int(document->stage_count()) - 1) : 0;
    state_->setDocument(std::move(document), std::max(0, stage));
    if (!pending_source_.isEmpty()) addRecent(pending_source_);
    pending_source_.clear();
    const DocumentPtr& doc = state_->document();
    // Measured once every view has the document: the time until a user can work with it.
    QString line = tr("Opened %1 (%2): %3 dispatches captured, %4 of %5 stages ready")
                       .arg(QString::fromStdString(doc->title), QString::fromStdString(doc->source))
                       .arg(doc->ready(0) ? doc->analysis(0).dispatch_count : 0)
                       .arg(doc->ready_count())
                       .arg(doc->stage_count());
    if (open_timer_.isValid()) line += tr(" in %1 ms").arg(open_timer_.elapsed());
    log(line);
    qInfo().noquote() << line;
    updateTitle();
    emit documentShown();
    finishIfComplete();
}

void MainWindow::onDocumentUpdate(DocumentPtr document) {
    if (!state_->updateDocument(std::move(document))) return;  // of a superseded open
    updateTitle();
    finishIfComplete();
}

void MainWindow::finishIfComplete() {
    const DocumentPtr& doc = state_->document();
    if (!doc || !doc->complete()) return;
    if (open_timer_.isValid()) {
        const QString line = tr("All %1 stages of %2 ready in %3 ms")
                                 .arg(doc->stage_count())
                                 .arg(QString::fromStdString(doc->title))
                                 .arg(open_timer_.elapsed());
        open_timer_.invalidate();
        log(line);
        qInfo().noquote() << line;
    }
    emit documentComplete();
}

void MainWindow::showError(const QString& what, const QString& message) {
    last_error_ = what + QStringLiteral(": ") + message;
    log(tr("ERROR %1").arg(last_error_));
    qWarning().noquote() << "ERROR" << last_error_;
    pending_source_.clear();
    // Non-blocking: the window (and the open document) stays usable behind the message.
    if (error_box_) error_box_->close();
    error_box_ =
        new QMessageBox(QMessageBox::Warning, tr("GraphLens"), what, QMessageBox::Ok, this);
    error_box_->setInformativeText(message);
    error_box_->setAttribute(Qt::WA_DeleteOnClose);
    error_box_->open();
}

void MainWindow::showView(QWidget* view) {
    for (QDockWidget* d : findChildren<QDockWidget*>())
        if (d->widget() == view) {
            d->show();
            d->raise();
        }
}

QStringList MainWindow::recentFiles() const {
    return QSettings().value(kRecentKey).toStringList();
}

void MainWindow::addRecent(const QString& path) {
    QStringList files = recentFiles();
    const QString abs = QFileInfo(path).absoluteFilePath();
    files.removeAll(abs);
    files.prepend(abs);
    while (files.size() > kMaxRecent) files.removeLast();
    QSettings().setValue(kRecentKey, files);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu() {
    recent_menu_->clear();
    const QStringList files = recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        QAction* a = recent_menu_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(files[i]));
        if (i < 9) a->setShortcut(QKeySequence(QStringLiteral("Alt+Shift+%1").arg(i + 1)));
        const QString path = files[i];
        connect(a, &QAction::triggered, this, [this, path] { openFile(path); });
    }
    recent_menu_->setEnabled(!files.isEmpty());
}

void MainWindow::updateTitle() {
    const DocumentPtr& doc = state_->document();
    if (!doc || doc->stages.empty()) {
        setWindowTitle(tr("GraphLens"));
        return;
    }
    const auto stage = size_t(state_->stage());
    const QString name = QString::fromStdString(doc->stages[stage].name);
    setWindowTitle(tr("%1 — %2 — GraphLens").arg(QString::fromStdString(doc->title), name));
    const QString where =
        tr("Stage %1/%2 \"%3\"").arg(state_->stage() + 1).arg(doc->stage_count()).arg(name);
    if (!doc->ready(stage)) {
        statusBar()->showMessage(where + tr(": computing…"));
        return;
    }
    const StageAnalysis& a = doc->analysis(stage);
    statusBar()->showMessage(
        where + tr(": %1 dispatches, %2 barriers").arg(a.dispatch_count).arg(a.barrier_count));
}

void MainWindow::captureInRenderDoc(const QString& mode) {
    if (!state_->document()) return;
    worker_->captureInRenderDoc(state_->document(), mode, QString());
}

void MainWindow::log(const QString& line) {
    log_->appendPlainText(QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss ")) +
                          line);
}

void MainWindow::prepareScreenshots(const std::function<void()>& ready) {
    saves_layout_ = false;
    restoreState(default_state_);
    resize(1500, 950);
    if (const StageAnalysis* a = state_->analysis())
        for (const BarrierExplanation& b : a->barriers)
            if (!b.forcing.empty()) {
                state_->selectBarrier(b.node_index);
                break;
            }
    // Once: the run's end, its failure (no device here), or three minutes (a large capture on
    // a CPU device; the timing view then shows the run in progress).
    auto once = std::make_shared<bool>(false);
    auto finish = [once, ready] {
        if (std::exchange(*once, true)) return;
        ready();
    };
    connect(worker_, &CoreWorker::runFinished, this, finish, Qt::SingleShotConnection);
    connect(worker_, &CoreWorker::failed, this, finish, Qt::SingleShotConnection);
    QTimer::singleShot(180000, this, finish);
    // The shortest run that fills the view: one timed execution, no warm-up (the figures are
    // not the point; on a CPU device each execution of the 1B sample takes seconds).
    timing_->setCheckedModes({QStringLiteral("serial")});
    timing_->setRepeats(1);
    timing_->setWarmupRuns(0);
    timing_->runSelected();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (!saves_layout_) return QMainWindow::closeEvent(event);
    QSettings settings;
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("windowState"), saveState());
    QMainWindow::closeEvent(event);
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) {
        openFile(urls.first().toLocalFile());
        event->acceptProposedAction();
    }
}

}  // namespace graphlens::gui
