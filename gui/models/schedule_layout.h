#pragma once
// Geometry of the schedule view, kept apart from painting so it can be tested: concurrency
// groups are columns (left to right in schedule order), the dispatches of a group are boxes
// stacked in its column, a barrier is a vertical line in the gap before a column, a race a
// line joining its two boxes. Only the visible columns are ever visited, which keeps a
// 100k-dispatch schedule smooth.
#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <cstddef>
#include <vector>

namespace graphlens::gui {

class ScheduleLayout {
  public:
    struct Hit {
        enum class Kind { none, dispatch, barrier };
        Kind kind = Kind::none;
        size_t group = 0;  ///< dispatch: its column; barrier: the column right after the line
        size_t slot = 0;   ///< dispatch: position inside the group
    };

    void setGroups(std::vector<size_t> group_sizes);
    /// Zoom: column width and box height in pixels (clamped to a sensible range).
    void setScale(double column_width, double box_height);
    double columnWidth() const { return column_width_; }
    double boxHeight() const { return box_height_; }
    double gap() const;

    size_t groupCount() const { return sizes_.size(); }
    size_t maxGroupSize() const { return max_size_; }
    double width() const;
    double height() const;
    double columnX(size_t group) const;
    /// x of the barrier line before `group` (group >= 1).
    double barrierX(size_t group) const;
    QRectF boxRect(size_t group, size_t slot) const;
    /// Columns that intersect [x0, x1): first and one-past-last.
    std::pair<size_t, size_t> visibleGroups(double x0, double x1) const;
    /// Boxes are drawn one by one only when they are big enough to see; otherwise each column
    /// is one bar whose height shows the group size (level of detail).
    bool detailed() const { return column_width_ >= 4 && box_height_ >= 3; }
    /// Columns narrower than a pixel with their gaps (the overview: zoomed out below
    /// kMinDetailColumnWidth, gaps shrink with the columns, so a whole 85k-group schedule fits
    /// a window; the view then draws one bar per pixel and no barrier lines).
    bool overview() const { return column_width_ + gap() < 1.0; }
    /// The column width at which the whole schedule is `pixels` wide (clamped).
    double columnWidthToFit(double pixels) const;
    Hit hitTest(QPointF p) const;
    /// A race between the box (group_a, slot_a) and the later box (group_b, slot_b): a curve
    /// from the right edge of the first to the left edge of the second, or, inside one column,
    /// a bracket in the gap to its right (so it never hides behind the boxes between).
    QPainterPath racePath(size_t group_a, size_t slot_a, size_t group_b, size_t slot_b) const;
    /// A point of racePath in the gap next to the earlier box, outside every box: where a click
    /// or a tooltip finds the race.
    QPointF raceHandle(size_t group_a, size_t slot_a, size_t group_b, size_t slot_b) const;

    /// Below kMinDetailColumnWidth the gap is 4 columns wide (continuous with the 1 px gap
    /// above it), down to kMinColumnWidth: 240k groups in 1200 pixels.
    static constexpr double kMinColumnWidth = 0.001, kMaxColumnWidth = 400;
    static constexpr double kMinDetailColumnWidth = 0.25;
    static constexpr double kDefaultColumnWidth = 64;
    static constexpr double kMinBoxHeight = 0.5, kMaxBoxHeight = 200;

  private:
    std::vector<size_t> sizes_;
    size_t max_size_ = 0;
    double column_width_ = kDefaultColumnWidth, box_height_ = 14;
};

}  // namespace graphlens::gui
