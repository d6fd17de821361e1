#pragma once
// View 6: allocations as rows over a byte axis (each row spans its allocation's size), with
// the reads (upper half, sky blue) and writes (lower half, vermillion) of the selected
// dispatch, or of the two groups around a selected barrier. Hazard overlaps are outlined.
#include <QWidget>

#include "models/selection_state.h"

class QScrollArea;
class QCheckBox;

namespace graphlens::gui {

class MemoryMapCanvas : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryMapCanvas(SelectionState* state, QWidget* parent = nullptr);
    void setShowAll(bool all);
    /// Allocation ids shown, in row order.
    const std::vector<AllocationId>& rows() const { return rows_; }
    void refresh();

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    SelectionState* state_;
    bool show_all_ = false;
    std::vector<AllocationId> rows_;
};

class MemoryMapView : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryMapView(SelectionState* state, QWidget* parent = nullptr);
    MemoryMapCanvas* canvas() const { return canvas_; }

  private:
    MemoryMapCanvas* canvas_;
};

}  // namespace graphlens::gui
