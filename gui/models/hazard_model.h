#pragma once
// The conflict inspector's table: hazards into and out of the selected dispatch, or the
// hazards that force a selected barrier.
#include <QAbstractTableModel>

#include "models/document.h"

namespace graphlens::gui {

class HazardModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum class Direction { in, out, forcing, unsynchronised };
    struct Row {
        size_t hazard = 0;  ///< index into StageAnalysis::hazards
        Direction direction = Direction::in;
    };
    enum Column { Relation, Kind, Earlier, Later, Range, Bytes, ColumnCount };
    /// The node on the far side of the hazard from the selection (for "follow").
    enum Role { OtherNodeRole = Qt::UserRole + 1, HazardIndexRole };
    using QAbstractTableModel::QAbstractTableModel;

    void setRows(DocumentPtr document, int stage, std::vector<Row> rows);
    /// Hazards in and out of one dispatch.
    void showNode(DocumentPtr document, int stage, size_t node_index);
    /// Hazards forcing a barrier (empty for a redundant one).
    void showBarrier(DocumentPtr document, int stage, size_t barrier_node_index);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    DocumentPtr document_;
    int stage_ = 0;
    std::vector<Row> rows_;
};

}  // namespace graphlens::gui
