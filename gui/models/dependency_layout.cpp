#include "models/dependency_layout.h"

#include <algorithm>

#include "graphlens/layout/graph_layout.h"

namespace graphlens::gui {

namespace {

constexpr double kItemW = 150, kItemH = 26, kColumn = 200, kRow = 36;

QPainterPath path_of(const std::vector<layout::Point>& chain) {
    if (chain.empty()) return {};
    QPainterPath path(QPointF(chain[0].x, chain[0].y));
    for (size_t k = 1; k + 2 < chain.size(); k += 3)
        path.cubicTo(QPointF(chain[k].x, chain[k].y), QPointF(chain[k + 1].x, chain[k + 1].y),
                     QPointF(chain[k + 2].x, chain[k + 2].y));
    return path;
}

DependencyLayout by_graphviz(const FoldedGraph& folded) {
    layout::LayoutRequest request;
    request.direction = layout::Direction::left_to_right;
    for (const GraphItem& item : folded.items) {
        const QSizeF size = item_size(item);
        request.boxes.push_back({size.width(), size.height()});
    }
    for (const GraphEdge& e : folded.edges) request.edges.push_back({e.from, e.to});
    const layout::GraphLayout laid = layout::layout_with_graphviz(request);
    DependencyLayout out;
    out.by_graphviz = true;
    for (size_t i = 0; i < folded.items.size(); ++i) {
        const QSizeF size = item_size(folded.items[i]);
        const QPointF centre(laid.centres[i].x, laid.centres[i].y);
        out.item_rects.emplace_back(centre - QPointF(size.width() / 2, size.height() / 2), size);
    }
    for (const auto& chain : laid.splines) out.edge_paths.push_back(path_of(chain));
    return out;
}

// Columns by DAG level, rows in first-node order; edges from a box's right side to the next
// box's left side. Edges may cross boxes: this is the drawing of last resort.
DependencyLayout by_level(const FoldedGraph& folded) {
    DependencyLayout out;
    for (const GraphItem& it : folded.items) {
        const QSizeF size = item_size(it);
        const double top = it.row * kRow + (it.folded ? -4 : 0);
        out.item_rects.emplace_back(QPointF(it.level * kColumn, top), size);
    }
    for (const GraphEdge& edge : folded.edges) {
        const QRectF from = out.item_rects[edge.from], to = out.item_rects[edge.to];
        const QPointF p0(from.right(), from.center().y()), p1(to.left(), to.center().y());
        QPainterPath path(p0);
        const double dx = std::max(40.0, (p1.x() - p0.x()) / 2);
        path.cubicTo(p0 + QPointF(dx, 0), p1 - QPointF(dx, 0), p1);
        out.edge_paths.push_back(path);
    }
    return out;
}

}  // namespace

QSizeF item_size(const GraphItem& item) {
    return {kItemW, item.folded ? kItemH * 1.6 : kItemH};
}

DependencyLayout layout_dependency_graph(const FoldedGraph& folded, size_t graphviz_max_items) {
    if (folded.items.size() > graphviz_max_items) {
        DependencyLayout out = by_level(folded);
        out.note = QStringLiteral(
                       "Drawn by level: Graphviz would take over 2 s to lay out %1 items (it "
                       "lays out up to %2); edges may cross boxes")
                       .arg(folded.items.size())
                       .arg(graphviz_max_items);
        return out;
    }
    try {
        return by_graphviz(folded);
    } catch (const std::exception& e) {
        DependencyLayout out = by_level(folded);
        out.note = QStringLiteral("Drawn by level: %1").arg(QString::fromUtf8(e.what()));
        return out;
    }
}

}  // namespace graphlens::gui
