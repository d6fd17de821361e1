#pragma once
// Small hand-built graphs and documents shared by the io tests.
#include <filesystem>
#include <string>

#include "graphlens/capture/capture_file.h"

namespace graphlens::test {

inline KernelInfo kernel(std::string name, std::vector<BindingAccess> access,
                         uint32_t push_constant_size = 0) {
    KernelInfo k;
    k.name = std::move(name);
    k.local_size = {64, 1, 1};
    k.push_constant_size = push_constant_size;
    for (uint32_t i = 0; i < access.size(); ++i)
        k.bindings.push_back({i, access[i], "b" + std::to_string(i)});
    k.spirv_hash = 0x9e3779b97f4a7c15ull ^ std::hash<std::string>{}(k.name);
    return k;
}

inline TensorView view(AllocationId a, uint64_t offset, uint64_t size, DType t = DType::f32) {
    TensorView v;
    v.allocation = a;
    v.offset = offset;
    v.size = size;
    v.dtype = t;
    v.shape = {static_cast<int64_t>(size / 4), 1, 1, 1};
    return v;
}

inline Node dispatch(KernelId k, OpKind op, std::string label, std::vector<BoundView> bindings) {
    Node n;
    n.kernel = k;
    n.op = op;
    n.label = std::move(label);
    n.bindings = std::move(bindings);
    return n;
}

/// x = norm(in); y = x * w; barrier; out = y + in — with an odd view shape, push constants,
/// a range-less fence and a node whose ranges are narrower than its bindings.
inline ComputeGraph small_graph() {
    ComputeGraph g;
    g.metadata = {{"model", "hand-built"}, {"phase", "decode"}};
    const auto in = g.add_allocation("input", 4096, AllocationUsage::input);
    const auto w = g.add_allocation("blk.0.attn_norm.weight", 1024, AllocationUsage::weights);
    const auto act = g.add_allocation("activations", 8192, AllocationUsage::activations);
    const auto norm =
        g.add_kernel(kernel("rms_norm_f32", {BindingAccess::read, BindingAccess::write}, 8));
    const auto mul = g.add_kernel(
        kernel("mul_f32", {BindingAccess::read, BindingAccess::read, BindingAccess::write}));
    const auto add = g.add_kernel(
        kernel("add_f32", {BindingAccess::read, BindingAccess::read, BindingAccess::write}));
    Node n0 = dispatch(norm, OpKind::rms_norm, "blk.0.attn_norm",
                       {{0, view(in, 0, 1024)}, {1, view(act, 0, 1024)}});
    n0.push_constants = {0x00, 0x04, 0x00, 0x00, 0xac, 0xc5, 0x27, 0x37};
    n0.workgroups = {16, 1, 1};
    g.add_dispatch(n0);
    Node n1 = dispatch(
        mul, OpKind::mul, "blk.0.attn_norm_mul",
        {{0, view(act, 0, 1024)}, {1, view(w, 0, 1024, DType::f16)}, {2, view(act, 1024, 1024)}});
    n1.bindings[1].view.rank = 2;
    n1.bindings[1].view.shape = {256, 2, 1, 1};
    g.add_dispatch(n1);
    g.add_barrier();
    Node n2 =
        dispatch(add, OpKind::add, "blk.0.residual",
                 {{0, view(act, 1024, 1024)}, {1, view(in, 0, 1024)}, {2, view(act, 2048, 1024)}});
    g.add_dispatch(n2);
    // Narrower than its bindings: reads only the first half of its input view.
    g.nodes.back().reads = {{act, 1024, 1536}, {in, 0, 1024}};
    Node fence = dispatch(add, OpKind::other, "foreign.kernel", {});
    fence.ranges_known = false;
    g.add_dispatch(fence);
    return g;
}

inline RunResult small_run() {
    RunResult r;
    r.device = "llvmpipe (LLVM 15)";
    r.workload = "hand-built decode";
    r.warmup = 2;
    r.repeats = 3;
    r.date = "2026-11-22T04:00:00Z";
    ModeResult serial;
    serial.mode = "serial";
    serial.gpu_ns = TimingSummary::from_samples({1500.5, 1400.25, 1600});
    serial.encode_ns = TimingSummary::from_samples({300, 310, 290});
    serial.wall_ns = TimingSummary::from_samples({5000, 5100, 4900});
    serial.dispatches = 4;
    serial.barriers = 3;
    serial.command_buffers = 1;
    serial.comparison = "reference";
    ModeResult elided = serial;
    elided.mode = "elided";
    elided.gpu_ns = TimingSummary::from_samples({1000, 1100, 1050});
    elided.barriers = 1;
    elided.comparison = "bitwise";
    r.modes = {serial, elided};
    r.per_dispatch = {{0, "blk.0.attn_norm", OpKind::rms_norm, 0, 400},
                      {1, "blk.0.attn_norm_mul", OpKind::mul, 410, 700.5},
                      {2, "blk.0.residual", OpKind::add, 720, 1000}};
    r.per_group_mode = "elided";
    r.per_group = {{0, 2, "blk.0.attn_norm", 0, 690.5}, {2, 2, "blk.0.residual", 700, 1010}};
    return r;
}

inline CaptureDocument small_document() {
    CaptureDocument doc;
    doc.generator = "graphlens tests";
    doc.device.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    doc.device.driver = "Mesa 22.3.6";
    doc.device.api_version = "1.3.230";
    doc.device.type = "cpu";
    doc.device.vendor_id = 0x10005;
    doc.device.timestamp_period_ns = 1.0;
    doc.device.timestamp_valid_bits = 64;
    doc.device.subgroup_size = 8;
    doc.device.extensions = {"VK_KHR_push_descriptor"};
    doc.graph = small_graph();
    Snapshot captured;
    captured.stage = "captured";
    captured.graph = doc.graph;
    captured.stats.dispatches = doc.graph.dispatch_count();
    captured.stats.barriers = doc.graph.barrier_count();
    captured.stats.groups = 2;
    captured.stats.mean_group_size = 2.0;
    captured.stats.group_size_histogram = {0, 0, 2};
    captured.pass_ms = 0.125;
    Snapshot fused = captured;
    fused.stage = "fused";
    // Fusion adds a kernel: this snapshot must store its own kernel list.
    ComputeGraph fused_graph = doc.graph;
    const auto k = fused_graph.add_kernel(kernel(
        "rms_norm_mul_f32", {BindingAccess::read, BindingAccess::read, BindingAccess::write}));
    Node f =
        dispatch(k, OpKind::rms_norm_mul, "blk.0.attn_norm+mul", fused_graph.nodes[1].bindings);
    f.bindings[0].view = fused_graph.nodes[0].bindings[0].view;
    f.id = 100;
    f.origin = {fused_graph.nodes[0].id, fused_graph.nodes[1].id};
    fused_graph.nodes.erase(fused_graph.nodes.begin(), fused_graph.nodes.begin() + 2);
    fused_graph.derive_ranges(f);
    fused_graph.nodes.insert(fused_graph.nodes.begin(), f);
    fused.stats.dispatches = fused_graph.dispatch_count();
    fused.graph = std::move(fused_graph);
    fused.diff.fused = {100};
    fused.diff.removed = f.origin;
    fused.fusions = {{"rms_norm→mul", f.origin, true, 100, ""},
                     {"add→add", {2}, false, 0, "no second add reads blk.0.residual"}};
    fused.diagnostics = {"1 fusion applied, 1 near miss"};
    doc.snapshots = {captured, fused};
    doc.run = small_run();
    return doc;
}

inline std::filesystem::path test_data(const std::string& relative) {
    return std::filesystem::path(GRAPHLENS_TEST_DATA_DIR) / relative;
}

}  // namespace graphlens::test
