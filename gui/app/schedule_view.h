#pragma once
// View 3: the schedule as columns of concurrency groups separated by barrier lines, boxes
// coloured by op kind. Ctrl+wheel zooms (Shift+Ctrl+wheel vertically), dragging pans, a
// click selects a dispatch or a barrier. Painting visits only the visible columns and draws
// whole columns as bars when boxes would be too small to see, so 100k dispatches stay smooth.
#include <QAbstractScrollArea>

#include "models/schedule_layout.h"
#include "models/selection_state.h"

namespace graphlens::gui {

class ScheduleView : public QAbstractScrollArea {
    Q_OBJECT
  public:
    explicit ScheduleView(SelectionState* state, QWidget* parent = nullptr);
    const ScheduleLayout& layout() const { return layout_; }
    /// Zoom by a factor around a viewport x position.
    void zoom(double factor_x, double factor_y, double anchor_x = 0);
    /// Viewport position of a dispatch's box / of the barrier line before a group (for tests).
    QPoint boxCenter(size_t node_index) const;
    QPoint barrierPoint(size_t barrier_node_index) const;
    /// Viewport point on a group's number above its column (a click there selects the group).
    QPoint groupHeaderPoint(size_t group) const;
    /// Whether a node is drawn dimmed because the shared filter does not match it.
    bool dimmed(size_t node_index) const;

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool viewportEvent(QEvent* event) override;

  private:
    void rebuild();
    void updateScrollBars();
    QPointF toContent(QPointF viewport) const;
    /// Node index under a viewport point (dispatch or barrier), if any.
    std::optional<size_t> nodeAt(QPointF viewport) const;
    /// Group whose number is under a viewport point, if any.
    std::optional<size_t> groupHeaderAt(QPointF viewport) const;
    void scrollToSelection();

    SelectionState* state_;
    ScheduleLayout layout_;
    std::vector<long> barrier_before_group_;  ///< node index of the barrier before group g
    std::vector<size_t> slot_of_node_;
    static constexpr int kHeader = 50;  ///< summary, legend and group-number lines
    QPoint drag_origin_;
    QPoint drag_scroll_;
    bool dragging_ = false;
    bool dragged_ = false;
};

}  // namespace graphlens::gui
