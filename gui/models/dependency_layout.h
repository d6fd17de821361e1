#pragma once
// Where the dependency view draws a folded graph's items and edges: laid out by Graphviz's dot
// (graphlens/layout), so ranks follow the hazards, crossings are few and every edge is a spline
// routed around the boxes it passes. A graph too large for dot to lay out in about 2 s, or a
// Graphviz that fails, is drawn by level instead (items in columns by DAG level, edges as
// curves from box to box) with a note that says why.
#include <QPainterPath>
#include <QRectF>
#include <QString>
#include <vector>

#include "models/graph_folding.h"

namespace graphlens::gui {

/// Above this many items dot's layout takes over 2 s on a 2-core machine (docs/benchmarks.md
/// §10): the view draws by level instead.
inline constexpr size_t kGraphvizLayoutMaxItems = 2000;

struct DependencyLayout {
    std::vector<QRectF> item_rects;        ///< per FoldedGraph item
    std::vector<QPainterPath> edge_paths;  ///< per FoldedGraph edge, from its item to its item
    bool by_graphviz = false;
    QString note;  ///< why the graph is drawn by level; empty when Graphviz laid it out
};

/// A folded run is drawn taller than a single dispatch, so it reads as a stack.
QSizeF item_size(const GraphItem& item);

DependencyLayout layout_dependency_graph(const FoldedGraph& folded,
                                         size_t graphviz_max_items = kGraphvizLayoutMaxItems);

}  // namespace graphlens::gui
