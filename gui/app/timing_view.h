#pragma once
// View 7: run the chosen execution modes in the worker (progress, cancel), a bar chart per
// mode (GPU, CPU encode, wall; the GPU spread in the table and the bar tooltips), the
// per-dispatch Gantt when the run was profiled, and a second run loaded for comparison.
#include <QWidget>

#include "app/core_worker.h"
#include "models/selection_state.h"
#include "models/timing_model.h"

class QListWidget;
class QSpinBox;
class QCheckBox;
class QProgressBar;
class QPushButton;
class QTableView;
class QLabel;
class QChartView;
class QChart;

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
    /// Dispatches on the per-dispatch timeline (0 unless the run was profiled).
    size_t ganttDispatches() const;

  public slots:
    void runSelected();
    void cancel();
    void loadSecondRun();
    void showRun(const RunResult& run);
    void showSecondRun(const RunResult& run, const QString& source);

  private:
    void rebuildChart();

    SelectionState* state_;
    CoreWorker* worker_;
    TimingModel model_;
    std::optional<RunResult> run_, second_;
    QListWidget* modes_;
    QSpinBox* repeats_;
    QCheckBox* profile_;
    QPushButton* run_button_;
    QPushButton* cancel_button_;
    QProgressBar* progress_;
    QLabel* status_;
    QChartView* chart_view_;
    QTableView* table_;
    GanttChart* gantt_;
};

}  // namespace graphlens::gui
