// CSV (one row per captured dispatch, RFC 4180 quoting) and JSON (the summary as data).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "graphlens/capture/report.h"

namespace graphlens {
namespace {

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

template <typename T>
std::string opt(const std::optional<T>& v) {
    return v ? fmt::format("{}", *v) : std::string();
}

using Json = nlohmann::ordered_json;

Json timing_json(const TimingSummary& t) {
    return Json{{"median_ns", t.median},
                {"min_ns", t.min},
                {"max_ns", t.max},
                {"samples", t.samples.size()}};
}

Json stats_json(const ScheduleStats& st) {
    return Json{{"dispatches", st.dispatches},
                {"barriers", st.barriers},
                {"groups", st.groups},
                {"mean_group_size", st.mean_group_size},
                {"group_size_histogram", st.group_size_histogram},
                {"dag_depth", st.dag_depth},
                {"barrier_lower_bound", st.barrier_lower_bound},
                {"fences", st.fences},
                {"hazards", st.hazards}};
}

}  // namespace

std::string report_csv(const ReportSummary& s) {
    std::string out =
        "position,id,label,op,kernel,workgroups_x,workgroups_y,workgroups_z,read_bytes,"
        "write_bytes,ranges_known,captured_group,final_position,final_group,fused_into,"
        "gpu_start_ns,gpu_ns,races\n";
    for (const DispatchRow& r : s.dispatches) {
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.position,
                           r.id, csv_field(r.label), op_kind_name(r.op), csv_field(r.kernel),
                           r.workgroups[0], r.workgroups[1], r.workgroups[2], r.read_bytes,
                           r.write_bytes, r.ranges_known ? 1 : 0, r.captured_group,
                           opt(r.final_position), opt(r.final_group), opt(r.fused_into),
                           opt(r.gpu_start_ns), opt(r.gpu_ns), r.races);
    }
    return out;
}

// One function, key by key as the document reads: each key is a line or a loop over the
// summary's fields (all computed in summarize_capture); docs/capture-format.md lists them.
std::string report_json(const ReportSummary& s) {
    Json j = Json::object();
    j["workload"] = s.workload;
    j["generator"] = s.generator;
    j["device"] = Json{{"name", s.device.name},
                       {"driver", s.device.driver},
                       {"api_version", s.device.api_version},
                       {"type", s.device.type}};
    Json meta = Json::object();
    for (const auto& [k, v] : s.metadata) meta[k] = v;
    j["metadata"] = std::move(meta);
    j["pipeline_run_by_report"] = s.pipeline_run_by_report;
    Json stages = Json::array();
    for (const StageRow& r : s.stages)
        stages.push_back(Json{{"stage", r.stage},
                              {"stats", stats_json(r.stats)},
                              {"reordered", r.reordered},
                              {"fusions_applied", r.fusions_applied},
                              {"near_misses", r.near_misses},
                              {"races", r.races},
                              {"pass_ms", r.pass_ms}});
    j["stages"] = std::move(stages);
    j["barrier_lower_bound"] = s.barrier_lower_bound;
    j["final_stage"] = s.final_stage;
    j["final_group_size_histogram"] = s.final_histogram;
    auto fusions = [](const std::vector<FusionRow>& rows) {
        Json a = Json::array();
        for (const FusionRow& f : rows)
            a.push_back(Json{{"pattern", f.pattern},
                             {"dispatches", f.labels},
                             {"applied", f.applied},
                             {"reason", f.reason}});
        return a;
    };
    j["fusions_applied"] = fusions(s.fusions_applied);
    j["near_miss_total"] = s.near_miss_total;
    j["near_misses"] = fusions(s.near_misses);
    j["necessary_barriers"] = s.final_barriers_explained;
    Json causes = Json::array();
    for (const BarrierCause& c : s.barrier_causes) {
        Json jc{{"fence", c.fence}, {"barriers", c.barriers}, {"example", c.example}};
        if (!c.fence) {
            jc["hazard"] = hazard_kind_name(c.kind);
            jc["allocation"] = c.allocation;
            jc["earlier_op"] = c.earlier_op;
            jc["later_op"] = c.later_op;
        } else {
            jc["fence_op"] = c.earlier_op;
        }
        causes.push_back(std::move(jc));
    }
    j["barrier_causes"] = std::move(causes);
    Json redundant = Json::array();
    for (const RedundantBarrier& b : s.redundant_barriers)
        redundant.push_back(
            Json{{"stage", b.stage}, {"node", b.node}, {"before", b.before}, {"after", b.after}});
    Json races = Json::array();
    for (const RaceRow& r : s.races)
        races.push_back(Json{{"hazard", hazard_kind_name(r.kind)},
                             {"allocation", r.allocation},
                             {"begin", r.begin},
                             {"end", r.end},
                             {"earlier", r.earlier},
                             {"later", r.later},
                             {"earlier_label", r.earlier_label},
                             {"later_label", r.later_label},
                             {"explanation", r.explanation}});
    j["races_total"] = s.race_total;
    j["races"] = std::move(races);
    j["redundant_barriers_total"] = s.redundant_total;
    j["redundant_barriers"] = std::move(redundant);
    j["reference_mode"] = s.reference_mode;
    Json modes = Json::array();
    for (const ModeRow& m : s.modes)
        modes.push_back(Json{{"mode", m.result.mode},
                             {"gpu", timing_json(m.result.gpu_ns)},
                             {"wall", timing_json(m.result.wall_ns)},
                             {"encode", timing_json(m.result.encode_ns)},
                             {"gpu_speedup", m.gpu_speedup},
                             {"wall_speedup", m.wall_speedup},
                             {"dispatches", m.result.dispatches},
                             {"barriers", m.result.barriers},
                             {"command_buffers", m.result.command_buffers},
                             {"outputs_match", m.result.outputs_match},
                             {"comparison", m.result.comparison},
                             {"error", m.result.error}});
    j["modes"] = std::move(modes);
    auto shares = [](const std::vector<TimeShare>& rows) {
        Json a = Json::array();
        for (const TimeShare& t : rows)
            a.push_back(Json{{"key", t.key}, {"dispatches", t.dispatches}, {"gpu_ns", t.gpu_ns}});
        return a;
    };
    j["time_per_op"] = shares(s.time_per_op);
    j["time_per_layer"] = shares(s.time_per_layer);
    j["dispatches"] = s.dispatches.size();
    return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace graphlens
