#pragma once
// View 7: run the chosen execution modes in the worker (progress, cancel), a bar chart per
// mode (GPU, CPU encode, wall; the GPU spread in the table and the bar tooltips), the
// per-dispatch Gantt when the run was profiled, and a second run loaded for comparison.
#include <QWidget>

#include "app/core_worker.h"
#include "models/selection_state.h"
#include "models/timing_model.h"

class QComboBox;
class QListWidget;
class QSpinBox;
class QCheckBox;
class QProgressBar;
class QPushButton;
class QTableView;
class QLabel;
class QBarSet;
#include <QChartView>

namespace graphlens::gui {

class GanttChart : public QWidget {
    Q_OBJECT
  public:
    explicit GanttChart(SelectionState* state, QWidget* parent = nullptr);
    void setRun(const std::optional<RunResult>& run);
    size_t dispatches() const { return timings_.size(); }

  protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

  private:
    SelectionState* state_;
    std::vector<DispatchTiming> timings_;
    double span_ = 0;
};

/// The bar chart with each bar's spread (min–max over the repeats) drawn as a whisker on it.
class SpreadChartView : public QChartView {
    Q_OBJECT
  public:
    struct Whisker {
        int set = 0;                           ///< bar set (GPU, CPU encode, wall)
        int category = 0;                      ///< mode
        double low = 0, median = 0, high = 0;  ///< in the chart's unit
    };
    using QChartView::QChartView;
    void setWhiskers(std::vector<Whisker> whiskers, int sets);
    const std::vector<Whisker>& whiskers() const { return whiskers_; }

  protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;

  private:
    std::vector<Whisker> whiskers_;
    int sets_ = 1;
};

class TimingView : public QWidget {
    Q_OBJECT
  public:
    TimingView(SelectionState* state, CoreWorker* worker, QWidget* parent = nullptr);
    const TimingModel& model() const { return model_; }
    QChart* chart() const;
    /// Bars per category in the chart (one category per mode).
    int barCount() const;
    QStringList checkedModes() const;
    void setCheckedModes(const QStringList& modes);
    void setProfileDispatches(bool on);
    /// Timed repetitions per mode (the spin box).
    void setRepeats(int repeats);
    /// Untimed runs per mode before the timed ones (1 unless set).
    void setWarmupRuns(int runs) { warmup_runs_ = runs; }
    /// Dispatches on the per-dispatch timeline (0 unless the run was profiled).
    size_t ganttDispatches() const;
    /// The min–max whiskers on the bars (one per bar with samples).
    const std::vector<SpreadChartView::Whisker>& whiskers() const;
    /// The unit of the chart's value axis ("µs" or "ms").
    QString chartUnit() const { return unit_; }
    QString statusText() const;
    /// The line on the first mode whose outputs differ from serial ("" when none), and
    /// whether its button selects the dispatch that wrote the differing byte.
    QString mismatchText() const;
    bool canSelectMismatchWriter() const;
    bool running() const;
    /// What Run would ask for now (checked modes, repeats, profiling, device).
    RunRequest currentRequest() const;
    /// The device picker's entries ("default ...", then "index: name (driver)").
    QStringList devices() const;
    /// Picks the device whose selector (index) is given; false when it is not listed.
    bool setDevice(const QString& selector);
    /// Asks the worker for the device list (done when the picker is first opened).
    void listDevices();

  public slots:
    void runSelected();
    void cancel();
    void loadSecondRun();
    /// A second run (or a capture without timings, run with the checked modes) to compare.
    void loadSecondRunFrom(const QString& path);
    /// Selects the dispatch that last wrote the first differing byte of a failed mode.
    void selectMismatchWriter();

  private:
    QLayout* createControls();
    QWidget* createResults();
    void connectWorker();
    void clearChart();
    double chooseUnit(const RunResult& run);
    void showBarTooltip(bool on, int index, QBarSet* set);
    void showRun(const RunResult& run, quint64 document_id, quint64 run_id);
    void finishRun(const QString& status);
    void refresh();
    void rebuildChart();
    void showMismatch();

    SelectionState* state_;
    CoreWorker* worker_;
    TimingModel model_;
    int warmup_runs_ = RunRequest().warmup;
    QString unit_;
    QListWidget* modes_;
    QSpinBox* repeats_;
    QComboBox* device_;
    bool devices_listed_ = false;
    QCheckBox* profile_;
    QPushButton* run_button_;
    QPushButton* cancel_button_;
    quint64 run_id_ = 0;         ///< the run this view started last
    quint64 cancelled_run_ = 0;  ///< the run its Cancel ended
    QProgressBar* progress_;
    QLabel* status_;
    SpreadChartView* chart_view_;
    QTableView* table_;
    QLabel* mismatch_;
    QPushButton* select_writer_;
    std::optional<NodeId> mismatch_writer_;
    GanttChart* gantt_;
};

}  // namespace graphlens::gui
