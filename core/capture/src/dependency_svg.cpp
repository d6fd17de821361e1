#include "graphlens/capture/dependency_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "capture/src/dependency_selection.h"
#include "capture/src/xml_escaped.h"
#include "graphlens/graph/palette.h"
#include "graphlens/layout/graph_layout.h"

namespace graphlens {
namespace {

constexpr double kCharWidth = 6.2, kBoxHeight = 34, kMargin = 16, kTitleHeight = 24;
constexpr size_t kMaxLabelChars = 60;

struct BoxText {
    std::string label, detail;
};

BoxText text_of(const ComputeGraph& g, size_t i) {
    const Node& n = g.nodes[i];
    std::string label = n.label.empty() ? "#" + std::to_string(n.id) : n.label;
    if (label.size() > kMaxLabelChars) label = "…" + label.substr(label.size() - kMaxLabelChars);
    return {label, fmt::format("{} · node {}", op_kind_name(n.op), i)};
}

double box_width(const BoxText& t) {
    const size_t chars = std::max(t.label.size(), t.detail.size());
    return std::max(80.0, static_cast<double>(chars) * kCharWidth + 16);
}

std::string edge_tooltip(const ComputeGraph& g, const DependencyEdge& e) {
    if (!e.hazard) return fmt::format("fence orders node {} before node {}", e.from, e.to);
    const ByteRange bytes = e.hazard->overlap();
    const std::string alloc = bytes.allocation < g.allocations.size()
                                  ? g.allocations[bytes.allocation].name
                                  : "allocation " + std::to_string(bytes.allocation);
    return fmt::format("{} {} [{}, {}): node {} → node {}", hazard_kind_name(e.hazard->kind), alloc,
                       bytes.begin, bytes.end, e.from, e.to);
}

// The spline as an SVG path, shifted below the title, with an arrowhead at its end.
std::string edge_svg(const std::vector<layout::Point>& chain, double dy, const std::string& colour,
                     bool dashed, const std::string& tooltip) {
    if (chain.size() < 4) return {};
    std::string d = fmt::format("M{:.1f},{:.1f}", chain[0].x + kMargin, chain[0].y + dy);
    for (size_t k = 1; k + 2 < chain.size(); k += 3)
        d += fmt::format(" C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}", chain[k].x + kMargin,
                         chain[k].y + dy, chain[k + 1].x + kMargin, chain[k + 1].y + dy,
                         chain[k + 2].x + kMargin, chain[k + 2].y + dy);
    const layout::Point end = chain.back(), before = chain[chain.size() - 2];
    const double len = std::max(1e-6, std::hypot(end.x - before.x, end.y - before.y));
    const double ux = (end.x - before.x) / len, uy = (end.y - before.y) / len;
    const double bx = end.x - 7 * ux, by = end.y - 7 * uy;
    return fmt::format(
        "<g><title>{}</title><path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.3\"{}/>"
        "<polygon points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" fill=\"{}\"/></g>\n",
        capture_detail::xml_escaped(tooltip), d, colour, dashed ? " stroke-dasharray=\"4 3\"" : "",
        end.x + kMargin, end.y + dy, bx - 3.5 * uy + kMargin, by + 3.5 * ux + dy,
        bx + 3.5 * uy + kMargin, by - 3.5 * ux + dy, colour);
}

}  // namespace

std::string dependency_svg(const ComputeGraph& g, const DotOptions& options) {
    const std::vector<bool> selected = select_dispatches(g, options);
    const std::vector<DependencyEdge> edges = dependency_edges(g, selected);
    std::vector<size_t> nodes;  // box -> node index
    std::vector<size_t> box_of(g.nodes.size(), 0);
    std::vector<BoxText> texts;
    layout::LayoutRequest request;
    request.direction = layout::Direction::top_to_bottom;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (!selected[i]) continue;
        box_of[i] = nodes.size();
        nodes.push_back(i);
        texts.push_back(text_of(g, i));
        request.boxes.push_back({box_width(texts.back()), kBoxHeight});
    }
    for (const DependencyEdge& e : edges) request.edges.push_back({box_of[e.from], box_of[e.to]});
    const layout::GraphLayout laid = layout::layout_with_graphviz(request);

    const double dy = kMargin + (options.title.empty() ? 0 : kTitleHeight);
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
        "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"Helvetica, Arial, sans-serif\">\n"
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        laid.width + 2 * kMargin, laid.height + dy + kMargin);
    if (!options.title.empty())
        svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\">{}</text>\n", kMargin,
                           kMargin + 12, capture_detail::xml_escaped(options.title));
    for (size_t e = 0; e < edges.size(); ++e) {
        const std::string colour =
            edges[e].hazard ? hazard_colour(edges[e].hazard->kind).hex() : "#999999";
        svg += edge_svg(laid.splines[e], dy, colour, !edges[e].hazard, edge_tooltip(g, edges[e]));
    }
    for (size_t b = 0; b < nodes.size(); ++b) {
        const Node& n = g.nodes[nodes[b]];
        const double w = request.boxes[b].width;
        const double x = laid.centres[b].x - w / 2 + kMargin;
        const double y = laid.centres[b].y - kBoxHeight / 2 + dy;
        svg += fmt::format(
            "<g><title>{0}</title><rect x=\"{1:.1f}\" y=\"{2:.1f}\" width=\"{3:.1f}\" "
            "height=\"{4:.0f}\" rx=\"4\" fill=\"{5}\" stroke=\"#333333\"{6}/>"
            "<text x=\"{7:.1f}\" y=\"{8:.1f}\" font-size=\"10\">{0}</text>"
            "<text x=\"{7:.1f}\" y=\"{9:.1f}\" font-size=\"8\" fill=\"#555555\">{10}</text></g>\n",
            capture_detail::xml_escaped(texts[b].label), x, y, w, kBoxHeight,
            n.is_fence() ? "#fde0c5" : "#f7f7f7", n.is_fence() ? " stroke-width=\"2\"" : "", x + 8,
            y + 14, y + 27, capture_detail::xml_escaped(texts[b].detail));
    }
    svg += "</svg>\n";
    return svg;
}

}  // namespace graphlens
