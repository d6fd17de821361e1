#pragma once
// Every node of one stage (dispatches and barriers) as a table, and the proxy that sorts it
// and filters it by text (label, op kind, kernel, allocation names).
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <optional>
#include <unordered_map>

#include "models/document.h"
#include "models/node_filter.h"

namespace graphlens::gui {

class NodeTableModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Index,
        Label,
        Op,
        Kernel,
        Workgroups,
        Reads,
        Writes,
        Group,
        Races,  ///< how many races the dispatch is an end of (empty when none)
        GpuTime,
        ColumnCount
    };
    enum Role { NodeIndexRole = Qt::UserRole + 1, IsBarrierRole, SortRole, FilterTextRole };
    using QAbstractTableModel::QAbstractTableModel;

    void setStage(DocumentPtr document, int stage);
    /// The run whose per-dispatch profile fills the GPU time column (by dispatch id, so it
    /// holds for every stage that kept the dispatch); none or unprofiled: the column is empty.
    void setRun(const std::optional<RunResult>& run);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    /// Row of a node index (rows are node indices).
    QModelIndex indexOfNode(size_t node_index, int column = 0) const;
    /// The sort order of two rows by a column, straight from the graph (no QVariant or
    /// QString per comparison: sorting 185k rows by label takes a tenth of the time). The
    /// same order as SortRole gives; barriers before dispatches except by index. Empty for
    /// the columns it does not know (reads, writes).
    std::optional<bool> lessThan(int left_row, int right_row, int column) const;
    /// Whether a row is a barrier / matches a filter, straight from the graph (what the
    /// proxy filters 185k rows with: no QVariant or QString per row).
    bool isBarrierRow(int row) const;
    bool rowMatches(int row, const NodeFilter& filter) const;

  private:
    QVariant barrierData(size_t row, int column, int role) const;
    QVariant dispatchValue(size_t row, int column, bool sort) const;
    const ComputeGraph* graph() const;
    DocumentPtr document_;
    int stage_ = 0;
    std::unordered_map<NodeId, double> gpu_ns_;  ///< per dispatch id, from a profiled run
};

class NodeFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
  public:
    explicit NodeFilterProxy(QObject* parent = nullptr);
    void setText(const QString& text);
    void setShowBarriers(bool show);

    /// Sorting by index, ascending, is the node order itself: no sort at all, so a reset of
    /// a 100k-node stage costs O(rows) mapping instead of O(n log n) comparisons.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;
    void setSourceModel(QAbstractItemModel* model) override;

  protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;
    bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

  private:
    QString text_;
    NodeFilter filter_;
    bool show_barriers_ = true;
    const NodeTableModel* nodes_ = nullptr;  ///< the source when it is a node table
};

}  // namespace graphlens::gui
