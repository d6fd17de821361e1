#pragma once
// The pass stepper's list: one row per pipeline stage with its schedule statistics; a stage
// the worker is still computing shows "computing…". The tooltips say what a race is. Every number
// comes from the stage's analysis (counted once in the worker): data() runs for every cell on each
// paint.
#include <QAbstractTableModel>
#include <vector>

#include "models/document.h"

namespace graphlens::gui {

class StageListModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column {
        Stage,
        Dispatches,
        Barriers,
        Redundant,
        Groups,
        LowerBound,
        Hazards,
        Races,
        Reordered,
        PassTime,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;

    void setDocument(DocumentPtr document);
    /// A newer version of the same document: the rows of stages that arrived change.
    void updateDocument(DocumentPtr newer);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
    /// What the Races column counts, for its header's and its cells' tooltips.
    static QString raceDefinition();

  private:
    DocumentPtr document_;
};

}  // namespace graphlens::gui
