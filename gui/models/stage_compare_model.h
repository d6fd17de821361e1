#pragma once
// One side of the pass stepper's side-by-side comparison of two stages: the nodes of that
// side in order, each marked with what changed against the other side.
#include <QAbstractListModel>
#include <memory>
#include <vector>

#include "models/document.h"
#include "models/node_filter.h"

namespace graphlens::gui {

enum class NodeChange {
    none,
    moved,            ///< a dispatch whose relative order changed
    fused,            ///< (right side) a fused dispatch; (left side) a dispatch absorbed by one
    barrier_added,    ///< (right side) a barrier between dispatches that shared a group before
    barrier_removed,  ///< (left side) a barrier whose neighbours share a group afterwards
};

/// Per node index of `after`: what changed against `before`. Barriers are matched by the
/// dispatches around them, since a barrier has no identity of its own. Both stages must be
/// ready. O(n log n) over both stages: the worker computes it for large documents.
std::vector<NodeChange> compare_stages(const Document& doc, int before, int after);
using NodeChanges = std::shared_ptr<const std::vector<NodeChange>>;

class StageCompareModel : public QAbstractListModel {
    Q_OBJECT
  public:
    /// FilterMatchRole: whether the row's node matches the shared filter (greyed when not).
    enum Role { ChangeRole = Qt::UserRole + 1, NodeIndexRole, FilterMatchRole };
    using QAbstractListModel::QAbstractListModel;

    /// Shows stage `shown`, marked against stage `other` (left side when shown < other),
    /// comparing them here.
    void setStages(DocumentPtr document, int shown, int other);
    /// The same with the changes already computed (by the worker); null `changes` shows the
    /// rows unmarked (the comparison is not there yet, or the stages are the same). A stage
    /// that is not ready yet has no rows.
    void setStages(DocumentPtr document, int shown, int other, NodeChanges changes);
    /// Whether the rows carry the marks of a comparison.
    bool marked() const { return changes_ != nullptr; }
    void setFilter(const NodeFilter& filter);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    static QString changeName(NodeChange c);

  private:
    const ComputeGraph* graph() const;
    DocumentPtr document_;
    int shown_ = 0;
    bool left_ = false;    ///< showing the earlier stage: fused means absorbed
    NodeChanges changes_;  ///< per row; null: unmarked
    NodeFilter filter_;
};

}  // namespace graphlens::gui
