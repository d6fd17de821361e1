#include "app/dependency_graph_view.h"

#include <QGraphicsPathItem>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <cmath>

#include "models/dependency_layout.h"
#include "models/presentation.h"

namespace graphlens::gui {

namespace {

constexpr double kItemW = 150, kItemH = 26;
// Beyond this many items the scene would stop being interactive; the view says so.
constexpr size_t kMaxItems = 6000;

class NodeShape : public QGraphicsRectItem {
  public:
    NodeShape(DependencyGraphView* view, size_t item, const QRectF& r)
        : QGraphicsRectItem(r), view_(view), item_(item) {
        setAcceptHoverEvents(true);
    }

  protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* e) override { e->accept(); }
    void mouseReleaseEvent(QGraphicsSceneMouseEvent*) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent*) override;

  private:
    DependencyGraphView* view_;
    size_t item_;
};

class EdgeShape : public QGraphicsPathItem {
  public:
    EdgeShape(DependencyGraphView* view, size_t edge, const QPainterPath& path)
        : QGraphicsPathItem(path), view_(view), edge_(edge) {}
    QPainterPath shape() const override {
        QPainterPathStroker s;
        s.setWidth(8);  // easier to hit than the 1.5 px line
        return s.createStroke(path());
    }

  protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* e) override { e->accept(); }
    void mouseReleaseEvent(QGraphicsSceneMouseEvent*) override { view_->followEdge(edge_); }

  private:
    DependencyGraphView* view_;
    size_t edge_;
};

class ZoomingView : public QGraphicsView {
  public:
    using QGraphicsView::QGraphicsView;

  protected:
    void wheelEvent(QWheelEvent* e) override {
        if (e->modifiers() & Qt::ControlModifier) {
            const double f = std::pow(1.0015, e->angleDelta().y());
            scale(f, f);
            e->accept();
            return;
        }
        QGraphicsView::wheelEvent(e);
    }
};

}  // namespace

// Defined after the view so it can reach its members.
void NodeShape::mouseReleaseEvent(QGraphicsSceneMouseEvent*) {
    const GraphItem& item = view_->folded().items[item_];
    if (!item.folded) view_->state()->selectNodeIndex(item.nodes.front());
}
void NodeShape::mouseDoubleClickEvent(QGraphicsSceneMouseEvent*) {
    const GraphItem& item = view_->folded().items[item_];
    if (item.folded) view_->openRun(item.first_block);
}

DependencyGraphView::DependencyGraphView(SelectionState* state, QWidget* parent)
    : QWidget(parent), state_(state) {
    scene_ = new QGraphicsScene(this);
    view_ = new ZoomingView(scene_);
    view_->setRenderHint(QPainter::Antialiasing);
    view_->setDragMode(QGraphicsView::ScrollHandDrag);
    view_->setBackgroundBrush(palette().color(QPalette::Base));
    info_ = new QLabel;
    auto* fold = new QPushButton(tr("Fold all"));
    connect(fold, &QPushButton::clicked, this, &DependencyGraphView::foldAll);
    auto* legend = new QLabel(tr("Edges: <span style='color:%1'>■ RAW</span> "
                                 "<span style='color:%2'>■ WAR</span> "
                                 "<span style='color:%3'>■ WAW</span> — click an edge "
                                 "to follow it, double-click ×N to open, Ctrl+wheel zooms")
                                  .arg(hazardColor(HazardKind::raw).name(),
                                       hazardColor(HazardKind::war).name(),
                                       hazardColor(HazardKind::waw).name()));
    auto* top = new QHBoxLayout;
    top->addWidget(info_, 1);
    top->addWidget(fold);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(legend);
    layout->addWidget(view_, 1);
    connect(state_, &SelectionState::documentChanged, this, [this] { opened_.clear(); });
    connect(state_, &SelectionState::stageChanged, this, &DependencyGraphView::invalidate);
    connect(state_, &SelectionState::stageArrived, this, [this](int stage) {
        if (stage == state_->stage()) invalidate();
    });
    connect(state_, &SelectionState::selectionChanged, this, &DependencyGraphView::highlight);
    connect(state_, &SelectionState::filterChanged, this, &DependencyGraphView::applyFilter);
}

void DependencyGraphView::applyFilter() {
    const Snapshot* s = state_->snapshot();
    if (dirty_ || !s) return;
    const NodeFilter& filter = state_->nodeFilter();
    for (size_t i = 0; i < item_shapes_.size(); ++i) {
        // A folded run matches when any dispatch in it does.
        bool match = filter.empty();
        for (size_t n : folded_.items[i].nodes)
            if (match || (match = filter.matches(s->graph, n))) break;
        item_shapes_[i]->setOpacity(match ? 1.0 : 0.25);
    }
}

bool DependencyGraphView::itemDimmed(size_t item) {
    folded();  // built if out of date
    return item < item_shapes_.size() && item_shapes_[item]->opacity() < 1.0;
}

bool DependencyGraphView::laidOutByGraphviz() {
    folded();  // built if out of date
    return by_graphviz_;
}

void DependencyGraphView::invalidate() {
    dirty_ = true;
    // A dock behind another tab stays "visible" but has no visible region.
    if (isVisible() && !visibleRegion().isEmpty()) rebuild();
}

void DependencyGraphView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    revealed();
}

void DependencyGraphView::revealed() {
    if (dirty_) rebuild();
}

