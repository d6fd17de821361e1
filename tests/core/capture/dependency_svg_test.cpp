// Specification of the dependency graph's SVG (graphlens-cli dot --svg): laid out by Graphviz,
// one box per selected dispatch with its label, one coloured edge per hazard and a dashed grey
// one per fence ordering, boxes apart.
#include <gtest/gtest.h>

#include <regex>

#include "capture_fixtures.h"
#include "graphlens/capture/dependency_svg.h"
#include "graphlens/capture/dot_export.h"
#include "graphlens/graph/palette.h"

namespace graphlens {
namespace {

struct SvgBox {
    double x, y, w, h;
};

std::vector<SvgBox> boxes_of(const std::string& svg) {
    static const std::regex rect(
        "<rect x=\"([-0-9.]+)\" y=\"([-0-9.]+)\" width=\"([0-9.]+)\" height=\"([0-9.]+)\"");
    std::vector<SvgBox> out;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator();
         ++it)
        out.push_back(
            {std::stod((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3]), std::stod((*it)[4])});
    return out;
}

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
    return n;
}

TEST(DependencySvg, OneBoxPerDispatchWithItsLabel) {
    const ComputeGraph g = test::small_graph();
    const std::string svg = dependency_svg(g);
    EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
    EXPECT_EQ(boxes_of(svg).size(), g.dispatch_count());
    for (const Node& n : g.nodes) {
        if (!n.is_dispatch() || n.label.empty()) continue;
        EXPECT_NE(svg.find(">" + n.label + "<"), std::string::npos) << n.label;
    }
}

TEST(DependencySvg, BoxesDoNotOverlap) {
    const std::vector<SvgBox> boxes = boxes_of(dependency_svg(test::small_graph()));
    for (size_t i = 0; i < boxes.size(); ++i)
        for (size_t j = i + 1; j < boxes.size(); ++j) {
            const SvgBox &a = boxes[i], &b = boxes[j];
            EXPECT_FALSE(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h)
                << i << " and " << j;
        }
}

TEST(DependencySvg, EdgesAreColouredByHazardAndFencesDashed) {
    const std::string svg = dependency_svg(test::small_graph());
    // norm → mul and mul → add are RAW on activations; the fence orders the add before it.
    EXPECT_EQ(occurrences(svg, "stroke=\"" + hazard_colour(HazardKind::raw).hex() + "\""), 2u)
        << svg;
    EXPECT_NE(svg.find("<title>RAW activations [0, 1024): node 0 → node 1</title>"),
              std::string::npos)
        << svg;
    // One dashed edge for each fence ordering the DOT draws.
    const size_t fences = occurrences(dependency_dot(test::small_graph()), "label=\"fence\"");
    EXPECT_GE(fences, 1u);
    EXPECT_EQ(occurrences(svg, "stroke-dasharray"), fences);
    EXPECT_NE(svg.find("<title>fence orders node 3 before node 4</title>"), std::string::npos);
}

TEST(DependencySvg, LabelsAreEscaped) {
    ComputeGraph g = test::small_graph();
    g.nodes[0].label = "a<b & \"c\"";
    const std::string svg = dependency_svg(g);
    EXPECT_NE(svg.find("a&lt;b &amp; &quot;c&quot;"), std::string::npos);
    EXPECT_EQ(svg.find("a<b"), std::string::npos);
}

TEST(DependencySvg, SelectionsAreThoseOfTheDot) {
    DotOptions range;
    range.node_range = {{0, 1}};
    EXPECT_EQ(boxes_of(dependency_svg(test::small_graph(), range)).size(), 2u);
    DotOptions nothing;
    nothing.layer = 7;
    EXPECT_THROW(dependency_svg(test::small_graph(), nothing), std::invalid_argument);
}

}  // namespace
}  // namespace graphlens
