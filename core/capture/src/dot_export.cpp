#include "graphlens/capture/dot_export.h"
#include "graphlens/graph/palette.h"

#include <fmt/format.h>

#include "capture/src/dependency_selection.h"

namespace graphlens {
namespace {

std::string quote(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out + "\"";
}

}  // namespace

std::string dependency_dot(const ComputeGraph& g, const DotOptions& options) {
    const std::vector<bool> selected = select_dispatches(g, options);
    std::string dot =
        "digraph dependencies {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", "
        "fillcolor=\"#f7f7f7\", fontname=\"Helvetica\", fontsize=10];\n  edge "
        "[fontname=\"Helvetica\", fontsize=8];\n";
    if (!options.title.empty()) dot += "  labelloc=t;\n  label=" + quote(options.title) + ";\n";

    auto vertex = [&](size_t i) {
        const Node& n = g.nodes[i];
        std::string text = n.label.empty() ? "#" + std::to_string(n.id) : n.label;
        text += "\n" + std::string(op_kind_name(n.op)) + " · node " + std::to_string(i) + " · id " +
                std::to_string(n.id);
        std::string attrs = "label=" + quote(text);
        if (n.is_fence()) attrs += ", fillcolor=\"#fde0c5\", peripheries=2";
        return fmt::format("n{} [{}];\n", i, attrs);
    };
    // Concurrency groups as clusters: what may run together between two barriers.
    size_t group = 0;
    bool open = false, cluster_open = false;
    size_t cluster_group = 0;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (g.nodes[i].is_barrier()) {
            if (open) ++group;
            open = false;
            continue;
        }
        open = true;
        if (!selected[i]) continue;
        if (options.cluster_groups) {
            if (!cluster_open || cluster_group != group) {
                if (cluster_open) dot += "  }\n";
                dot += fmt::format(
                    "  subgraph cluster_g{} {{\n    label=\"group {}\"; style=dashed; "
                    "color=\"#999999\";\n",
                    group, group);
                cluster_open = true;
                cluster_group = group;
            }
            dot += "    " + vertex(i);
        } else {
            dot += "  " + vertex(i);
        }
    }
    if (cluster_open) dot += "  }\n";

    for (const DependencyEdge& e : dependency_edges(g, selected)) {
        if (!e.hazard) {
            dot += fmt::format("  n{} -> n{} [color=\"#999999\", style=dashed, label=\"fence\"];\n",
                               e.from, e.to);
            continue;
        }
        const Hazard& h = *e.hazard;
        const ByteRange bytes = h.overlap();
        const std::string alloc = bytes.allocation < g.allocations.size()
                                      ? g.allocations[bytes.allocation].name
                                      : "allocation " + std::to_string(bytes.allocation);
        dot += fmt::format("  n{} -> n{} [color=\"{}\", fontcolor=\"{}\", label={}];\n", h.earlier,
                           h.later, hazard_colour(h.kind).hex(), hazard_colour(h.kind).hex(),
                           quote(fmt::format("{} {}\n[{}, {})", hazard_kind_name(h.kind), alloc,
                                             bytes.begin, bytes.end)));
    }
    dot += "}\n";
    return dot;
}

}  // namespace graphlens