const FoldedGraph& DependencyGraphView::folded() {
    if (dirty_) rebuild();
    return folded_;
}

void DependencyGraphView::openRun(int first_block) {
    opened_.insert(first_block);
    rebuild();
}

void DependencyGraphView::foldAll() {
    opened_.clear();
    rebuild();
}

void DependencyGraphView::followEdge(size_t edge) {
    const GraphEdge& e = folded_.edges[edge];
    const StageAnalysis* a = state_->analysis();
    const Hazard& h = a->hazards[e.hazard];
    // Go to the end we are not on: from the earlier end (or from nothing) to the later one.
    const auto sel = state_->selectedNodeIndex();
    const long here = sel ? folded_.item_of_node[*sel] : -1;
    const bool at_later = here >= 0 && static_cast<size_t>(here) == e.to;
    const size_t target = at_later ? h.earlier : h.later;
    state_->selectNodeIndex(target);
}

void DependencyGraphView::rebuild() {
    dirty_ = false;
    scene_->clear();
    item_shapes_.clear();
    folded_ = {};
    by_graphviz_ = false;
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    if (!s || !a) {
        info_->setText(state_->stagePending() ? tr("This stage is being computed…") : QString());
        return;
    }
    folded_ = fold_graph(s->graph, *a, opened_);
    if (folded_.items.size() > kMaxItems) {
        info_->setText(tr("%1 items after folding: too many to draw; use the schedule view")
                           .arg(folded_.items.size()));
        folded_ = {};
        return;
    }
    const DependencyLayout placed = layout_dependency_graph(folded_);
    by_graphviz_ = placed.by_graphviz;
    const QString counts = tr("%1 dispatches as %2 items in %3 levels, %4 edges")
                               .arg(s->graph->dispatch_count())
                               .arg(folded_.items.size())
                               .arg(folded_.levels)
                               .arg(folded_.edges.size());
    info_->setText(placed.note.isEmpty() ? counts : counts + QStringLiteral(" — ") + placed.note);
    for (size_t e = 0; e < folded_.edges.size(); ++e) {
        const GraphEdge& edge = folded_.edges[e];
        const Hazard& h = a->hazards[edge.hazard];
        auto* item = new EdgeShape(this, e, placed.edge_paths[e]);
        item->setPen(QPen(hazardColor(h.kind), 1.5));
        item->setToolTip(
            tr("%1 %2 → %3\n%4%5")
                .arg(hazardName(h.kind), nodeTitle(s->graph, h.earlier),
                     nodeTitle(s->graph, h.later), formatRange(s->graph, h.overlap()))
                .arg(edge.count > 1
                         ? tr("\n(+%1 more hazards between these items)").arg(edge.count - 1)
                         : QString()));
        item->setZValue(0);
        scene_->addItem(item);
    }
    for (size_t i = 0; i < folded_.items.size(); ++i) {
        const GraphItem& it = folded_.items[i];
        auto* shape = new NodeShape(this, i, placed.item_rects[i]);
        const Node& first = s->graph->nodes[it.nodes.front()];
        QColor fill = it.folded ? QColor(0xee, 0xee, 0xee) : opColor(first.op).lighter(130);
        shape->setBrush(fill);
        shape->setPen(QPen(Qt::black, 1, it.folded ? Qt::DashLine : Qt::SolidLine));
        shape->setToolTip(it.folded
                              ? tr("%1 identical layers (%2 dispatches); double-click to open")
                                    .arg(it.block_count)
                                    .arg(it.nodes.size())
                              : QStringLiteral("%1\n%2, level %3")
                                    .arg(nodeTitle(s->graph, it.nodes.front()), opName(first.op))
                                    .arg(a->level[it.nodes.front()]));
        shape->setZValue(1);
        scene_->addItem(shape);
        auto* text = new QGraphicsSimpleTextItem(it.label, shape);
        QFont f = text->font();
        f.setPointSizeF(8);
        f.setBold(it.folded);
        text->setFont(f);
        const QRectF r = shape->rect();
        text->setPos(r.left() + 4, r.center().y() - text->boundingRect().height() / 2);
        if (text->boundingRect().width() > r.width() - 8)
            text->setText(QFontMetrics(f).elidedText(it.label, Qt::ElideLeft, int(r.width()) - 8));
        item_shapes_.push_back(shape);
    }
    scene_->setSceneRect(scene_->itemsBoundingRect().adjusted(-20, -20, 20, 20));
    view_->ensureVisible(QRectF(scene_->sceneRect().topLeft(), QSizeF(kItemW, kItemH)));
    applyFilter();
    highlight();
}

void DependencyGraphView::highlight() {
    if (dirty_ || item_shapes_.empty()) return;
    const auto sel = state_->selectedNodeIndex();
    for (size_t i = 0; i < item_shapes_.size(); ++i) {
        QPen pen = item_shapes_[i]->pen();
        pen.setWidthF(1);
        item_shapes_[i]->setPen(pen);
    }
    if (!sel || *sel >= folded_.item_of_node.size()) return;
    const long item = folded_.item_of_node[*sel];
    if (item < 0) return;
    QGraphicsRectItem* shape = item_shapes_[static_cast<size_t>(item)];
    QPen pen = shape->pen();
    pen.setWidthF(4);
    shape->setPen(pen);
    view_->ensureVisible(shape, 60, 60);
}

}  // namespace graphlens::gui
