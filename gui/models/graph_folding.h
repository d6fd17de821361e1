#pragma once
// The dependency graph as the dependency view draws it: dispatches layered by DAG level,
// with runs of identical transformer layers ("blk.N.*" labels whose op sequence repeats)
// folded into one "×N" item that can be opened on demand.
#include <QString>
#include <set>
#include <vector>

#include "models/document.h"

namespace graphlens::gui {

struct GraphItem {
    std::vector<size_t> nodes;  ///< node indices this item stands for (one unless folded)
    bool folded = false;
    int first_block = -1;  ///< folded: first layer of the run (identifies the run)
    int block_count = 0;   ///< folded: number of layers in the run
    QString label;
    int level = 0;  ///< column
    int row = 0;    ///< position inside its column
};

struct GraphEdge {
    size_t from = 0, to = 0;  ///< item indices
    size_t hazard = 0;        ///< a representative hazard (index into StageAnalysis::hazards)
    size_t count = 0;         ///< hazards this edge stands for
};

struct FoldedGraph {
    std::vector<GraphItem> items;
    std::vector<GraphEdge> edges;
    std::vector<long> item_of_node;  ///< per node index; -1 for barriers
    int levels = 0;
    int max_rows = 0;
};

/// Runs of at least two consecutive identical layers, as (first layer, layer count).
std::vector<std::pair<int, int>> repeated_layer_runs(const ComputeGraph& graph);
/// Folds every repeated run; a run whose first layer is in `opened` shows that layer and
/// folds the rest (so opening layer after layer walks through the run).
FoldedGraph fold_graph(const ComputeGraph& graph, const StageAnalysis& analysis,
                       const std::set<int>& opened);

/// The folded graph as Graphviz DOT: items as boxes (filled by op family, folded runs
/// dashed), edges coloured RAW/WAR/WAW and labelled with their overlapping bytes.
QString folded_graph_dot(const ComputeGraph& graph, const StageAnalysis& analysis,
                         const FoldedGraph& folded, const QString& title);

}  // namespace graphlens::gui
