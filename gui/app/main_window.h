#pragma once
// The main window: one SelectionState shared by every dock, one CoreWorker for all work that
// could block, menus whose actions all carry shortcuts, persisted layout and recent files.
#include <QElapsedTimer>
#include <QInputDialog>
#include <QMainWindow>
#include <QPointer>
#include <functional>

#include "app/core_worker.h"
#include "models/selection_state.h"

class QPlainTextEdit;
class QLabel;
class QMessageBox;

namespace graphlens::gui {

class PassStepperView;
class NodeTableView;
class ScheduleView;
class DependencyGraphView;
class ConflictInspectorView;
class MemoryMapView;
class TimingView;
class ExportView;

class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    SelectionState* state() const { return state_; }
    CoreWorker* worker() const { return worker_; }
    PassStepperView* passStepper() const { return stepper_; }
    NodeTableView* nodeTable() const { return nodes_; }
    ScheduleView* scheduleView() const { return schedule_; }
    DependencyGraphView* dependencyGraph() const { return graph_; }
    ConflictInspectorView* conflictInspector() const { return inspector_; }
    MemoryMapView* memoryMap() const { return memory_; }
    TimingView* timingView() const { return timing_; }
    ExportView* exportView() const { return export_; }
    /// Each view by its dock title, for screenshots and the export view.
    QList<QPair<QString, QWidget*>> views() const;
    /// The last error shown to the user (for tests; the dialog itself is non-blocking).
    QString lastError() const { return last_error_; }
    QStringList recentFiles() const;
    /// Brings the dock holding `view` to the front (tabbed docks hide each other).
    void showView(QWidget* view);
    /// Ctrl+G: asks (without blocking) for a node ("#12") or a group ("g5") of the current
    /// stage and selects it (SelectionState::goTo).
    void askGoTo();
    /// The open "go to" dialog, null when none is open.
    QInputDialog* goToDialog() const { return go_to_; }
    /// For --screenshots: the default size and layout (the user's saved layout is neither
    /// shown nor overwritten on quit), a forced barrier selected so the inspector and the
    /// memory map have something to show, and a run of `serial` with one repeat for the
    /// timing view. `ready` is
    /// called when the run is over (or could not be made).
    void prepareScreenshots(const std::function<void()>& ready);

    /// Run → Capture one execution in RenderDoc: `mode` of the captured graph through the
    /// worker (CoreWorker::captureInRenderDoc); the log names the .rdc file.
    void captureInRenderDoc(const QString& mode);

  public slots:
    void openFile(const QString& path);
    void openSample();
    void showError(const QString& what, const QString& message);

  signals:
    /// A document arrived from the worker and is now shown (at least its captured stage;
    /// the other stages may still be computed).
    void documentShown();
    /// Every stage of the shown document is there.
    void documentComplete();

  protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

  private:
    void createDocks();
    void createMenus();
    void createFileMenu();
    void createExportMenu(QMenu* exp);
    void createNavigateMenu();
    void createRunMenu();
    void createViewMenu();
    void createHelpMenu();
    template <typename Slot>
    QAction* addShortcutAction(QMenu* menu, const QString& text, const QKeySequence& keys,
                               Slot&& slot);
    void onDocument(DocumentPtr document);
    void onDocumentUpdate(DocumentPtr document);
    void finishIfComplete();
    void addRecent(const QString& path);
    void updateRecentMenu();
    void updateTitle();
    void log(const QString& line);

    SelectionState* state_;
    CoreWorker* worker_;
    PassStepperView* stepper_ = nullptr;
    NodeTableView* nodes_ = nullptr;
    ScheduleView* schedule_ = nullptr;
    DependencyGraphView* graph_ = nullptr;
    ConflictInspectorView* inspector_ = nullptr;
    MemoryMapView* memory_ = nullptr;
    TimingView* timing_ = nullptr;
    ExportView* export_ = nullptr;
    QPlainTextEdit* log_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QMenu* view_menu_ = nullptr;
    QLabel* busy_ = nullptr;
    QString pending_source_;
    QElapsedTimer open_timer_;  ///< since the open request: the "Opened ... in N ms" log line
    QString last_error_;
    QPointer<QMessageBox> error_box_;
    QPointer<QInputDialog> go_to_;
    QByteArray default_state_;
    bool saves_layout_ = true;  ///< closing saves geometry and dock layout to QSettings
};

}  // namespace graphlens::gui
