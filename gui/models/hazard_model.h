#pragma once
// The conflict inspector's table: hazards into and out of the selected dispatch, the hazards
// that force a selected barrier, or a selected race's hazard. A hazard that is a race (no
// barrier between its commands orders it) says so in every list.
#include <QAbstractTableModel>

#include "models/document.h"

namespace graphlens::gui {

class HazardModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum class Direction { in, out, forcing, unsynchronised, race };
    struct Row {
        size_t hazard = 0;  ///< index into StageAnalysis::hazards
        Direction direction = Direction::in;
    };
    enum Column { Relation, Kind, Earlier, Later, Range, Bytes, ColumnCount };
    /// The node on the far side of the hazard from the selection (for "follow").
    enum Role { OtherNodeRole = Qt::UserRole + 1, HazardIndexRole, IsRaceRole };
    using QAbstractTableModel::QAbstractTableModel;

    void setRows(DocumentPtr document, int stage, std::vector<Row> rows);
    /// Hazards in and out of one dispatch.
    void showNode(DocumentPtr document, int stage, size_t node_index);
    /// Hazards forcing a barrier (empty for a redundant one).
    void showBarrier(DocumentPtr document, int stage, size_t barrier_node_index);
    /// The hazard of a race (index into StageAnalysis::races).
    void showRace(DocumentPtr document, int stage, size_t race);
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    static QString relation(Direction direction);
    DocumentPtr document_;
    int stage_ = 0;
    std::vector<Row> rows_;
};

}  // namespace graphlens::gui
