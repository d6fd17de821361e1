#pragma once
// Layered drawing of a directed graph of boxes by Graphviz's `dot` engine (gvLayout): ranks
// that follow the edges, crossings minimised, and each edge a spline routed around the boxes
// it passes. Only the geometry comes back: the caller paints (Qt in the GUI, SVG in the CLI),
// so a box's text, colour and tooltips stay the caller's. No Qt, no Vulkan.
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace graphlens::layout {

/// Coordinates are in points, x to the right and y downwards (as Qt and SVG draw), with the
/// drawing's top-left corner at (0, 0).
struct Point {
    double x = 0, y = 0;
};

struct Box {
    double width = 0, height = 0;
};

struct Edge {
    size_t from = 0, to = 0;  ///< box indices
};

enum class Direction { top_to_bottom, left_to_right };

struct LayoutRequest {
    std::vector<Box> boxes;
    std::vector<Edge> edges;
    Direction direction = Direction::left_to_right;
    double box_gap = 12;   ///< between two boxes of one rank
    double rank_gap = 40;  ///< between two ranks
};

struct GraphLayout {
    std::vector<Point> centres;  ///< per box
    /// Per edge: a cubic Bézier chain p0, (c1, c2, p)…, from the border of its `from` box to
    /// the border of its `to` box (no arrowhead: the painter adds one if it wants).
    std::vector<std::vector<Point>> splines;
    double width = 0, height = 0;
};

/// Graphviz failed (its `dot` layout plugin is missing, or it refused the graph).
struct LayoutError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Lays the boxes out with Graphviz's dot. Throws LayoutError, and std::invalid_argument for
/// an edge naming a box that does not exist.
GraphLayout layout_with_graphviz(const LayoutRequest& request);

}  // namespace graphlens::layout
