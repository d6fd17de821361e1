#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "graphlens/layout/graph_layout.h"

namespace graphlens::layout {
namespace {

// Graphviz keeps global state (its error handler, its memory discipline): one layout at a time.
std::mutex graphviz_mutex;

// Graphviz reports through agerr; its last message is kept to explain a failure.
std::string last_graphviz_message;
int keep_graphviz_message(char* message) {
    last_graphviz_message = message;
    while (!last_graphviz_message.empty() &&
           (last_graphviz_message.back() == '\n' || last_graphviz_message.back() == ' '))
        last_graphviz_message.pop_back();
    return 0;
}

std::string inches(double points) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4f", points / 72.0);
    return text;
}

struct ContextDeleter {
    void operator()(GVC_t* gvc) const { gvFreeContext(gvc); }
};
struct GraphDeleter {
    void operator()(Agraph_t* g) const { agclose(g); }
};

void set_graph_attribute(Agraph_t* g, const char* name, const std::string& value) {
    std::string text = value;
    agattr(g, AGRAPH, const_cast<char*>(name), text.data());
}

// Attributes that make dot place boxes of exactly the given size with no text of its own, and
// bound its iterative phases (ranking, crossing minimisation, the network simplex that places
// the boxes within a rank), which otherwise grow far faster than the graph: with these bounds
// two thousand boxes lay out in under a second (docs/benchmarks.md §10).
void describe_graph(Agraph_t* g, const LayoutRequest& r) {
    set_graph_attribute(g, "rankdir", r.direction == Direction::left_to_right ? "LR" : "TB");
    set_graph_attribute(g, "nodesep", inches(r.box_gap));
    set_graph_attribute(g, "ranksep", inches(r.rank_gap));
    set_graph_attribute(g, "splines", "spline");
    set_graph_attribute(g, "newrank", "true");
    set_graph_attribute(g, "mclimit", "0.3");
    set_graph_attribute(g, "nslimit", "0.1");
    set_graph_attribute(g, "nslimit1", "0.1");
    agattr(g, AGNODE, const_cast<char*>("shape"), const_cast<char*>("box"));
    agattr(g, AGNODE, const_cast<char*>("fixedsize"), const_cast<char*>("true"));
    agattr(g, AGNODE, const_cast<char*>("label"), const_cast<char*>(""));
    agattr(g, AGNODE, const_cast<char*>("margin"), const_cast<char*>("0"));
    agattr(g, AGEDGE, const_cast<char*>("dir"), const_cast<char*>("none"));
    agattr(g, AGEDGE, const_cast<char*>("headclip"), const_cast<char*>("true"));
    agattr(g, AGEDGE, const_cast<char*>("tailclip"), const_cast<char*>("true"));
}

std::vector<Agnode_t*> add_boxes(Agraph_t* g, const LayoutRequest& r) {
    Agsym_t* width = agattr(g, AGNODE, const_cast<char*>("width"), const_cast<char*>("0.75"));
    Agsym_t* height = agattr(g, AGNODE, const_cast<char*>("height"), const_cast<char*>("0.5"));
    std::vector<Agnode_t*> nodes;
    nodes.reserve(r.boxes.size());
    for (size_t i = 0; i < r.boxes.size(); ++i) {
        std::string name = "n" + std::to_string(i);
        Agnode_t* n = agnode(g, name.data(), 1);
        std::string w = inches(r.boxes[i].width), h = inches(r.boxes[i].height);
        agxset(n, width, w.data());
        agxset(n, height, h.data());
        nodes.push_back(n);
    }
    return nodes;
}

std::vector<Agedge_t*> add_edges(Agraph_t* g, const LayoutRequest& r,
                                 const std::vector<Agnode_t*>& nodes) {
    std::vector<Agedge_t*> edges;
    edges.reserve(r.edges.size());
    for (size_t i = 0; i < r.edges.size(); ++i) {
        const Edge& e = r.edges[i];
        if (e.from >= nodes.size() || e.to >= nodes.size())
            throw std::invalid_argument("layout edge " + std::to_string(i) + " names box " +
                                        std::to_string(std::max(e.from, e.to)) + " of " +
                                        std::to_string(nodes.size()));
        // A name per edge keeps parallel edges apart (cgraph merges unnamed duplicates).
        std::string name = "e" + std::to_string(i);
        edges.push_back(agedge(g, nodes[e.from], nodes[e.to], name.data(), 1));
    }
    return edges;
}

// Graphviz's y axis points up from the bounding box's lower-left corner.
Point flipped(pointf p, const boxf& bb) {
    return {p.x - bb.LL.x, bb.UR.y - p.y};
}

std::vector<Point> spline_of(Agedge_t* e, const boxf& bb) {
    std::vector<Point> out;
    const splines* spl = ED_spl(e);
    if (!spl || spl->size == 0) return out;
    const bezier& b = spl->list[0];
    out.reserve(b.size);
    for (int k = 0; k < b.size; ++k) out.push_back(flipped(b.list[k], bb));
    return out;
}

GraphLayout read_back(Agraph_t* g, const std::vector<Agnode_t*>& nodes,
                      const std::vector<Agedge_t*>& edges) {
    const boxf bb = GD_bb(g);
    GraphLayout out;
    out.width = bb.UR.x - bb.LL.x;
    out.height = bb.UR.y - bb.LL.y;
    out.centres.reserve(nodes.size());
    for (Agnode_t* n : nodes) out.centres.push_back(flipped(ND_coord(n), bb));
    out.splines.reserve(edges.size());
    for (Agedge_t* e : edges) out.splines.push_back(spline_of(e, bb));
    return out;
}

}  // namespace

GraphLayout layout_with_graphviz(const LayoutRequest& request) {
    if (request.boxes.empty()) return {};
    const std::lock_guard lock(graphviz_mutex);
    last_graphviz_message.clear();
    agseterrf(keep_graphviz_message);
    agseterr(AGERR);  // warnings are not failures
    const std::unique_ptr<GVC_t, ContextDeleter> gvc(gvContext());
    if (!gvc) throw LayoutError("Graphviz: no context");
    const std::unique_ptr<Agraph_t, GraphDeleter> g(
        agopen(const_cast<char*>("layout"), Agdirected, nullptr));
    describe_graph(g.get(), request);
    const std::vector<Agnode_t*> nodes = add_boxes(g.get(), request);
    const std::vector<Agedge_t*> edges = add_edges(g.get(), request, nodes);
    if (gvLayout(gvc.get(), g.get(), "dot") != 0)
        throw LayoutError("Graphviz's dot layout failed" + (last_graphviz_message.empty()
                                                                ? std::string()
                                                                : ": " + last_graphviz_message));
    GraphLayout out = read_back(g.get(), nodes, edges);
    gvFreeLayout(gvc.get(), g.get());
    return out;
}

}  // namespace graphlens::layout
