#pragma once
// The pass stepper's list: one row per pipeline stage with its schedule statistics.
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
        Reordered,
        PassTime,
        ColumnCount
    };
    using QAbstractTableModel::QAbstractTableModel;

    void setDocument(DocumentPtr document);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    struct Counts {
        qulonglong dispatches = 0;
        qulonglong barriers = 0;
    };
    DocumentPtr document_;
    /// Per stage, counted once per document: data() is called for every role of every cell
    /// on each paint, and counting a 100k-dispatch graph there made opening it seconds slower.
    std::vector<Counts> counts_;
};

}  // namespace graphlens::gui
