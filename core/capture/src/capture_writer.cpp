// Capture writer: builds the JSON document (fields in the documented order, defaults
// omitted) and prints it with one allocation / kernel / node per line, so captures diff well
// and save → load → save gives the same bytes.
#include <cmath>
#include <fstream>
#include <system_error>

#include "capture/src/barrier_scope_json.h"
#include "capture/src/capture_json.h"
#include "capture/src/capture_source_json.h"
#include "capture/src/kernel_code_json.h"
#include "capture/src/kernel_stages_json.h"
#include "capture/src/node_text.h"
#include "graphlens/capture/capture_file.h"

namespace graphlens {
namespace {
using capture_detail::Json;

double finite(double v, const std::string& path) {
    if (!std::isfinite(v)) throw CaptureError(path, "a finite number", std::to_string(v));
    return v;
}

Json allocation_json(const AllocationInfo& a) {
    Json j = Json::object();
    j["id"] = a.id;
    j["size"] = a.size;
    j["name"] = a.name;
    j["usage"] = allocation_usage_name(a.usage);
    if (a.device_address) j["device_address"] = true;
    return j;
}

Json kernel_binding_json(const KernelBinding& b) {
    Json j = Json::object();
    if (b.set != 0) j["set"] = b.set;
    j["binding"] = b.binding;
    j["access"] = binding_access_name(b.access);
    if (!b.name.empty()) j["name"] = b.name;
    if (b.evidence != AccessEvidence::decoration) j["evidence"] = access_evidence_name(b.evidence);
    if (b.descriptor != DescriptorKind::storage_buffer)
        j["descriptor"] = descriptor_kind_name(b.descriptor);
    return j;
}

/// The version-2 members of a kernel, each only when it differs from its default, so a
/// GraphLens kernel is written as in version 1.
void kernel_code_members(Json& j, const KernelInfo& k, const std::string& path) {
    if (k.stage == kStageTransfer)
        j["stage"] = "transfer";
    else if (k.stage != kStageCompute)
        throw CaptureError(path + "/stage", "a kernel stage: compute or transfer",
                           std::to_string(k.stage));
    if (k.required_subgroup_size != 0) j["required_subgroup_size"] = k.required_subgroup_size;
    if (k.pipeline_flags != 0) j["pipeline_flags"] = k.pipeline_flags;
    if (!k.specialization.empty())
        j["specialization"] = capture_detail::specialization_json(k.specialization);
    if (!k.spirv.empty()) j["spirv_base64"] = capture_detail::spirv_base64(k.spirv);
    if (!k.stages.empty()) j["stages"] = capture_detail::kernel_stages_json(k.stages);
}

Json kernel_json(const KernelInfo& k, size_t id, const std::string& path) {
    Json j = Json::object();
    j["id"] = id;
    j["name"] = k.name;
    if (k.entry_point != "main") j["entry_point"] = k.entry_point;
    j["local_size"] = {k.local_size[0], k.local_size[1], k.local_size[2]};
    j["push_constant_size"] = k.push_constant_size;
    if (k.spirv_hash != 0) j["spirv_hash"] = capture_detail::u64_to_hex16(k.spirv_hash);
    Json bs = Json::array();
    for (const auto& b : k.bindings) bs.push_back(kernel_binding_json(b));
    j["bindings"] = std::move(bs);
    kernel_code_members(j, k, path);
    return j;
}

Json metadata_json(const std::map<std::string, std::string>& m) {
    Json j = Json::object();
    for (const auto& [k, v] : m) j[k] = v;
    return j;
}

/// allocations, kernels (and metadata, barrier scopes) of a graph; `base` = the top-level graph
/// whose lists a snapshot inherits (nullptr for the top level itself, which always writes
/// them, barrier scopes only when there are any).
void graph_members(Json& j, const ComputeGraph& g, const ComputeGraph* base,
                   const std::string& path) {
    if (!base || g.metadata != base->metadata) j["metadata"] = metadata_json(g.metadata);
    if (!base || g.allocations != base->allocations) {
        Json as = Json::array();
        for (const auto& a : g.allocations) as.push_back(allocation_json(a));
        j["allocations"] = std::move(as);
    }
    if (!base || g.kernels != base->kernels) {
        Json ks = Json::array();
        for (size_t i = 0; i < g.kernels.size(); ++i)
            ks.push_back(kernel_json(g.kernels[i], i, path + "/kernels/" + std::to_string(i)));
        j["kernels"] = std::move(ks);
    }
    // Barrier scopes and nodes are written straight from the graph when printed (json_text.h);
    // here only their places.
    if (base ? g.barrier_scopes != base->barrier_scopes : !g.barrier_scopes.empty())
        j["barrier_scopes"] = nullptr;
    j["nodes"] = nullptr;
}

Json snapshot_json(const Snapshot& s, const ComputeGraph& base, const std::string& path) {
    Json j = Json::object();
    j["stage"] = s.stage;
    j["pass_ms"] = finite(s.pass_ms, path + "/pass_ms");
    j["reordered"] = s.reordered;
    j["split_first_dispatches"] = s.split_first_dispatches;
    const ScheduleStats& st = s.stats;
    Json js = Json::object();
    js["dispatches"] = st.dispatches;
    js["barriers"] = st.barriers;
    js["groups"] = st.groups;
    js["mean_group_size"] = finite(st.mean_group_size, path + "/stats/mean_group_size");
    js["group_size_histogram"] = st.group_size_histogram;
    js["dag_depth"] = st.dag_depth;
    js["barrier_lower_bound"] = st.barrier_lower_bound;
    js["fences"] = st.fences;
    js["hazards"] = st.hazards;
    j["stats"] = std::move(js);
    Json jd = Json::object();
    jd["moved"] = s.diff.moved;
    jd["fused"] = s.diff.fused;
    jd["removed"] = s.diff.removed;
    jd["barriers_added"] = s.diff.barriers_added;
    jd["barriers_removed"] = s.diff.barriers_removed;
    j["diff"] = std::move(jd);
    Json fs = Json::array();
    for (const auto& f : s.fusions) {
        Json jf = Json::object();
        jf["pattern"] = f.pattern;
        jf["nodes"] = f.nodes;
        jf["applied"] = f.applied;
        if (f.applied) jf["fused_id"] = f.fused_id;
        if (!f.reason.empty()) jf["reason"] = f.reason;
        fs.push_back(std::move(jf));
    }
    j["fusions"] = std::move(fs);
    j["diagnostics"] = s.diagnostics;
    graph_members(j, s.graph, &base, path);
    return j;
}

Json mismatch_json(const OutputMismatch& m) {
    Json j = Json::object();
    j["allocation"] = m.allocation;
    j["byte"] = m.byte;
    j["expected"] = m.expected;
    j["actual"] = m.actual;
    if (m.last_writer) j["last_writer"] = *m.last_writer;
    if (!m.last_writer_label.empty()) j["last_writer_label"] = m.last_writer_label;
    return j;
}

Json timing_json(const TimingSummary& t, const std::string& path) {
    Json j = Json::object();
    j["median"] = finite(t.median, path + "/median");
    j["min"] = finite(t.min, path + "/min");
    j["max"] = finite(t.max, path + "/max");
    Json samples = Json::array();
    for (size_t i = 0; i < t.samples.size(); ++i)
        samples.push_back(finite(t.samples[i], path + "/samples/" + std::to_string(i)));
    j["samples"] = std::move(samples);
    return j;
}

Json run_json(const RunResult& r) {
    Json j = Json::object();
    j["device"] = r.device;
    j["workload"] = r.workload;
    j["date"] = r.date;
    j["warmup"] = r.warmup;
    j["repeats"] = r.repeats;
    Json modes = Json::array();
    for (size_t i = 0; i < r.modes.size(); ++i) {
        const ModeResult& m = r.modes[i];
        const std::string path = "/run/modes/" + std::to_string(i);
        Json jm = Json::object();
        jm["mode"] = m.mode;
        jm["dispatches"] = m.dispatches;
        jm["barriers"] = m.barriers;
        jm["command_buffers"] = m.command_buffers;
        jm["outputs_match"] = m.outputs_match;
        if (!m.comparison.empty()) jm["comparison"] = m.comparison;
        if (m.mismatch) jm["mismatch"] = mismatch_json(*m.mismatch);
        if (!m.error.empty()) jm["error"] = m.error;
        jm["gpu_ns"] = timing_json(m.gpu_ns, path + "/gpu_ns");
        jm["encode_ns"] = timing_json(m.encode_ns, path + "/encode_ns");
        jm["wall_ns"] = timing_json(m.wall_ns, path + "/wall_ns");
        modes.push_back(std::move(jm));
    }
    j["modes"] = std::move(modes);
    Json per = Json::array();
    for (size_t i = 0; i < r.per_dispatch.size(); ++i) {
        const DispatchTiming& d = r.per_dispatch[i];
        const std::string path = "/run/per_dispatch/" + std::to_string(i);
        Json jd = Json::object();
        jd["node"] = d.node;
        if (!d.label.empty()) jd["label"] = d.label;
        if (d.op != OpKind::other) jd["op"] = op_kind_name(d.op);
        jd["start_ns"] = finite(d.start_ns, path + "/start_ns");
        jd["end_ns"] = finite(d.end_ns, path + "/end_ns");
        per.push_back(std::move(jd));
    }
    j["per_dispatch"] = std::move(per);
    if (!r.per_group_mode.empty()) j["per_group_mode"] = r.per_group_mode;
    Json groups = Json::array();
    for (size_t i = 0; i < r.per_group.size(); ++i) {
        const GroupTiming& g = r.per_group[i];
        const std::string path = "/run/per_group/" + std::to_string(i);
        Json jg = Json::object();
        jg["first_dispatch"] = g.first_dispatch;
        jg["dispatches"] = g.dispatches;
        if (!g.first_label.empty()) jg["first_label"] = g.first_label;
        jg["start_ns"] = finite(g.start_ns, path + "/start_ns");
        jg["end_ns"] = finite(g.end_ns, path + "/end_ns");
        groups.push_back(std::move(jg));
    }
    if (!groups.empty()) j["per_group"] = std::move(groups);
    return j;
}

void append_compact(std::string& out, const Json& v) {
    // Invalid UTF-8 in a label becomes U+FFFD once; the result then round-trips unchanged.
    out += v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

/// The graph whose nodes and barrier scopes an object printed by append_expanded holds ("nodes"
/// and "barrier_scopes" are placeholders there), and its JSON path.
struct NodesOf {
    const ComputeGraph* graph = nullptr;
    std::string path;
};

/// A list with one element per line, as append_expanded prints arrays.
template <class List, class Append>
void append_lines(std::string& out, const List& list, const std::string& pad, Append&& append) {
    if (list.empty()) {
        out += "[]";
        return;
    }
    out += "[\n";
    for (size_t i = 0; i < list.size(); ++i) {
        out += pad;
        out += "  ";
        append(out, i);
        out += i + 1 < list.size() ? ",\n" : "\n";
    }
    out += pad;
    out += "]";
}

/// Prints an object with one member per line; non-empty arrays list one element per line.
/// The snapshots' elements and "run" are expanded the same way (they hold node lists).
void append_expanded(std::string& out, const Json& obj, int indent, bool is_root,
                     const NodesOf& nodes, const std::vector<Snapshot>* snapshots) {
    const std::string pad(static_cast<size_t>(indent) + 2, ' ');
    out += "{\n";
    size_t i = 0;
    for (const auto& [key, value] : obj.items()) {
        out += pad;
        append_compact(out, Json(key));
        out += ": ";
        if (key == "nodes" && value.is_null() && nodes.graph) {
            const ComputeGraph& g = *nodes.graph;
            append_lines(out, g.nodes, pad, [&](std::string& o, size_t i) {
                capture_detail::append_node_text(o, g.nodes[i], g, nodes.path, i);
            });
        } else if (key == "barrier_scopes" && value.is_null() && nodes.graph) {
            const ComputeGraph& g = *nodes.graph;
            append_lines(out, g.barrier_scopes, pad, [&](std::string& o, size_t i) {
                capture_detail::append_barrier_scope_text(o, g.barrier_scopes[i]);
            });
        } else if (value.is_array() && !value.empty()) {
            out += "[\n";
            const bool expand_elements = is_root && key == "snapshots";
            size_t e = 0;
            for (const auto& element : value) {
                out += pad;
                out += "  ";
                if (expand_elements)
                    append_expanded(
                        out, element, indent + 4, false,
                        {&(*snapshots)[e].graph.get(), "/snapshots/" + std::to_string(e)}, nullptr);
                else
                    append_compact(out, element);
                out += ++e < value.size() ? ",\n" : "\n";
            }
            out += pad;
            out += "]";
        } else if (value.is_object() && is_root && (key == "run" || key == "source")) {
            append_expanded(out, value, indent + 2, false, {}, nullptr);
        } else {
            append_compact(out, value);
        }
        out += ++i < obj.size() ? ",\n" : "\n";
    }
    out.append(static_cast<size_t>(indent), ' ');
    out += "}";
}

Json device_json(const CaptureDevice& d) {
    Json j = Json::object();
    j["name"] = d.name;
    j["driver"] = d.driver;
    j["api_version"] = d.api_version;
    j["type"] = d.type;
    j["vendor_id"] = d.vendor_id;
    j["device_id"] = d.device_id;
    j["timestamp_period_ns"] = finite(d.timestamp_period_ns, "/device/timestamp_period_ns");
    j["timestamp_valid_bits"] = d.timestamp_valid_bits;
    j["subgroup_size"] = d.subgroup_size;
    j["extensions"] = d.extensions;
    return j;
}

}  // namespace

std::string save_capture_to_string(const CaptureDocument& doc) {
    // A document loaded from an older version holds nothing this one cannot say: it is
    // written as the current version.
    if (doc.format_version < kOldestCaptureFormatVersion ||
        doc.format_version > kCaptureFormatVersion)
        throw CaptureError("/format_version",
                           "version " + std::to_string(kOldestCaptureFormatVersion) + " to " +
                               std::to_string(kCaptureFormatVersion) + " (this build writes " +
                               std::to_string(kCaptureFormatVersion) + ")",
                           std::to_string(doc.format_version));
    Json root = Json::object();
    root["format"] = kCaptureFormatName;
    root["format_version"] = kCaptureFormatVersion;
    root["generator"] = doc.generator;
    root["device"] = device_json(doc.device);
    if (doc.source) root["source"] = capture_detail::capture_source_json(*doc.source);
    graph_members(root, doc.graph, nullptr, "");
    if (!doc.snapshots.empty()) {
        Json ss = Json::array();
        for (size_t i = 0; i < doc.snapshots.size(); ++i)
            ss.push_back(
                snapshot_json(doc.snapshots[i], doc.graph, "/snapshots/" + std::to_string(i)));
        root["snapshots"] = std::move(ss);
    }
    if (doc.run) root["run"] = run_json(*doc.run);
    std::string out;
    out.reserve(256 + 200 * doc.graph.nodes.size());
    append_expanded(out, root, 0, true, {&doc.graph, ""}, &doc.snapshots);
    out += '\n';
    return out;
}

void save_capture(const CaptureDocument& doc, const std::filesystem::path& path) {
    const std::string text = save_capture_to_string(doc);
    // Write next to the target and rename, so a crash never leaves half a capture behind.
    std::filesystem::path tmp = path;
    tmp += ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) throw CaptureError("", "a writable file", "cannot open for writing", tmp.string());
        f.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!f) throw CaptureError("", "a writable file", "write failed", tmp.string());
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp, ec);
        throw CaptureError("", "a writable file", "rename failed", path.string());
    }
}

}  // namespace graphlens
