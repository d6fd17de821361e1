#pragma once
// Small hand-built graphs and documents shared by the capture tests.
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

/// A program recorded by the capture layer, using every field of format version 2: foreign
/// kernels with SPIR-V (5, 6 and 7 words: every base64 tail), specialization constants, a
/// required subgroup size, pipeline flags, descriptor sets 0 and 1, an access found in the
/// code, a uniform buffer, a transfer pseudo-kernel, scoped and full barriers, and a source
/// with submissions and notes. Its "captured" snapshot shares the barrier scopes; its
/// "reordered" one has none.
inline CaptureDocument foreign_document() {
    CaptureDocument doc;
    doc.generator = "graphlens-layer tests";
    ComputeGraph& g = doc.graph;
    const auto in = g.add_allocation("in", 1024, AllocationUsage::input);
    const auto mid = g.add_allocation("mid", 4096, AllocationUsage::activations);
    const auto out = g.add_allocation("out", 4096, AllocationUsage::output);
    g.allocations[mid].device_address = true;  // a buffer made with a device address
    KernelInfo scale = kernel("scale_rows", {BindingAccess::read, BindingAccess::write}, 8);
    scale.bindings[1].set = 1;
    scale.bindings[1].binding = 0;
    scale.spirv = {0x07230203, 0x00010300, 0x0008000b, 0x34, 0};
    scale.specialization = {{0, {0x40, 0, 0, 0}}, {7, {1}}};
    scale.required_subgroup_size = 32;
    scale.pipeline_flags = 0x10;
    KernelInfo acc = kernel("accumulate", {BindingAccess::read, BindingAccess::write});
    acc.bindings[0].descriptor = DescriptorKind::uniform_buffer;
    acc.bindings[1].set = 1;
    acc.bindings[1].binding = 0;
    acc.bindings[1].evidence = AccessEvidence::code;
    acc.spirv = {0x07230203, 0x00010000, 1, 2, 3, 4};
    KernelInfo other = kernel("sampled", {BindingAccess::read});
    other.bindings[0].descriptor = DescriptorKind::other;
    other.spirv = {0x07230203, 0x00010000, 1, 2, 3, 4, 5};
    KernelInfo fill;
    fill.name = "vkCmdFillBuffer";
    fill.stage = kStageTransfer;
    const auto k_scale = g.add_kernel(scale);
    const auto k_acc = g.add_kernel(acc);
    const auto k_other = g.add_kernel(other);
    const auto k_fill = g.add_kernel(fill);
    Node f = dispatch(k_fill, OpKind::other, "vkCmdFillBuffer out", {});
    f.writes = {{out, 0, 4096}};
    g.add_dispatch(f);
    MemoryDependency after_fill{kStageTransfer, kStageCompute, kAccessTransferWrite,
                                kAccessShaderRead | kAccessShaderWrite, std::nullopt};
    g.add_barrier(BarrierScope{BarrierOrigin::submission, {after_fill}, "semaphore 3"});
    Node s = dispatch(k_scale, OpKind::scale, "scale",
                      {BoundView(0, view(in, 0, 1024)), BoundView(0, view(mid, 0, 1024), 1)});
    s.push_constants = {0, 1, 0, 0, 0, 0, 0, 0x3f};
    s.workgroups = {4, 1, 1};
    g.add_dispatch(s);
    MemoryDependency buffer{kStageCompute, kStageCompute | kStageHost, kAccessShaderWrite,
                            kAccessShaderRead | kAccessHostRead, ByteRange{mid, 0, 1024}};
    MemoryDependency execution_only{kStageCompute, kStageTransfer, 0, 0, std::nullopt};
    g.add_barrier(BarrierScope{BarrierOrigin::pipeline_barrier, {buffer, execution_only}, ""});
    MemoryDependency after_set{kStageCompute, kStageCompute, kAccessShaderWrite, kAccessShaderRead,
                               std::nullopt};
    after_set.event_set_at = 2;  // set after the fill, before "scale"
    g.add_barrier(BarrierScope{BarrierOrigin::wait_events, {after_set}, "event 1"});
    g.add_barrier();
    g.add_dispatch(
        dispatch(k_acc, OpKind::other, "accumulate",
                 {BoundView(0, view(mid, 0, 1024)), BoundView(0, view(out, 0, 4096), 1)}));
    g.add_dispatch(dispatch(k_other, OpKind::other, "sampled", {BoundView(0, view(mid, 0, 64))}));
    g.nodes.back().ranges_known = false;

    Snapshot captured;
    captured.stage = "captured";
    captured.graph = g;
    captured.stats.dispatches = g.dispatch_count();
    captured.stats.barriers = g.barrier_count();
    Snapshot reordered = captured;
    reordered.stage = "reordered (levels)";
    ComputeGraph plain = g;
    plain.barrier_scopes.clear();
    for (Node& n : plain.nodes)
        if (n.is_barrier()) n = Node::barrier();
    reordered.graph = std::move(plain);
    doc.snapshots = {captured, reordered};

    CaptureSource src;
    src.program = "/usr/bin/scale-demo";
    src.arguments = {"--size", "1024", "naïve ünïcode"};
    src.working_directory = "/tmp";
    src.range = "submits 2..3";
    src.layer_version = "graphlens-layer 0.1.0";
    src.instance_extensions = {"VK_EXT_debug_utils"};
    src.device_extensions = {"VK_KHR_push_descriptor", "VK_KHR_synchronization2"};
    src.features = {"shaderInt16", "synchronization2"};
    src.submissions = {{2, 0, 0, 0, 1, ""}, {3, 1, 2, 1, g.nodes.size(), "host wait"}};
    src.notes = {{std::nullopt, "vkCmdFillBuffer recorded as a pseudo-kernel"},
                 {NodeId{3}, "binding 0 of 'sampled' is an image: its ranges are unknown"}};
    doc.source = src;
    return doc;
}

inline std::filesystem::path test_data(const std::string& relative) {
    return std::filesystem::path(GRAPHLENS_TEST_DATA_DIR) / relative;
}

}  // namespace graphlens::test
