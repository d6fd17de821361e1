#include "models/graph_folding.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <string_view>

#include "models/presentation.h"

namespace graphlens::gui {

namespace {

// "blk.12.attn_q" -> (12, "attn_q"); -1 when the label names no layer.
std::pair<int, std::string_view> layer_of(const std::string& label) {
    std::string_view s = label;
    if (!s.starts_with("blk.")) return {-1, {}};
    s.remove_prefix(4);
    int n = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc() || p == s.data() + s.size() || *p != '.') return {-1, {}};
    return {n, std::string_view(p + 1, static_cast<size_t>(s.data() + s.size() - p - 1))};
}

// The label suffix with every layer number in it replaced: a fused dispatch is labelled
// "blk.3.ffn_gate+blk.3.ffn_up", and its layer's signature must equal layer 4's.
std::string without_layer_numbers(std::string_view suffix) {
    std::string out;
    out.reserve(suffix.size());
    for (size_t i = 0; i < suffix.size();) {
        if (suffix.substr(i).starts_with("blk.")) {
            size_t j = i + 4;
            while (j < suffix.size() && suffix[j] >= '0' && suffix[j] <= '9') ++j;
            if (j > i + 4) {
                out += "blk.#";
                i = j;
                continue;
            }
        }
        out += suffix[i++];
    }
    return out;
}

}  // namespace

std::vector<std::pair<int, int>> repeated_layer_runs(const ComputeGraph& graph) {
    // Signature of a layer: its dispatches' (label suffix, op) in schedule order.
    std::map<int, std::vector<std::pair<std::string, OpKind>>> layers;
    for (const Node& n : graph.nodes) {
        if (!n.is_dispatch()) continue;
        auto [layer, suffix] = layer_of(n.label);
        if (layer >= 0) layers[layer].emplace_back(without_layer_numbers(suffix), n.op);
    }
    std::vector<std::pair<int, int>> runs;
    for (auto it = layers.begin(); it != layers.end();) {
        auto end = std::next(it);
        int expected = it->first + 1;
        while (end != layers.end() && end->first == expected && end->second == it->second) {
            ++end;
            ++expected;
        }
        const int count = expected - it->first;
        if (count >= 2) runs.emplace_back(it->first, count);
        it = end;
    }
    return runs;
}

