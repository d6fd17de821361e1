#include "capture/src/capture_source_json.h"

#include <array>
#include <unordered_set>

namespace graphlens::capture_detail {

namespace {
using Limits = CaptureLimits;

/// How a submission is ordered after the one before; "" = not stated (the first one).
constexpr std::array<std::string_view, 4> kSyncNames{"", "none", "host wait", "semaphore"};

CaptureSubmission read_submission(const JsonRef& v, const Path& p, const ComputeGraph& graph) {
    Fields f(v, p, "a queue submission");
    f.only({"index", "queue_family", "queue_index", "first_node", "end_node", "sync"});
    CaptureSubmission s;
    s.index = as_u32(f.need("index", "the program's submission index"), p / "index");
    opt_u32(f, "queue_family", s.queue_family);
    opt_u32(f, "queue_index", s.queue_index);
    const uint64_t nodes = graph.nodes.size();
    s.end_node =
        as_u64(f.need("end_node", "the index after the submission's last node"), p / "end_node",
               nodes, "a node index of the graph, which has " + std::to_string(nodes) + " nodes");
    s.first_node = as_u64(f.need("first_node", "the index of the submission's first node"),
                          p / "first_node", s.end_node, "at most end_node");
    if (auto j = f.find("sync")) {
        const std::string_view sync = as_string(*j, p / "sync");
        if (std::find(kSyncNames.begin(), kSyncNames.end(), sync) == kSyncNames.end())
            fail(p / "sync", "\"none\", \"host wait\", \"semaphore\" or \"\"", j->describe());
        s.sync = sync;
    }
    return s;
}

/// Submissions follow each other: program order, and node ranges that do not go back.
void check_submission_order(const std::vector<CaptureSubmission>& subs, const Path& p) {
    for (size_t i = 1; i < subs.size(); ++i) {
        const CaptureSubmission& a = subs[i - 1];
        const CaptureSubmission& b = subs[i];
        if (b.index <= a.index)
            fail(p[i] / "index",
                 "a submission index above the previous one's " + std::to_string(a.index) +
                     " (program order)",
                 std::to_string(b.index));
        if (b.first_node < a.end_node)
            fail(p[i] / "first_node",
                 "a node index >= the previous submission's end_node " +
                     std::to_string(a.end_node) + " (submissions in order, without overlap)",
                 std::to_string(b.first_node));
    }
}

CaptureNote read_note(const JsonRef& v, const Path& p, const std::unordered_set<NodeId>& ids) {
    Fields f(v, p, "a recorder's note {node, text}");
    f.only({"node", "text"});
    CaptureNote n;
    if (auto j = f.find("node")) {
        n.node = as_u32(*j, p / "node");
        if (!ids.count(*n.node))
            fail(p / "node", "the id of a dispatch of the graph", std::to_string(*n.node));
    }
    n.text = as_string(f.need("text", "what the recorder could not follow"), p / "text");
    return n;
}
}  // namespace

Json capture_source_json(const CaptureSource& s) {
    Json j = Json::object();
    j["program"] = s.program;
    j["arguments"] = s.arguments;
    j["working_directory"] = s.working_directory;
    j["range"] = s.range;
    j["layer_version"] = s.layer_version;
    j["instance_extensions"] = s.instance_extensions;
    j["device_extensions"] = s.device_extensions;
    j["features"] = s.features;
    Json subs = Json::array();
    for (const auto& x : s.submissions) {
        Json js = Json::object();
        js["index"] = x.index;
        js["queue_family"] = x.queue_family;
        js["queue_index"] = x.queue_index;
        js["first_node"] = x.first_node;
        js["end_node"] = x.end_node;
        js["sync"] = x.sync;
        subs.push_back(std::move(js));
    }
    j["submissions"] = std::move(subs);
    Json notes = Json::array();
    for (const auto& n : s.notes) {
        Json jn = Json::object();
        if (n.node) jn["node"] = *n.node;
        jn["text"] = n.text;
        notes.push_back(std::move(jn));
    }
    j["notes"] = std::move(notes);
    return j;
}

CaptureSource read_capture_source(const JsonRef& v, const Path& p, const ComputeGraph& graph) {
    Fields f(v, p, "where the capture comes from");
    f.only({"program", "arguments", "working_directory", "range", "layer_version",
            "instance_extensions", "device_extensions", "features", "submissions", "notes"});
    CaptureSource s;
    opt_string(f, "program", s.program);
    opt_strings(f, "arguments", Limits::max_arguments, "arguments", s.arguments);
    opt_string(f, "working_directory", s.working_directory);
    opt_string(f, "range", s.range);
    opt_string(f, "layer_version", s.layer_version);
    opt_strings(f, "instance_extensions", Limits::max_extensions, "extension names",
                s.instance_extensions);
    opt_strings(f, "device_extensions", Limits::max_extensions, "extension names",
                s.device_extensions);
    opt_strings(f, "features", Limits::max_extensions, "feature names", s.features);
    opt_list(f, "submissions", Limits::max_submissions, "submissions", s.submissions,
             [&](const JsonRef& j, const Path& ps) { return read_submission(j, ps, graph); });
    check_submission_order(s.submissions, p / "submissions");
    std::unordered_set<NodeId> ids;
    for (const auto& n : graph.nodes)
        if (n.is_dispatch()) ids.insert(n.id);
    opt_list(f, "notes", Limits::max_notes, "notes", s.notes,
             [&](const JsonRef& j, const Path& pn) { return read_note(j, pn, ids); });
    return s;
}

}  // namespace graphlens::capture_detail
