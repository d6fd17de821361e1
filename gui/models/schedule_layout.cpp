#include "models/schedule_layout.h"

#include <algorithm>
#include <cmath>

namespace graphlens::gui {

void ScheduleLayout::setGroups(std::vector<size_t> group_sizes) {
    sizes_ = std::move(group_sizes);
    max_size_ = sizes_.empty() ? 0 : *std::max_element(sizes_.begin(), sizes_.end());
}

void ScheduleLayout::setScale(double column_width, double box_height) {
    column_width_ = std::clamp(column_width, kMinColumnWidth, kMaxColumnWidth);
    box_height_ = std::clamp(box_height, kMinBoxHeight, kMaxBoxHeight);
}

// The barrier gap scales with the columns but never goes under a pixel, so barriers stay
// visible, until the overview, where nothing is drawn per group any more.
double ScheduleLayout::gap() const {
    if (column_width_ < kMinDetailColumnWidth) return column_width_ * 4;
    return std::max(1.0, column_width_ * 0.35);
}

double ScheduleLayout::columnWidthToFit(double pixels) const {
    const double n = static_cast<double>(std::max<size_t>(1, sizes_.size()));
    // width = n * (w + gap) + gap; in the overview gap = 4w: w = pixels / (5n + 4).
    double w = pixels / (5 * n + 4);
    if (w >= kMinDetailColumnWidth) {
        // Above it the gap is max(1, 0.35w): solve for the larger branch that fits.
        w = std::max(kMinDetailColumnWidth, (pixels - (n + 1)) / n);
        if (w * 0.35 > 1) w = pixels / (1.35 * n + 0.35);
    }
    return std::clamp(w, kMinColumnWidth, kMaxColumnWidth);
}

double ScheduleLayout::width() const {
    return static_cast<double>(sizes_.size()) * (column_width_ + gap()) + gap();
}

double ScheduleLayout::height() const {
    return static_cast<double>(max_size_) * box_height_;
}

double ScheduleLayout::columnX(size_t group) const {
    return gap() + static_cast<double>(group) * (column_width_ + gap());
}

double ScheduleLayout::barrierX(size_t group) const {
    return columnX(group) - gap() / 2;
}

QRectF ScheduleLayout::boxRect(size_t group, size_t slot) const {
    return {columnX(group), static_cast<double>(slot) * box_height_, column_width_, box_height_};
}

std::pair<size_t, size_t> ScheduleLayout::visibleGroups(double x0, double x1) const {
    const double pitch = column_width_ + gap();
    const double first = std::floor((x0 - gap()) / pitch);
    const double last = std::ceil((x1 - gap()) / pitch) + 1;
    const auto clampi = [&](double v) {
        return static_cast<size_t>(std::clamp(v, 0.0, static_cast<double>(sizes_.size())));
    };
    return {clampi(first), clampi(last)};
}

ScheduleLayout::Hit ScheduleLayout::hitTest(QPointF p) const {
    Hit hit;
    if (sizes_.empty() || p.x() < 0 || p.y() < 0) return hit;
    const double pitch = column_width_ + gap();
    const double rel = p.x() - gap();
    const auto g = static_cast<long>(std::floor(rel / pitch));
    const double in_pitch = rel - static_cast<double>(g) * pitch;
    // A barrier line is thin; accept clicks within 3 px of it (or the whole gap if wider).
    const double tolerance = std::max(3.0, gap() / 2);
    auto near_line = [&](size_t group) {
        return group >= 1 && group < sizes_.size() &&
               std::abs(p.x() - barrierX(group)) <= tolerance;
    };
    if (g + 1 >= 0 && near_line(static_cast<size_t>(g + 1)) && in_pitch >= column_width_) {
        hit.kind = Hit::Kind::barrier;
        hit.group = static_cast<size_t>(g + 1);
        return hit;
    }
    if (g >= 0 && in_pitch < column_width_ && static_cast<size_t>(g) < sizes_.size()) {
        const auto slot = static_cast<size_t>(p.y() / box_height_);
        if (slot < sizes_[static_cast<size_t>(g)]) {
            hit.kind = Hit::Kind::dispatch;
            hit.group = static_cast<size_t>(g);
            hit.slot = slot;
            return hit;
        }
    }
    if (g >= 0 && near_line(static_cast<size_t>(g))) {
        hit.kind = Hit::Kind::barrier;
        hit.group = static_cast<size_t>(g);
    }
    return hit;
}

QPainterPath ScheduleLayout::racePath(size_t group_a, size_t slot_a, size_t group_b,
                                      size_t slot_b) const {
    const QRectF a = boxRect(group_a, slot_a), b = boxRect(group_b, slot_b);
    QPainterPath path(QPointF(a.right(), a.center().y()));
    if (group_a == group_b) {
        const double reach = std::clamp(gap() * 0.3, 1.0, 10.0);
        path.lineTo(a.right() + reach, a.center().y());
        path.lineTo(a.right() + reach, b.center().y());
        path.lineTo(b.right(), b.center().y());
        return path;
    }
    const QPointF end(b.left(), b.center().y());
    const double bend = std::max(gap(), (end.x() - a.right()) / 3);
    path.cubicTo(QPointF(a.right() + bend, a.center().y()), QPointF(end.x() - bend, end.y()), end);
    return path;
}

QPointF ScheduleLayout::raceHandle(size_t group_a, size_t slot_a, size_t group_b,
                                   size_t slot_b) const {
    const QPainterPath path = racePath(group_a, slot_a, group_b, slot_b);
    if (group_a == group_b) return (QPointF(path.elementAt(1)) + QPointF(path.elementAt(2))) / 2;
    // A quarter into the gap after the earlier box: clear of boxes and of the barrier line.
    const double x = boxRect(group_a, slot_a).right() + gap() / 4;
    for (int i = 1; i <= 100; ++i) {
        const QPointF p = path.pointAtPercent(i / 100.0);
        if (p.x() >= x) return p;
    }
    return path.pointAtPercent(0.5);
}

}  // namespace graphlens::gui
