#pragma once
// The node pane's "Stages inside" table: the stages a dispatch does inside one dispatch,
// ordered by arrival counters instead of a barrier (graphlens/graph/internal_stages.h, the one
// source the CLI's `passes --show-stages` prints too): each stage with its ordering and
// counter, the bytes it reads and writes, then the hazards between stages the counters keep.
#include <QAbstractTableModel>

#include "graphlens/graph/internal_stages.h"
#include "models/document.h"

namespace graphlens::gui {

class InternalStagesModel : public QAbstractTableModel {
    Q_OBJECT
  public:
    enum class RowKind { stage, read, write, hazard };
    enum Column { Stage, What, Bytes, ColumnCount };
    /// RowKindRole: the RowKind as int; StageRole: the stage's index (the later stage's for a
    /// hazard); ItemRole: the index of the access in its list, or of the hazard.
    enum Role { RowKindRole = Qt::UserRole + 1, StageRole, ItemRole };
    using QAbstractTableModel::QAbstractTableModel;

    /// The stages of node `node_index` of the document's stage `stage` (none for a node of one
    /// stage, a barrier or a node whose stages name a binding it does not bind: error()).
    void showNode(DocumentPtr document, int stage, size_t node_index);
    void clear();
    const NodeInternalStages& stages() const { return stages_; }
    /// Why a node's stages could not be shown, or empty.
    const QString& error() const { return error_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

  private:
    struct Row {
        RowKind kind;
        size_t stage;
        size_t item;
    };
    QVariant display(const Row& row, int column) const;
    DocumentPtr document_;
    const ComputeGraph* graph_ = nullptr;  ///< the stage's graph, kept alive by document_
    NodeInternalStages stages_;
    std::vector<Row> rows_;
    QString error_;
};

}  // namespace graphlens::gui
