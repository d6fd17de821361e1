#pragma once
// One side of the pass stepper's side-by-side comparison of two stages: the nodes of that
// side in order, each marked with what changed against the other side.
#include <QAbstractListModel>

#include "models/document.h"

namespace graphlens::gui {

enum class NodeChange {
    none,
    moved,            ///< a dispatch whose relative order changed
    fused,            ///< (right side) a fused dispatch; (left side) a dispatch absorbed by one
    barrier_added,    ///< (right side) a barrier between dispatches that shared a group before
    barrier_removed,  ///< (left side) a barrier whose neighbours share a group afterwards
};

/// Per node index of `after`: what changed against `before`. Barriers are matched by the
/// dispatches around them, since a barrier has no identity of its own.
std::vector<NodeChange> compare_stages(const Document& doc, int before, int after);

class StageCompareModel : public QAbstractListModel {
    Q_OBJECT
  public:
    enum Role { ChangeRole = Qt::UserRole + 1, NodeIndexRole };
    using QAbstractListModel::QAbstractListModel;

    /// Shows stage `shown`, marked against stage `other` (left side when shown < other).
    void setStages(DocumentPtr document, int shown, int other);
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    static QString changeName(NodeChange c);

  private:
    DocumentPtr document_;
    int shown_ = 0;
    bool left_ = false;  ///< showing the earlier stage: fused means absorbed
    std::vector<NodeChange> changes_;
};

}  // namespace graphlens::gui
