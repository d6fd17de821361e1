#pragma once
// The dependency graph as an SVG picture, laid out by Graphviz's dot through graphlens/layout
// (the GUI's dependency view lays out with the same code): the dispatches and edges that
// dependency_dot selects, top to bottom, each box with its label, op and node index, each edge a
// spline routed around the boxes, coloured by hazard kind (fences grey and dashed) with its
// hazard and bytes as the tooltip. `graphlens-cli dot --svg` is the CLI face; it needs no
// Graphviz program, only its libraries. Concurrency groups are not boxed (DOT output does that).
#include <string>

#include "graphlens/capture/dot_export.h"

namespace graphlens {

/// Throws std::invalid_argument for a selection as dependency_dot does, and
/// graphlens::layout::LayoutError when Graphviz fails.
std::string dependency_svg(const ComputeGraph& graph, const DotOptions& options = {});

}  // namespace graphlens
