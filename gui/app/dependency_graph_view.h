#pragma once
// View 4: the hazard DAG, laid out left to right by Graphviz's dot (models/dependency_layout.h:
// edges are splines routed around the boxes; a graph too large for dot is drawn by level with a
// note), edges coloured RAW/WAR/WAW with the byte ranges in their tooltips. Repeated transformer
// layers fold into one "×N" item (double-click opens it, "Fold all" closes it again). Clicking an
// edge follows it to its other end; clicking an item selects it. The scene is built only while the
// view is shown (it is usually a tab behind the node table): opening a large capture does not pay
// for it.
#include <QGraphicsView>
#include <set>

#include "models/graph_folding.h"
#include "models/selection_state.h"

class QGraphicsScene;
class QGraphicsRectItem;
class QLabel;

namespace graphlens::gui {

class DependencyGraphView : public QWidget {
    Q_OBJECT
  public:
    explicit DependencyGraphView(SelectionState* state, QWidget* parent = nullptr);
    /// The folded graph of the current stage (built now if the view has not been shown since
    /// the stage changed).
    const FoldedGraph& folded();
    QGraphicsView* view() const { return view_; }
    /// Opens a folded run (as a double-click does).
    void openRun(int first_block);
    void foldAll();
    /// Selects the other end of an edge relative to the current selection.
    void followEdge(size_t edge);
    SelectionState* state() const { return state_; }
    /// The view came on screen (its dock's tab was selected): builds the scene if it is out
    /// of date.
    void revealed();
    /// Whether an item is dimmed because the shared filter matches none of its dispatches.
    bool itemDimmed(size_t item);
    /// Whether Graphviz laid the current scene out (else it is drawn by level, and the line
    /// above the graph says why).
    bool laidOutByGraphviz();

  protected:
    void showEvent(QShowEvent* event) override;

  private:
    /// Marks the scene out of date; rebuilds it at once when the view is visible.
    void invalidate();
    void rebuild();
    void highlight();
    void applyFilter();

    SelectionState* state_;
    QGraphicsView* view_;
    QGraphicsScene* scene_;
    QLabel* info_;
    FoldedGraph folded_;
    std::set<int> opened_;
    std::vector<QGraphicsRectItem*> item_shapes_;
    bool dirty_ = true;
    bool by_graphviz_ = false;
};

}  // namespace graphlens::gui
