#pragma once
// Reports of a capture: one ReportSummary (computed once from a CaptureDocument) rendered as
// HTML (one self-contained file, inline SVG charts, no network), Markdown (pastes into a pull
// request), CSV (one row per captured dispatch) or JSON (machine-readable summary).
// `graphlens-cli report capture.json --format html|md|csv|json -o FILE` is the CLI face.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphlens/capture/capture_file.h"
#include "graphlens/graph/hazard.h"
#include "graphlens/graph/pass_pipeline.h"

namespace graphlens {

struct ReportOptions {
    /// Used only when the capture holds no snapshots: the report then runs the pipeline.
    PassOptions passes;
    size_t top_barrier_causes = 10;  ///< rows of "barriers that cost most"
    size_t max_listed = 50;          ///< cap of the redundant-barrier and near-miss lists
    size_t strip_nodes = 1500;       ///< nodes drawn per schedule strip in HTML (first n)
};

struct StageRow {
    std::string stage;
    ScheduleStats stats;
    size_t reordered = 0;
    size_t fusions_applied = 0;
    size_t near_misses = 0;
    double pass_ms = 0;
    size_t races = 0;  ///< hazards of the stage's own order no barrier orders (find_races)
};

/// One dispatch-facing view of a schedule for the HTML strip: per node, its op kind or a
/// barrier (op empty).
struct StripNode {
    bool barrier = false;
    OpKind op = OpKind::other;
    std::string label;
};

/// A reason barriers exist, aggregated over the final stage: hazards of one kind on one
/// allocation between dispatches of two op kinds ("RAW on activations, rms_norm → mul").
struct BarrierCause {
    bool fence = false;  ///< a dispatch with unknown ranges forces it (kind/allocation unused)
    HazardKind kind = HazardKind::raw;
    std::string allocation;
    std::string earlier_op, later_op;
    size_t barriers = 0;  ///< barriers this cause forces (alone or with others)
    std::string example;  ///< one barrier: "blk.3.attn_norm → blk.3.attn_norm_mul, [a, b)"
};

struct RedundantBarrier {
    std::string stage;
    size_t node = 0;            ///< node index of the barrier in that stage
    std::string before, after;  ///< labels of the dispatches around it ("" at the ends)
};

/// A race of the captured schedule (find_races): a hazard no barrier between its ends orders.
struct RaceRow {
    HazardKind kind = HazardKind::raw;
    std::string allocation;
    uint64_t begin = 0, end = 0;    ///< the bytes both commands touch
    size_t earlier = 0, later = 0;  ///< node indices in the captured graph
    std::string earlier_label, later_label;
    std::string explanation;  ///< Race::explanation: the barrier missing, or why one does not cover
};

struct FusionRow {
    std::string pattern;
    std::vector<std::string> labels;  ///< labels of the (candidate) chain's dispatches
    bool applied = false;
    std::string reason;
};

struct ModeRow {
    ModeResult result;       ///< as run (samples included)
    double gpu_speedup = 0;  ///< reference median / this median (0 when not comparable)
    double wall_speedup = 0;
};

struct TimeShare {
    std::string key;  ///< op kind or layer ("blk.3", or "model" for dispatches outside layers)
    size_t dispatches = 0;
    double gpu_ns = 0;
};

struct DispatchRow {
    size_t position = 0;  ///< index among the captured graph's nodes
    NodeId id = 0;
    std::string label;
    OpKind op = OpKind::other;
    std::string kernel;
    std::array<uint32_t, 3> workgroups{1, 1, 1};
    uint64_t read_bytes = 0, write_bytes = 0;
    bool ranges_known = true;
    size_t captured_group = 0;  ///< concurrency group in the captured schedule
    size_t races = 0;           ///< races of the captured schedule this dispatch is an end of
    /// Where the dispatch ended up in the final stage: its position and group, or the fused
    /// dispatch that absorbed it.
    std::optional<size_t> final_position;
    std::optional<size_t> final_group;
    std::optional<NodeId> fused_into;
    std::optional<double> gpu_start_ns, gpu_ns;  ///< from per-dispatch timings
};

struct ReportSummary {
    std::string generator;
    CaptureDevice device;
    std::string workload;  ///< run.workload, else metadata "workload"/"model"+"phase"
    std::vector<std::pair<std::string, std::string>> metadata;
    bool pipeline_run_by_report = false;  ///< the capture had no snapshots
    std::vector<StageRow> stages;
    size_t barrier_lower_bound = 0;  ///< of the captured graph
    std::string final_stage;
    std::vector<size_t> final_histogram;  ///< group-size histogram of the final stage
    std::vector<FusionRow> fusions_applied, near_misses;  ///< near_misses capped to max_listed
    size_t near_miss_total = 0;
    std::vector<BarrierCause> barrier_causes;          ///< sorted by barriers, most first
    size_t final_barriers_explained = 0;               ///< necessary barriers in the final stage
    std::vector<RedundantBarrier> redundant_barriers;  ///< captured and final stage
    size_t redundant_total = 0;                        ///< before capping to max_listed
    std::vector<RaceRow> races;  ///< of the captured schedule, capped to max_listed
    size_t race_total = 0;
    std::string reference_mode;  ///< the mode speed-ups are relative to ("serial" if run)
    /// Where and when the timings were taken (RunResult::device, date, warm-up and timed runs
    /// per mode); the device may differ from the one the capture was recorded on.
    std::string run_device, run_date;
    uint32_t run_warmup = 0, run_repeats = 0;
    std::vector<ModeRow> modes;
    std::vector<TimeShare> time_per_op, time_per_layer;  ///< empty without per-dispatch timings
    std::vector<DispatchRow> dispatches;
    /// Schedule strips (first ReportOptions::strip_nodes nodes) of the captured and final stage.
    std::vector<std::pair<std::string, std::vector<StripNode>>> strips;
    size_t strip_total_nodes = 0;
};

/// Computes everything a report shows. Runs PassPipeline when the capture has no snapshots.
ReportSummary summarize_capture(const CaptureDocument& doc, const ReportOptions& options = {});

enum class ReportFormat : uint8_t { html, markdown, csv, json };
std::optional<ReportFormat> report_format_from_name(std::string_view name);  // html|md|csv|json
std::string_view report_format_name(ReportFormat f);

std::string report_html(const ReportSummary& s);
std::string report_markdown(const ReportSummary& s);
std::string report_csv(const ReportSummary& s);
std::string report_json(const ReportSummary& s);
std::string render_report(const ReportSummary& s, ReportFormat format);

/// "blk.3" for "blk.3.attn_q" (the model layer a label belongs to), "" when the label names
/// no layer.
std::string layer_of_label(std::string_view label);

}  // namespace graphlens
