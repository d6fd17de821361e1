// Graphviz's dot layout of boxes: every box placed, none overlapping, edges starting and ending
// on their boxes' borders and passing around the boxes between them.
#include <gtest/gtest.h>

#include <cmath>

#include "graphlens/layout/graph_layout.h"

namespace graphlens::layout {
namespace {

struct Rect {
    double left, top, right, bottom;
};

Rect rect_of(const GraphLayout& l, const LayoutRequest& r, size_t box) {
    const Point c = l.centres[box];
    const Box b = r.boxes[box];
    return {c.x - b.width / 2, c.y - b.height / 2, c.x + b.width / 2, c.y + b.height / 2};
}

bool overlap(const Rect& a, const Rect& b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}

// Distance from p to the rectangle's border (0 on it).
double distance_to_border(const Rect& r, Point p) {
    const bool inside = p.x > r.left && p.x < r.right && p.y > r.top && p.y < r.bottom;
    if (inside) return std::min({p.x - r.left, r.right - p.x, p.y - r.top, r.bottom - p.y});
    const double dx = std::max({r.left - p.x, 0.0, p.x - r.right});
    const double dy = std::max({r.top - p.y, 0.0, p.y - r.bottom});
    return std::hypot(dx, dy);
}

// Points along a cubic Bézier chain p0, (c1, c2, p)…
std::vector<Point> sampled(const std::vector<Point>& chain, int per_segment = 16) {
    std::vector<Point> out;
    for (size_t k = 0; k + 3 < chain.size(); k += 3)
        for (int s = 0; s <= per_segment; ++s) {
            const double t = double(s) / per_segment, u = 1 - t;
            const double a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
            out.push_back(
                {a * chain[k].x + b * chain[k + 1].x + c * chain[k + 2].x + d * chain[k + 3].x,
                 a * chain[k].y + b * chain[k + 1].y + c * chain[k + 2].y + d * chain[k + 3].y});
        }
    return out;
}

// A chain a → b → c → d → e with a shortcut a → e that must pass the boxes in between, two
// branches off b, and a box (f) of another size.
LayoutRequest small_graph() {
    LayoutRequest r;
    r.boxes = {{150, 26}, {150, 26}, {150, 26}, {150, 26}, {150, 26}, {150, 42}, {80, 26}};
    r.edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 4}, {1, 5}, {1, 6}, {5, 3}, {6, 3}};
    return r;
}

TEST(GraphLayout, PlacesEveryBoxInsideTheDrawing) {
    const LayoutRequest r = small_graph();
    const GraphLayout l = layout_with_graphviz(r);
    ASSERT_EQ(l.centres.size(), r.boxes.size());
    for (size_t i = 0; i < r.boxes.size(); ++i) {
        const Rect box = rect_of(l, r, i);
        EXPECT_GE(box.left, -0.5) << i;
        EXPECT_GE(box.top, -0.5) << i;
        EXPECT_LE(box.right, l.width + 0.5) << i;
        EXPECT_LE(box.bottom, l.height + 0.5) << i;
    }
}

TEST(GraphLayout, NoTwoBoxesOverlap) {
    const LayoutRequest r = small_graph();
    const GraphLayout l = layout_with_graphviz(r);
    for (size_t i = 0; i < r.boxes.size(); ++i)
        for (size_t j = i + 1; j < r.boxes.size(); ++j)
            EXPECT_FALSE(overlap(rect_of(l, r, i), rect_of(l, r, j))) << i << " and " << j;
}

TEST(GraphLayout, EdgesStartAndEndOnTheirBoxes) {
    const LayoutRequest r = small_graph();
    const GraphLayout l = layout_with_graphviz(r);
    ASSERT_EQ(l.splines.size(), r.edges.size());
    for (size_t e = 0; e < r.edges.size(); ++e) {
        const std::vector<Point>& s = l.splines[e];
        ASSERT_GE(s.size(), 4u) << e;
        ASSERT_EQ((s.size() - 1) % 3, 0u) << e;
        EXPECT_LT(distance_to_border(rect_of(l, r, r.edges[e].from), s.front()), 1.5) << e;
        EXPECT_LT(distance_to_border(rect_of(l, r, r.edges[e].to), s.back()), 1.5) << e;
    }
}

TEST(GraphLayout, EdgesPassAroundTheBoxesTheyDoNotJoin) {
    const LayoutRequest r = small_graph();
    const GraphLayout l = layout_with_graphviz(r);
    for (size_t e = 0; e < r.edges.size(); ++e)
        for (size_t b = 0; b < r.boxes.size(); ++b) {
            if (b == r.edges[e].from || b == r.edges[e].to) continue;
            const Rect box = rect_of(l, r, b);
            const Rect inner{box.left + 1, box.top + 1, box.right - 1, box.bottom - 1};
            for (Point p : sampled(l.splines[e]))
                ASSERT_FALSE(p.x > inner.left && p.x < inner.right && p.y > inner.top &&
                             p.y < inner.bottom)
                    << "edge " << e << " crosses box " << b;
        }
}

TEST(GraphLayout, LeftToRightPutsEveryEdgesTargetRightOfItsSource) {
    const LayoutRequest r = small_graph();
    const GraphLayout l = layout_with_graphviz(r);
    for (const Edge& e : r.edges) EXPECT_LT(l.centres[e.from].x, l.centres[e.to].x);
}

TEST(GraphLayout, TopToBottomPutsEveryEdgesTargetBelowItsSource) {
    LayoutRequest r = small_graph();
    r.direction = Direction::top_to_bottom;
    const GraphLayout l = layout_with_graphviz(r);
    for (const Edge& e : r.edges) EXPECT_LT(l.centres[e.from].y, l.centres[e.to].y);
}

TEST(GraphLayout, ParallelEdgesEachGetASpline) {
    LayoutRequest r;
    r.boxes = {{100, 20}, {100, 20}};
    r.edges = {{0, 1}, {0, 1}};
    const GraphLayout l = layout_with_graphviz(r);
    ASSERT_EQ(l.splines.size(), 2u);
    EXPECT_FALSE(l.splines[0].empty());
    EXPECT_FALSE(l.splines[1].empty());
}

TEST(GraphLayout, AnEdgeToAMissingBoxIsRefused) {
    LayoutRequest r;
    r.boxes = {{100, 20}};
    r.edges = {{0, 3}};
    EXPECT_THROW(layout_with_graphviz(r), std::invalid_argument);
}

TEST(GraphLayout, NoBoxesGiveAnEmptyDrawing) {
    const GraphLayout l = layout_with_graphviz({});
    EXPECT_TRUE(l.centres.empty());
    EXPECT_EQ(l.width, 0);
}

}  // namespace
}  // namespace graphlens::layout
