#include "capture/src/node_text.h"

#include <span>

#include "capture/src/capture_json.h"
#include "capture/src/json_text.h"
#include "graphlens/capture/capture_file.h"

namespace graphlens::capture_detail {
namespace {

void append_range(std::string& out, const ByteRange& r) {
    ObjectText o(out);
    o.number("allocation", r.allocation);
    o.number("begin", r.begin);
    o.number("end", r.end);
}

void append_binding(std::string& out, const BoundView& b) {
    const TensorView& v = b.view;
    ObjectText o(out);
    if (b.set != 0) o.number("set", b.set);
    o.number("binding", b.binding);
    o.number("allocation", v.allocation);
    o.number("offset", v.offset);
    o.number("size", v.size);
    if (v.dtype != DType::f32) o.string("dtype", dtype_name(v.dtype));
    const bool default_shape = v.rank == 1 && v.shape[0] == default_elements(v.dtype, v.size) &&
                               v.shape[1] == 1 && v.shape[2] == 1 && v.shape[3] == 1;
    if (!default_shape) {
        const uint8_t rank = v.rank > 4 ? 4 : v.rank;
        append_array(o.key("shape"), std::span(v.shape.data(), rank),
                     [](std::string& s, int64_t d) { append_int(s, d); });
    }
}

/// reads/writes are omitted exactly when the loader would derive the same lists.
void append_ranges(ObjectText& o, const Node& n, const ComputeGraph& g) {
    bool derivable = false;
    if (n.ranges_known && !n.bindings.empty() && n.kernel < g.kernels.size()) {
        std::vector<ByteRange> reads, writes;
        derived_ranges(g.kernels[n.kernel], n.bindings, reads, writes);
        derivable = reads == n.reads && writes == n.writes;
    }
    if (derivable) return;
    const bool explicit_empty = n.ranges_known && !n.bindings.empty();
    if (explicit_empty || !n.reads.empty()) append_array(o.key("reads"), n.reads, append_range);
    if (explicit_empty || !n.writes.empty()) append_array(o.key("writes"), n.writes, append_range);
}

}  // namespace

void append_node_text(std::string& out, const Node& n, const ComputeGraph& g,
                      const std::string& graph_path, size_t index) {
    ObjectText o(out);
    if (n.is_barrier()) {
        o.string("kind", "barrier");
        if (n.barrier_scope() > g.barrier_scopes.size())
            throw CaptureError(graph_path + "/nodes/" + std::to_string(index) + "/scope",
                               "a scope of the graph's " + std::to_string(g.barrier_scopes.size()) +
                                   " barrier_scopes",
                               std::to_string(n.barrier_scope() - 1));
        if (n.barrier_scope() != 0) o.number("scope", n.barrier_scope() - 1);
        return;
    }
    o.number("id", n.id);
    o.number("kernel", n.kernel);
    if (n.op != OpKind::other) o.string("op", op_kind_name(n.op));
    if (!n.label.empty()) o.string("label", std::string_view(n.label));
    if (!n.bindings.empty()) append_array(o.key("bindings"), n.bindings, append_binding);
    if (!n.push_constants.empty())
        o.string("push_constants", to_hex(n.push_constants.data(), n.push_constants.size()));
    if (n.workgroups != std::array<uint32_t, 3>{1, 1, 1})
        append_array(o.key("workgroups"), n.workgroups,
                     [](std::string& s, uint32_t w) { append_int(s, w); });
    if (const auto it = g.unknown_workgroups.find(n.id); it != g.unknown_workgroups.end()) {
        if (n.workgroups != std::array<uint32_t, 3>{0, 0, 0} || it->second.empty())
            throw CaptureError(graph_path + "/nodes/" + std::to_string(index),
                               "a dispatch with unknown workgroup counts stated as [0,0,0], "
                               "with why they are unknown");
        o.string("workgroups_unknown", it->second);
    }
    append_ranges(o, n, g);
    if (!n.ranges_known) o.key("ranges_known") += "false";
    if (n.fence) o.key("fence") += "true";
    if (!n.origin.empty() && n.origin != std::vector<NodeId>{n.id})
        append_array(o.key("origin"), n.origin,
                     [](std::string& s, NodeId id) { append_int(s, id); });
}

}  // namespace graphlens::capture_detail
