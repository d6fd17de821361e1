#pragma once
// The conflict inspector's race list: every race of a stage (a hazard that no barrier between
// its two commands orders), with the core's reason for each barrier between them.
#include <QAbstractTableModel>

#include "models/document.h"

namespace graphlens::gui {

class RaceModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Kind, Earlier, Later, Range, Barriers, ColumnCount };
    enum Role {
        RaceIndexRole = Qt::UserRole + 1,  ///< index into StageAnalysis::races
        HazardIndexRole,                   ///< the race's hazard_position
        EarlierNodeRole,
        LaterNodeRole,
    };
    using QAbstractTableModel::QAbstractTableModel;

    /// The races of one ready stage (none for a null document).
    void setStage(DocumentPtr document, int stage);
    /// Row of a race index (rows are race indices).
    QModelIndex indexOfRace(size_t race, int column = 0) const { return index(int(race), column); }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

    /// "no barrier between", or each barrier between and why it does not order the race
    /// ("#4 barrier: its stages order compute before compute, not compute before transfer").
    static QString barriersText(const ComputeGraph& graph, const Race& race);

  private:
    const StageAnalysis* analysis() const;
    DocumentPtr document_;
    int stage_ = 0;
};

}  // namespace graphlens::gui
