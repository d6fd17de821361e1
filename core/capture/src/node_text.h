#pragma once
// A node's line in a capture file, written straight from the Node: a capture recorded by the
// layer holds ~100k nodes, and building a JSON value for each before printing it was most of
// the time spent writing one. The text is exactly what the JSON library prints for the same
// object (members in the documented order, defaults omitted, compact); the save → load → save
// tests hold it to that.
#include <string>

#include "graphlens/graph/compute_graph.h"

namespace graphlens::capture_detail {

/// Appends node `index` of `g` (whose JSON path is `graph_path`) as one compact JSON object.
void append_node_text(std::string& out, const Node& n, const ComputeGraph& g,
                      const std::string& graph_path, size_t index);

}  // namespace graphlens::capture_detail
