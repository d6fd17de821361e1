#pragma once
// The conflict inspector's fusion table: the fusion pass's diagnostics of a stage.
#include <QAbstractTableModel>
#include <optional>

#include "models/document.h"

namespace graphlens::gui {

/// Fusion diagnostics of one stage: applied fusions and near misses with their reasons,
/// optionally only those involving one dispatch id.
class FusionModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum Column { Pattern, Applied, Nodes, Reason, ColumnCount };
    using QAbstractTableModel::QAbstractTableModel;

    /// Lists the diagnostics of every stage up to `stage` (fusion happens in one stage but its
    /// reasons stay relevant after it); `only` limits them to chains containing that id.
    void setStage(DocumentPtr document, int stage, std::optional<NodeId> only = std::nullopt);
    const FusionDiagnostic& diagnostic(int row) const { return *rows_[static_cast<size_t>(row)]; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    DocumentPtr document_;
    std::vector<const FusionDiagnostic*> rows_;
};

}  // namespace graphlens::gui