FoldedGraph fold_graph(const ComputeGraph& graph, const StageAnalysis& analysis,
                       const std::set<int>& opened) {
    FoldedGraph fg;
    fg.item_of_node.assign(graph.nodes.size(), -1);
    std::map<int, size_t> folded_item_of_layer;
    for (auto [first, count] : repeated_layer_runs(graph)) {
        // Opening a run shows its first layer and keeps the rest folded, one layer at a time.
        while (count >= 2 && opened.count(first)) {
            ++first;
            --count;
        }
        if (count < 2) continue;
        GraphItem item;
        item.folded = true;
        item.first_block = first;
        item.block_count = count;
        item.label =
            QStringLiteral("blk.%1 – blk.%2  ×%3").arg(first).arg(first + count - 1).arg(count);
        for (int l = first; l < first + count; ++l) folded_item_of_layer[l] = fg.items.size();
        fg.items.push_back(std::move(item));
    }
    // Items in order of their first node, so levels can be assigned in one sweep.
    std::vector<std::pair<size_t, size_t>> first_node;  // (first node index, item)
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& n = graph.nodes[i];
        if (!n.is_dispatch()) continue;
        const int layer = layer_of(n.label).first;
        auto f = folded_item_of_layer.find(layer);
        size_t item;
        if (layer >= 0 && f != folded_item_of_layer.end()) {
            item = f->second;
            if (fg.items[item].nodes.empty()) first_node.emplace_back(i, item);
        } else {
            item = fg.items.size();
            GraphItem g;
            g.label = QString::fromStdString(n.label);
            fg.items.push_back(std::move(g));
            first_node.emplace_back(i, item);
        }
        fg.items[item].nodes.push_back(i);
        fg.item_of_node[i] = static_cast<long>(item);
    }
    // Folded runs that matched no node (cannot happen with consistent labels) are dropped by
    // giving them no position; edges never reference them.
    std::map<std::pair<size_t, size_t>, size_t> edge_of;
    for (size_t h = 0; h < analysis.hazards.size(); ++h) {
        const Hazard& hz = analysis.hazards[h];
        const long a = fg.item_of_node[hz.earlier], b = fg.item_of_node[hz.later];
        if (a < 0 || b < 0 || a == b) continue;
        auto key = std::make_pair(static_cast<size_t>(a), static_cast<size_t>(b));
        auto [it, inserted] = edge_of.emplace(key, fg.edges.size());
        if (inserted) fg.edges.push_back({key.first, key.second, h, 0});
        ++fg.edges[it->second].count;
    }
    // Longest-path levels in first-node order; an edge against that order (possible only
    // when a reorder interleaves layers of a folded run) does not raise a level.
    std::vector<size_t> order_pos(fg.items.size(), SIZE_MAX);
    std::sort(first_node.begin(), first_node.end());
    for (size_t k = 0; k < first_node.size(); ++k) order_pos[first_node[k].second] = k;
    std::vector<std::vector<size_t>> preds(fg.items.size());
    for (const GraphEdge& e : fg.edges)
        if (order_pos[e.from] < order_pos[e.to]) preds[e.to].push_back(e.from);
    std::vector<int> rows_in_level;
    for (auto [node, item] : first_node) {
        int lv = 0;
        for (size_t p : preds[item]) lv = std::max(lv, fg.items[p].level + 1);
        fg.items[item].level = lv;
        if (static_cast<size_t>(lv) >= rows_in_level.size()) rows_in_level.resize(lv + 1, 0);
        fg.items[item].row = rows_in_level[static_cast<size_t>(lv)]++;
    }
    fg.levels = static_cast<int>(rows_in_level.size());
    fg.max_rows =
        rows_in_level.empty() ? 0 : *std::max_element(rows_in_level.begin(), rows_in_level.end());
    return fg;
}

QString folded_graph_dot(const ComputeGraph& graph, const StageAnalysis& analysis,
                         const FoldedGraph& folded, const QString& title) {
    auto quote = [](QString s) {
        s.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
        s.replace(QLatin1Char('"'), QStringLiteral("\\\""));
        return QLatin1Char('"') + s + QLatin1Char('"');
    };
    QString out;
    out += QStringLiteral(
               "digraph %1 {\n  rankdir=LR;\n  node [shape=box, style=filled, "
               "fontname=\"sans\", fontsize=10];\n")
               .arg(quote(title));
    for (size_t i = 0; i < folded.items.size(); ++i) {
        const GraphItem& it = folded.items[i];
        const Node& first = graph.nodes[it.nodes.front()];
        const QColor fill = it.folded ? QColor(0xee, 0xee, 0xee) : opColor(first.op).lighter(130);
        out += QStringLiteral("  n%1 [label=%2, fillcolor=\"%3\"%4];\n")
                   .arg(i)
                   .arg(quote(it.label))
                   .arg(fill.name())
                   .arg(it.folded ? QStringLiteral(", style=\"filled,dashed\"") : QString());
    }
    for (const GraphEdge& e : folded.edges) {
        const Hazard& h = analysis.hazards[e.hazard];
        out +=
            QStringLiteral("  n%1 -> n%2 [color=\"%3\", label=%4];\n")
                .arg(e.from)
                .arg(e.to)
                .arg(hazardColor(h.kind).name())
                .arg(quote(hazardName(h.kind) + QLatin1Char(' ') + formatRange(graph, h.overlap()) +
                           (e.count > 1 ? QStringLiteral(" (+%1)").arg(e.count - 1) : QString())));
    }
    out += QStringLiteral("}\n");
    return out;
}

}  // namespace graphlens::gui
