// Capture loader: parses JSON, then checks every field against docs/capture-format.md before
// anything is returned. Errors carry a JSON Pointer and what was expected there. The JSON
// path is kept as a chain of stack frames and only turned into a string when an error is
// thrown, so validating a 100k-node capture costs little beyond parsing it.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <unordered_set>

#include "capture/src/barrier_scope_json.h"
#include "capture/src/capture_json.h"
#include "capture/src/capture_source_json.h"
#include "capture/src/json_fields.h"
#include "capture/src/json_tape.h"
#include "capture/src/kernel_code_json.h"
#include "capture/src/kernel_stages_json.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/graph/schedule_analysis.h"

namespace graphlens {

namespace {
std::string describe_location(const std::string& file, const std::string& path) {
    std::string s;
    if (!file.empty()) s += file + ": ";
    s += path.empty() ? std::string("document") : path;
    return s;
}
}  // namespace

CaptureError::CaptureError(std::string json_path, std::string expected, std::string got,
                           std::string file)
    : std::runtime_error(describe_location(file, json_path) + ": expected " + expected +
                         (got.empty() ? std::string() : " (got " + got + ")")),
      json_path_(std::move(json_path)),
      expected_(std::move(expected)),
      got_(std::move(got)),
      file_(std::move(file)) {}

namespace {
using capture_detail::JsonRef;
using Limits = CaptureLimits;
using capture_detail::as_array;
using capture_detail::as_bool;
using capture_detail::as_double;
using capture_detail::as_enum;
using capture_detail::as_hex_bytes;
using capture_detail::as_string;
using capture_detail::as_triple;
using capture_detail::as_u32;
using capture_detail::as_u64;
using capture_detail::fail;
using capture_detail::Fields;
using capture_detail::opt_bool;
using capture_detail::opt_double;
using capture_detail::opt_list;
using capture_detail::opt_size;
using capture_detail::opt_string;
using capture_detail::opt_u32;
using capture_detail::opt_u64;
using capture_detail::Path;

std::string describe(const JsonRef& v) {
    return v.describe();
}

OpKind as_op(const JsonRef& v, const Path& p) {
    return as_enum<OpKind>(v, p, "an op kind", kOpKindCount, op_kind_from_name, op_kind_name);
}

// ---------------------------------------------------------------- graph

AllocationInfo read_allocation(const JsonRef& v, const Path& p, size_t index) {
    Fields f(v, p, "an allocation");
    f.only({"id", "size", "name", "usage", "device_address"});
    AllocationInfo a;
    a.id = static_cast<AllocationId>(
        as_u64(f.need("id", "the allocation's id"), p / "id", Limits::max_allocations));
    if (a.id != index)
        fail(p / "id", "id " + std::to_string(index) + " (allocation ids equal their position)",
             std::to_string(a.id));
    a.size = as_u64(f.need("size", "the allocation's size in bytes"), p / "size",
                    Limits::max_allocation_bytes);
    opt_string(f, "name", a.name);
    if (auto u = f.find("usage"))
        a.usage = as_enum<AllocationUsage>(*u, p / "usage", "an allocation usage", 6,
                                           allocation_usage_from_name, allocation_usage_name);
    opt_bool(f, "device_address", a.device_address);
    return a;
}

/// What a file of format `version` may hold, and the SPIR-V bytes read so far.
struct ReadContext {
    uint32_t version = kCaptureFormatVersion;
    uint64_t spirv_bytes = 0;
};

KernelBinding read_kernel_binding(const JsonRef& v, const Path& p, uint32_t version) {
    Fields f(v, p, "a kernel binding");
    f.not_before(version, 2, {"set", "evidence", "descriptor"});
    f.only({"binding", "access", "name", "set", "evidence", "descriptor"});
    KernelBinding b;
    b.binding = as_u32(f.need("binding", "the binding number"), p / "binding");
    b.access = as_enum<BindingAccess>(f.need("access", "read, write or read_write"), p / "access",
                                      "a binding access", 3, binding_access_from_name,
                                      binding_access_name);
    opt_string(f, "name", b.name);
    opt_u32(f, "set", b.set);
    if (auto e = f.find("evidence"))
        b.evidence = as_enum<AccessEvidence>(*e, p / "evidence", "an access evidence", 2,
                                             access_evidence_from_name, access_evidence_name);
    if (auto d = f.find("descriptor"))
        b.descriptor = as_enum<DescriptorKind>(*d, p / "descriptor", "a descriptor kind", 3,
                                               descriptor_kind_from_name, descriptor_kind_name);
    return b;
}

/// The version-2 members of a kernel: its stage and, for a foreign kernel, its code.
void read_kernel_code(const Fields& f, KernelInfo& k, ReadContext& ctx) {
    const Path& p = f.path();
    if (auto s = f.find("stage")) {
        const std::string_view stage = as_string(*s, p / "stage");
        if (stage == "compute")
            k.stage = kStageCompute;
        else if (stage == "transfer")
            k.stage = kStageTransfer;
        else
            fail(p / "stage", "a kernel stage: one of compute, transfer", describe(*s));
    }
    if (auto j = f.find("spirv_base64"))
        k.spirv = capture_detail::read_spirv_base64(*j, p / "spirv_base64", ctx.spirv_bytes);
    k.specialization = capture_detail::read_specialization(f);
    opt_u32(f, "required_subgroup_size", k.required_subgroup_size);
    opt_u32(f, "pipeline_flags", k.pipeline_flags);
}

KernelInfo read_kernel(const JsonRef& v, const Path& p, size_t index, ReadContext& ctx) {
    Fields f(v, p, "a kernel");
    f.not_before(ctx.version, 2,
                 {"stage", "spirv_base64", "specialization", "required_subgroup_size",
                  "pipeline_flags", "stages"});
    f.only({"id", "name", "entry_point", "local_size", "push_constant_size", "spirv_hash",
            "bindings", "stage", "spirv_base64", "specialization", "required_subgroup_size",
            "pipeline_flags", "stages"});
    KernelInfo k;
    const uint64_t id = as_u64(f.need("id", "the kernel's id"), p / "id", Limits::max_kernels);
    if (id != index)
        fail(p / "id", "id " + std::to_string(index) + " (kernel ids equal their position)",
             std::to_string(id));
    k.name = as_string(f.need("name", "the kernel's name"), p / "name");
    if (k.name.empty()) fail(p / "name", "a non-empty kernel name", "\"\"");
    opt_string(f, "entry_point", k.entry_point);
    if (auto j = f.find("local_size"))
        k.local_size = as_triple(*j, p / "local_size", 1, Limits::max_local_size, "local size");
    uint64_t pcs = 0;
    opt_u64(f, "push_constant_size", Limits::max_push_constant_bytes, pcs);
    k.push_constant_size = static_cast<uint32_t>(pcs);
    if (auto j = f.find("spirv_hash")) {
        const auto bytes = as_hex_bytes(*j, p / "spirv_hash", 8);
        if (bytes.size() != 8)
            fail(p / "spirv_hash", "16 hex digits (the SPIR-V words' hash, docs/capture-format.md)",
                 describe(*j));
        for (uint8_t b : bytes) k.spirv_hash = k.spirv_hash << 8 | b;
    }
    opt_list(f, "bindings", Limits::max_kernel_bindings, "bindings", k.bindings,
             [&](const JsonRef& jb, const Path& pb) {
                 return read_kernel_binding(jb, pb, ctx.version);
             });
    for (size_t i = 1; i < k.bindings.size(); ++i) {
        const KernelBinding& a = k.bindings[i - 1];
        const KernelBinding& b = k.bindings[i];
        if (b.set > a.set || (b.set == a.set && b.binding > a.binding)) continue;
        const Path pbs = p / "bindings";
        const Path pb = pbs[i];
        if (b.set < a.set)
            fail(pb / "set", "bindings sorted by (set, binding), each once",
                 "set " + std::to_string(b.set) + " after set " + std::to_string(a.set));
        fail(pb / "binding", "binding numbers in increasing order within a set, each once",
             std::to_string(b.binding) + " after " + std::to_string(a.binding));
    }
    read_kernel_code(f, k, ctx);
    k.stages = capture_detail::read_kernel_stages(f, k);
    return k;
}

BoundView read_bound_view(const JsonRef& v, const Path& p,
                          const std::vector<AllocationInfo>& allocs, uint32_t version) {
    Fields f(v, p, "a binding {binding, allocation, offset, size, dtype, shape}");
    f.not_before(version, 2, {"set"});
    f.only({"binding", "set", "allocation", "offset", "size", "dtype", "shape"});
    BoundView b;
    b.binding = as_u32(f.need("binding", "the descriptor binding number"), p / "binding");
    opt_u32(f, "set", b.set);
    TensorView& view = b.view;
    view.allocation = capture_detail::read_allocation_ref(f.need("allocation", "an allocation id"),
                                                          p / "allocation", allocs);
    const AllocationInfo& a = allocs[view.allocation];
    view.offset = as_u64(f.need("offset", "the view's byte offset"), p / "offset", a.size,
                         "inside " + capture_detail::describe_allocation(a));
    view.size = as_u64(f.need("size", "the view's size in bytes"), p / "size", a.size - view.offset,
                       "offset + size must lie inside " + capture_detail::describe_allocation(a));
    if (auto d = f.find("dtype"))
        view.dtype =
            as_enum<DType>(*d, p / "dtype", "an element type", 10, dtype_from_name, dtype_name);
    if (auto s = f.find("shape")) {
        const Path ps = p / "shape";
        if (!s->is_array() || s->empty() || s->size() > 4)
            fail(ps, "an array of 1 to 4 element counts (innermost first)", describe(*s));
        view.rank = static_cast<uint8_t>(s->size());
        view.shape = {1, 1, 1, 1};
        for (size_t i = 0; i < s->size(); ++i)
            view.shape[i] = static_cast<int64_t>(as_u64((*s)[i], ps[i], uint64_t{1} << 48));
    } else {
        view.rank = 1;
        view.shape = {capture_detail::default_elements(view.dtype, view.size), 1, 1, 1};
    }
    return b;
}

std::string describe_ranges(const std::vector<ByteRange>& rs) {
    std::string s;
    for (const auto& r : rs)
        s += (s.empty() ? "" : ", ") + std::to_string(r.allocation) + ":[" +
             std::to_string(r.begin) + "," + std::to_string(r.end) + ")";
    return "[" + s + "]";
}

/// Stated ranges of a dispatch with bindings must lie inside bound views the kernel may
/// access that way: a capture may be more precise than its bindings, never wider.
void check_ranges_within_bindings(const std::vector<ByteRange>& stated,
                                  const std::vector<ByteRange>& allowed, const Path& p,
                                  std::string_view access, const KernelInfo& kernel) {
    for (size_t i = 0; i < stated.size(); ++i) {
        const ByteRange& r = stated[i];
        const bool inside = std::any_of(allowed.begin(), allowed.end(), [&](const ByteRange& a) {
            return a.allocation == r.allocation && a.begin <= r.begin && r.end <= a.end;
        });
        if (!inside)
            fail(p[i],
                 "a range inside a bound view that kernel '" + kernel.name + "' may " +
                     std::string(access) + " " + describe_ranges(allowed) +
                     " (or omit reads/writes to derive them from the bindings)",
                 describe_ranges({r}));
    }
}

/// A barrier node: a full barrier, or (version 2) one whose "scope" indexes the graph's
/// barrier_scopes.
Node read_barrier(const Fields& f, const ComputeGraph& g, uint32_t version) {
    f.not_before(version, 2, {"scope"});
    f.only({"kind", "scope"});
    auto s = f.find("scope");
    if (!s) return Node::barrier();
    const Path ps = f.path() / "scope";
    const uint64_t scopes = g.barrier_scopes.size();
    if (scopes == 0)
        fail(ps, "no scope: the graph's barrier_scopes list is empty (omit it for a full barrier)",
             describe(*s));
    const uint64_t index =
        as_u64(*s, ps, scopes - 1,
               "an index into the graph's " + std::to_string(scopes) + " barrier_scopes");
    return Node::barrier(static_cast<uint32_t>(index + 1));
}

/// Bound views name (set, binding) pairs the kernel declares (when it declares any), each once.
void check_bound_bindings(const Node& n, const KernelInfo& k, const Path& p) {
    for (size_t i = 0; i < n.bindings.size(); ++i) {
        const BoundView& b = n.bindings[i];
        const Path pbs = p / "bindings";
        const Path pbi = pbs[i];
        const Path pb = pbi / "binding";
        const std::string where =
            b.set == 0 ? std::to_string(b.binding)
                       : std::to_string(b.binding) + " of set " + std::to_string(b.set);
        if (!k.bindings.empty() && !k.find_binding(b.set, b.binding))
            fail(pb, "a binding number kernel '" + k.name + "' declares", where);
        for (size_t j = 0; j < i; ++j)
            if (n.bindings[j].binding == b.binding && n.bindings[j].set == b.set)
                fail(pb, "each binding number once per dispatch", where + " again");
    }
}

// A dispatch's "workgroups_unknown": why the recorder could not read its counts, which are
// then stated as [0,0,0] (a replay refuses the dispatch; the passes analyse it).
std::string read_workgroups_unknown(const Fields& f, const Path& p, const Node& n) {
    std::string why;
    opt_string(f, "workgroups_unknown", why);
    if (!f.find("workgroups_unknown")) return why;
    if (why.empty())
        fail(p / "workgroups_unknown",
             "why the workgroup counts are unknown (omit the field when they are known)", "\"\"");
    if (n.workgroups != std::array<uint32_t, 3>{0, 0, 0})
        fail(p / "workgroups", "[0,0,0]: a dispatch with \"workgroups_unknown\" states no counts",
             "[" + std::to_string(n.workgroups[0]) + "," + std::to_string(n.workgroups[1]) + "," +
                 std::to_string(n.workgroups[2]) + "]");
    return why;
}

/// A node; a dispatch's "workgroups_unknown" goes to `workgroups_unknown` ("" when absent).
Node read_node(const JsonRef& v, const Path& p, const ComputeGraph& g, uint32_t version,
               std::string& workgroups_unknown) {
    Fields f(v, p, "a node (dispatch or barrier)");
    Node n;
    if (auto k = f.find("kind")) {
        const std::string_view kind = as_string(*k, p / "kind");
        if (kind == "barrier") return read_barrier(f, g, version);
        if (kind != "dispatch") fail(p / "kind", "\"dispatch\" or \"barrier\"", describe(*k));
    }
    f.only({"kind", "id", "kernel", "op", "label", "bindings", "push_constants", "workgroups",
            "reads", "writes", "ranges_known", "fence", "origin", "workgroups_unknown"});
    n.id = as_u32(f.need("id", "the dispatch's id (unique NodeId)"), p / "id");
    const uint64_t kernel =
        as_u64(f.need("kernel", "a kernel id"), p / "kernel", Limits::max_kernels);
    if (kernel >= g.kernels.size())
        fail(p / "kernel",
             "the id of an existing kernel (the capture has " + std::to_string(g.kernels.size()) +
                 ")",
             std::to_string(kernel));
    n.kernel = static_cast<KernelId>(kernel);
    const KernelInfo& k = g.kernels[n.kernel];
    if (auto op = f.find("op")) n.op = as_op(*op, p / "op");
    opt_string(f, "label", n.label.edit());
    opt_list(f, "bindings", Limits::max_node_bindings, "bindings", n.bindings.edit(),
             [&](const JsonRef& jb, const Path& pb) {
                 return read_bound_view(jb, pb, g.allocations, version);
             });
    check_bound_bindings(n, k, p);
    if (auto pc = f.find("push_constants")) {
        const uint64_t max =
            k.push_constant_size ? k.push_constant_size : Limits::max_push_constant_bytes;
        n.push_constants = as_hex_bytes(*pc, p / "push_constants", max);
    }
    if (auto wg = f.find("workgroups"))
        n.workgroups = as_triple(*wg, p / "workgroups", 0, Limits::max_workgroups, "workgroups");
    f.not_before(version, 2, {"workgroups_unknown"});
    workgroups_unknown = read_workgroups_unknown(f, p, n);
    opt_bool(f, "ranges_known", n.ranges_known);
    opt_bool(f, "fence", n.fence);
    auto reads = f.find("reads");
    auto writes = f.find("writes");
    auto read_ranges = [&](std::string_view key, std::vector<ByteRange>& out) {
        opt_list(f, key, Limits::max_node_ranges, "byte ranges", out,
                 [&](const JsonRef& jr, const Path& pr) {
                     return capture_detail::read_range(jr, pr, g.allocations);
                 });
    };
    read_ranges("reads", n.reads.edit());
    read_ranges("writes", n.writes.edit());
    if (n.ranges_known && !n.bindings.empty()) {
        std::vector<ByteRange> derived_reads, derived_writes;
        capture_detail::derived_ranges(k, n.bindings, derived_reads, derived_writes);
        if (!reads && !writes) {
            n.reads = std::move(derived_reads);
            n.writes = std::move(derived_writes);
        } else {
            check_ranges_within_bindings(n.reads, derived_reads, p / "reads", "read", k);
            check_ranges_within_bindings(n.writes, derived_writes, p / "writes", "write", k);
        }
    }
    n.origin = {n.id};
    opt_list(f, "origin", Limits::max_origin, "dispatch ids", n.origin.edit(),
             [](const JsonRef& jo, const Path& po) { return as_u32(jo, po); });
    if (n.origin.empty())
        fail(p / "origin", "at least one dispatch id (omit the field to mean [id])", "[]");
    return n;
}

void read_metadata(const Fields& f, std::map<std::string, std::string>& out) {
    auto m = f.find("metadata");
    if (!m) return;
    const Path p = f.path() / "metadata";
    if (!m->is_object()) fail(p, "an object of string values", describe(*m));
    if (m->size() > Limits::max_list_items)
        fail(p, "at most " + std::to_string(Limits::max_list_items) + " entries",
             std::to_string(m->size()));
    out.clear();
    for (size_t i = 0; i < m->size(); ++i)
        out[std::string(m->key_at(i))] = as_string(m->value_at(i), p / m->key_at(i));
}

/// The graph members of an object (top level or snapshot). `base` supplies allocations,
/// kernels and metadata a snapshot omits.
void read_graph_members(const Fields& f, ComputeGraph& g, const ComputeGraph* base,
                        ReadContext& ctx) {
    const Path& p = f.path();
    if (base) {
        g.allocations = base->allocations;
        g.kernels = base->kernels;
        g.metadata = base->metadata;
        g.barrier_scopes = base->barrier_scopes;
    }
    read_metadata(f, g.metadata);
    if (!base) f.need("allocations", "the list of allocations");
    opt_list(f, "allocations", Limits::max_allocations, "allocations", g.allocations,
             [&, i = size_t{0}](const JsonRef& j, const Path& pa) mutable {
                 return read_allocation(j, pa, i++);
             });
    if (!base) f.need("kernels", "the list of kernels");
    opt_list(f, "kernels", Limits::max_kernels, "kernels", g.kernels,
             [&, i = size_t{0}](const JsonRef& j, const Path& pk) mutable {
                 return read_kernel(j, pk, i++, ctx);
             });
    f.not_before(ctx.version, 2, {"barrier_scopes"});
    opt_list(f, "barrier_scopes", Limits::max_barrier_scopes, "barrier scopes", g.barrier_scopes,
             [&](const JsonRef& j, const Path& ps) {
                 return capture_detail::read_barrier_scope(j, ps, g.allocations);
             });
    const Path pn = p / "nodes";
    const JsonRef& nodes =
        as_array(f.need("nodes", "the list of nodes"), pn, Limits::max_nodes, "nodes");
    g.nodes.reserve(nodes.size());
    std::unordered_set<NodeId> ids, origins;
    ids.reserve(nodes.size());
    origins.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
        std::string workgroups_unknown;
        Node n = read_node(nodes[i], pn[i], g, ctx.version, workgroups_unknown);
        if (!workgroups_unknown.empty()) g.unknown_workgroups[n.id] = std::move(workgroups_unknown);
        if (n.is_dispatch()) {
            if (!ids.insert(n.id).second)
                fail(pn[i] / "id", "a dispatch id not used by an earlier node",
                     std::to_string(n.id));
            for (size_t o = 0; o < n.origin.size(); ++o)
                if (!origins.insert(n.origin[o]).second)
                    fail((pn[i] / "origin")[o],
                         "an original dispatch id that no other node (or entry) stands for",
                         std::to_string(n.origin[o]));
        }
        g.nodes.push_back(std::move(n));
    }
}

// ---------------------------------------------------------------- snapshots

std::vector<NodeId> read_ids(const Fields& f, std::string_view key) {
    std::vector<NodeId> ids;
    opt_list(f, key, Limits::max_list_items, "dispatch ids", ids,
             [](const JsonRef& j, const Path& p) { return as_u32(j, p); });
    return ids;
}

Snapshot read_snapshot(const JsonRef& v, const Path& p, const ComputeGraph& base,
                       ReadContext& ctx) {
    Fields f(v, p, "a pass snapshot");
    f.only({"stage", "pass_ms", "reordered", "split_first_dispatches", "stats", "diff", "fusions",
            "diagnostics", "metadata", "allocations", "kernels", "barrier_scopes", "nodes"});
    Snapshot s;
    s.stage = as_string(f.need("stage", "the stage name"), p / "stage");
    opt_double(f, "pass_ms", true, s.pass_ms);
    opt_size(f, "reordered", s.reordered);
    opt_size(f, "split_first_dispatches", s.split_first_dispatches);
    {
        ComputeGraph graph;
        read_graph_members(f, graph, &base, ctx);
        s.graph = std::move(graph);
    }
    if (auto js = f.find("stats")) {
        const Path ps = p / "stats";
        Fields fs(*js, ps, "schedule statistics");
        fs.only({"dispatches", "barriers", "groups", "mean_group_size", "group_size_histogram",
                 "dag_depth", "barrier_lower_bound", "fences", "hazards"});
        ScheduleStats& st = s.stats;
        opt_size(fs, "dispatches", st.dispatches);
        opt_size(fs, "barriers", st.barriers);
        opt_size(fs, "groups", st.groups);
        opt_double(fs, "mean_group_size", true, st.mean_group_size);
        opt_list(fs, "group_size_histogram", Limits::max_list_items, "group counts",
                 st.group_size_histogram, [](const JsonRef& j, const Path& ph) {
                     return static_cast<size_t>(as_u64(j, ph, Limits::max_nodes));
                 });
        opt_size(fs, "dag_depth", st.dag_depth);
        opt_size(fs, "barrier_lower_bound", st.barrier_lower_bound);
        opt_size(fs, "fences", st.fences);
        opt_size(fs, "hazards", st.hazards);
        // The counts a reader can check against the stored graph must agree with it.
        if (fs.find("dispatches") && st.dispatches != s.graph->dispatch_count())
            fail(ps / "dispatches",
                 std::to_string(s.graph->dispatch_count()) + " (the dispatch nodes of this stage)",
                 std::to_string(st.dispatches));
        if (fs.find("barriers") && st.barriers != s.graph->barrier_count())
            fail(ps / "barriers",
                 std::to_string(s.graph->barrier_count()) + " (the barrier nodes of this stage)",
                 std::to_string(st.barriers));
    } else {
        // Not stored: the counts of the stage's own schedule, as the writer will store them
        // (a reader checks them against the graph).
        s.stats = group_stats(*s.graph);
        s.stats.dispatches = s.graph->dispatch_count();
        s.stats.barriers = s.graph->barrier_count();
    }
    if (auto jd = f.find("diff")) {
        Fields fd(*jd, p / "diff", "the difference to the previous stage");
        fd.only({"moved", "fused", "removed", "barriers_added", "barriers_removed"});
        s.diff.moved = read_ids(fd, "moved");
        s.diff.fused = read_ids(fd, "fused");
        s.diff.removed = read_ids(fd, "removed");
        opt_size(fd, "barriers_added", s.diff.barriers_added);
        opt_size(fd, "barriers_removed", s.diff.barriers_removed);
    }
    opt_list(f, "fusions", Limits::max_list_items, "fusion diagnostics", s.fusions,
             [](const JsonRef& j, const Path& pf) {
                 Fields ff(j, pf, "a fusion diagnostic");
                 ff.only({"pattern", "nodes", "applied", "fused_id", "reason"});
                 FusionDiagnostic d;
                 d.pattern = as_string(ff.need("pattern", "the fusion pattern"), pf / "pattern");
                 d.nodes = read_ids(ff, "nodes");
                 opt_bool(ff, "applied", d.applied);
                 opt_u32(ff, "fused_id", d.fused_id);
                 opt_string(ff, "reason", d.reason);
                 return d;
             });
    opt_list(f, "diagnostics", Limits::max_list_items, "diagnostic lines", s.diagnostics,
             [](const JsonRef& j, const Path& pd) { return as_string(j, pd); });
    return s;
}

// ---------------------------------------------------------------- run results

TimingSummary read_timing(const Fields& parent, std::string_view key) {
    TimingSummary t;
    auto j = parent.find(key);
    if (!j) return t;
    const Path p = parent.path() / key;
    Fields f(*j, p, "a timing summary in nanoseconds {median, min, max, samples}");
    f.only({"median", "min", "max", "samples"});
    opt_double(f, "median", true, t.median);
    opt_double(f, "min", true, t.min);
    opt_double(f, "max", true, t.max);
    opt_list(f, "samples", Limits::max_list_items, "samples", t.samples,
             [](const JsonRef& js, const Path& px) { return as_double(js, px, true); });
    if (t.min > t.median || t.median > t.max)
        fail(
            p, "min <= median <= max",
            std::to_string(t.min) + ", " + std::to_string(t.median) + ", " + std::to_string(t.max));
    return t;
}

OutputMismatch read_mismatch(const JsonRef& v, const Path& p) {
    Fields f(v, p, "an output mismatch {allocation, byte, expected, actual, last_writer}");
    f.only({"allocation", "byte", "expected", "actual", "last_writer", "last_writer_label"});
    OutputMismatch m;
    m.allocation = as_string(f.need("allocation", "the allocation's name"), p / "allocation");
    opt_u64(f, "byte", std::numeric_limits<uint64_t>::max(), m.byte);
    opt_string(f, "expected", m.expected);
    opt_string(f, "actual", m.actual);
    if (auto j = f.find("last_writer")) m.last_writer = as_u32(*j, p / "last_writer");
    opt_string(f, "last_writer_label", m.last_writer_label);
    return m;
}

RunResult read_run(const JsonRef& v, const Path& p) {
    Fields f(v, p, "a run result");
    f.only({"device", "workload", "date", "warmup", "repeats", "modes", "per_dispatch",
            "per_group_mode", "per_group"});
    RunResult r;
    opt_string(f, "device", r.device);
    opt_string(f, "workload", r.workload);
    opt_string(f, "date", r.date);
    opt_u32(f, "warmup", r.warmup);
    opt_u32(f, "repeats", r.repeats);
    opt_list(f, "modes", 256, "execution modes", r.modes, [](const JsonRef& j, const Path& pm) {
        Fields fm(j, pm, "the result of one execution mode");
        fm.only({"mode", "dispatches", "barriers", "command_buffers", "outputs_match", "comparison",
                 "mismatch", "error", "gpu_ns", "encode_ns", "wall_ns"});
        ModeResult m;
        m.mode = as_string(fm.need("mode", "the execution mode's name"), pm / "mode");
        opt_size(fm, "dispatches", m.dispatches);
        opt_size(fm, "barriers", m.barriers);
        opt_size(fm, "command_buffers", m.command_buffers);
        opt_bool(fm, "outputs_match", m.outputs_match);
        opt_string(fm, "comparison", m.comparison);
        if (auto j = fm.find("mismatch")) m.mismatch = read_mismatch(*j, pm / "mismatch");
        opt_string(fm, "error", m.error);
        m.gpu_ns = read_timing(fm, "gpu_ns");
        m.encode_ns = read_timing(fm, "encode_ns");
        m.wall_ns = read_timing(fm, "wall_ns");
        return m;
    });
    for (size_t i = 0; i < r.modes.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (r.modes[i].mode == r.modes[j].mode)
                fail((p / "modes")[i] / "mode", "each mode once per run",
                     "\"" + r.modes[i].mode + "\" again");
    opt_list(f, "per_dispatch", Limits::max_list_items, "dispatch timings", r.per_dispatch,
             [](const JsonRef& j, const Path& pd) {
                 Fields fd(j, pd, "one dispatch's GPU interval");
                 fd.only({"node", "label", "op", "start_ns", "end_ns"});
                 DispatchTiming d;
                 d.node = as_u32(fd.need("node", "the dispatch's id"), pd / "node");
                 opt_string(fd, "label", d.label);
                 if (auto op = fd.find("op")) d.op = as_op(*op, pd / "op");
                 d.start_ns = as_double(fd.need("start_ns", "a start time"), pd / "start_ns", true);
                 d.end_ns = as_double(fd.need("end_ns", "an end time"), pd / "end_ns", true);
                 if (d.end_ns < d.start_ns)
                     fail(pd / "end_ns", "an end time >= start_ns " + std::to_string(d.start_ns),
                          std::to_string(d.end_ns));
                 return d;
             });
    opt_string(f, "per_group_mode", r.per_group_mode);
    opt_list(f, "per_group", Limits::max_list_items, "group timings", r.per_group,
             [](const JsonRef& j, const Path& pg) {
                 Fields fg(j, pg, "one concurrency group's GPU interval");
                 fg.only({"first_dispatch", "dispatches", "first_label", "start_ns", "end_ns"});
                 GroupTiming g;
                 g.first_dispatch = as_u64(fg.need("first_dispatch", "a dispatch index"),
                                           pg / "first_dispatch", Limits::max_nodes);
                 g.dispatches = as_u64(fg.need("dispatches", "the group's dispatch count"),
                                       pg / "dispatches", Limits::max_nodes);
                 opt_string(fg, "first_label", g.first_label);
                 g.start_ns = as_double(fg.need("start_ns", "a start time"), pg / "start_ns", true);
                 g.end_ns = as_double(fg.need("end_ns", "an end time"), pg / "end_ns", true);
                 if (g.end_ns < g.start_ns)
                     fail(pg / "end_ns", "an end time >= start_ns " + std::to_string(g.start_ns),
                          std::to_string(g.end_ns));
                 return g;
             });
    return r;
}

CaptureDevice read_device(const JsonRef& v, const Path& p) {
    Fields f(v, p, "device facts");
    f.only({"name", "driver", "api_version", "type", "vendor_id", "device_id",
            "timestamp_period_ns", "timestamp_valid_bits", "subgroup_size", "extensions"});
    CaptureDevice d;
    opt_string(f, "name", d.name);
    opt_string(f, "driver", d.driver);
    opt_string(f, "api_version", d.api_version);
    opt_string(f, "type", d.type);
    opt_u32(f, "vendor_id", d.vendor_id);
    opt_u32(f, "device_id", d.device_id);
    opt_double(f, "timestamp_period_ns", true, d.timestamp_period_ns);
    uint64_t bits = 0;
    opt_u64(f, "timestamp_valid_bits", 64, bits);
    d.timestamp_valid_bits = static_cast<uint32_t>(bits);
    opt_u32(f, "subgroup_size", d.subgroup_size);
    opt_list(f, "extensions", 4096, "extension names", d.extensions,
             [](const JsonRef& j, const Path& pe) { return as_string(j, pe); });
    return d;
}

CaptureDocument read_document(const JsonRef& root) {
    const Path p;
    Fields f(root, p, "a GraphLens capture");
    // Check the identity first: a wrong version deserves that message, not a field error.
    const JsonRef& format = f.need("format", "\"" + std::string(kCaptureFormatName) + "\"");
    if (!format.is_string() || format.str() != kCaptureFormatName)
        fail(p / "format", "\"" + std::string(kCaptureFormatName) + "\"", describe(format));
    CaptureDocument doc;
    const JsonRef& version = f.need("format_version", "the format version");
    if (!version.is_number_unsigned() || version.get_u64() < kOldestCaptureFormatVersion ||
        version.get_u64() > kCaptureFormatVersion)
        fail(p / "format_version",
             "format version " + std::to_string(kOldestCaptureFormatVersion) + " or " +
                 std::to_string(kCaptureFormatVersion) + " (the versions this build reads)",
             describe(version));
    ReadContext ctx;
    ctx.version = static_cast<uint32_t>(version.get_u64());
    doc.format_version = ctx.version;
    f.not_before(ctx.version, 2, {"barrier_scopes", "source"});
    f.only({"format", "format_version", "generator", "device", "metadata", "allocations", "kernels",
            "barrier_scopes", "nodes", "snapshots", "run", "source"});
    opt_string(f, "generator", doc.generator);
    if (auto d = f.find("device")) doc.device = read_device(*d, p / "device");
    read_graph_members(f, doc.graph, nullptr, ctx);
    opt_list(
        f, "snapshots", Limits::max_snapshots, "pass snapshots", doc.snapshots,
        [&](const JsonRef& j, const Path& ps) { return read_snapshot(j, ps, doc.graph, ctx); });
    if (auto r = f.find("run")) doc.run = read_run(*r, p / "run");
    if (auto s = f.find("source"))
        doc.source = capture_detail::read_capture_source(*s, p / "source", doc.graph);
    return doc;
}

}  // namespace

CaptureDocument load_capture_from_string(std::string_view text) {
    if (text.size() > Limits::max_file_bytes)
        throw CaptureError("", "at most " + std::to_string(Limits::max_file_bytes) + " bytes",
                           std::to_string(text.size()) + " bytes");
    capture_detail::JsonTape tape;
    std::string why;
    uint64_t byte = 0;
    if (!tape.parse(text, why, byte)) {
        // nlohmann's message says why; its prefix ("[json.exception.parse_error.101] parse
        // error at line 1, column 2: ") repeats what the byte offset says.
        if (const auto pos = why.find("syntax error"); pos != std::string::npos)
            why = why.substr(pos);
        throw CaptureError("", "valid JSON", why + " (at byte " + std::to_string(byte) + ")");
    }
    try {
        return read_document(tape.root());
    } catch (const CaptureError&) {
        throw;
    } catch (const std::exception& e) {
        // Defensive: no library exception may escape as anything but a CaptureError.
        throw CaptureError("", "a readable capture", e.what());
    }
}

CaptureDocument load_capture(const std::filesystem::path& path) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) throw CaptureError("", "a readable file", ec.message(), path.string());
    if (size > Limits::max_file_bytes)
        throw CaptureError(
            "", "a capture of at most " + std::to_string(Limits::max_file_bytes) + " bytes",
            std::to_string(size) + " bytes", path.string());
    std::ifstream in(path, std::ios::binary);
    if (!in) throw CaptureError("", "a readable file", "cannot open", path.string());
    std::string text(static_cast<size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (static_cast<uint64_t>(in.gcount()) != size)
        throw CaptureError("", "a readable file", "short read", path.string());
    try {
        return load_capture_from_string(text);
    } catch (const CaptureError& e) {
        throw CaptureError(e.json_path(), e.expected(), e.got(), path.string());
    }
}

}  // namespace graphlens
