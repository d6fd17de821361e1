#pragma once
// View 6: allocations as rows over a byte axis, with the reads (upper half, sky blue) and
// writes (lower half, vermillion) of the selected dispatch, or of the two groups around a
// selected barrier. The overlapping bytes of its hazards (of the dispatch, or the hazards
// that force the barrier) are outlined. Each row spans its whole allocation, or, zoomed (the
// default), the bytes the selection touches in it, with the offsets written under the row.
#include <QRectF>
#include <QWidget>
#include <map>

#include "models/selection_state.h"

class QPainter;
class QScrollArea;
class QCheckBox;

namespace graphlens::gui {

class MemoryMapCanvas : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryMapCanvas(SelectionState* state, QWidget* parent = nullptr);
    void setShowAll(bool all);
    void setZoomed(bool zoomed);
    /// Allocation ids shown, in row order.
    const std::vector<AllocationId>& rows() const { return rows_; }
    /// The byte range [first, second) row `row`'s axis spans.
    std::pair<uint64_t, uint64_t> rowSpan(size_t row) const { return spans_[row]; }
    /// The offsets a row's axis names: the touched bytes' first and end when zoomed, else the
    /// allocation's; never the margin drawn around them.
    std::pair<uint64_t, uint64_t> rowAxisLabels(size_t row) const { return axis_labels_[row]; }
    /// The hazards whose overlapping bytes are outlined (indices into the stage's hazards).
    const std::vector<size_t>& outlinedHazards() const { return hazards_; }
    void refresh();

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    QRectF spanRect(const ByteRange& r, int row, bool upper, double barW) const;
    void paintTitle(QPainter& p, const Snapshot& s) const;
    void paintRow(QPainter& p, const AllocationInfo& a, size_t row, double barW) const;
    void paintAxisLabels(QPainter& p, size_t row, double barW) const;
    void paintAccesses(QPainter& p, const Snapshot& s, const std::map<AllocationId, int>& row_of,
                       double barW) const;
    void paintHazardOutlines(QPainter& p, const std::map<AllocationId, int>& row_of,
                             double barW) const;

    SelectionState* state_;
    bool show_all_ = false;
    bool zoomed_ = true;
    std::vector<AllocationId> rows_;
    std::vector<std::pair<uint64_t, uint64_t>> spans_;
    std::vector<std::pair<uint64_t, uint64_t>> axis_labels_;  ///< per row, see rowAxisLabels
    std::vector<size_t> hazards_;
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
