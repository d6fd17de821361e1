#pragma once
// One row per execution mode of a run, with the matching mode of a second run (by name)
// and the difference, so two runs read side by side.
#include <QAbstractTableModel>
#include <optional>

#include "graphlens/results/run_result.h"

namespace graphlens::gui {

class TimingModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Mode,
        Gpu,
        GpuSpread,
        Encode,
        Wall,
        Dispatches,
        Barriers,
        CommandBuffers,
        Outputs,
        SecondGpu,
        Delta,
        ColumnCount
    };
    /// Nanoseconds as a double for the time columns (for charts and sorting).
    enum Role { NanosecondsRole = Qt::UserRole + 1 };
    using QAbstractTableModel::QAbstractTableModel;

    void setRuns(std::optional<RunResult> run, std::optional<RunResult> second = std::nullopt);
    const std::optional<RunResult>& run() const { return run_; }
    const std::optional<RunResult>& secondRun() const { return second_; }
    /// The second run's mode with the same name, if any.
    const ModeResult* secondMode(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    std::optional<RunResult> run_, second_;
};

/// One line on a mode whose outputs differ from serial: the allocation and byte, both
/// values, and the dispatch that writes the byte last ("" for a mode without a mismatch).
QString describeMismatch(const ModeResult& mode);

}  // namespace graphlens::gui
