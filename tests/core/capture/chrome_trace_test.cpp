// Specification of the Chrome trace export: one track per mode, repeats end to end, and
// per-dispatch slices named by label, in microseconds; with the graph, hazards as flow arrows
// between the per-dispatch slices and barriers as instant markers with their reason; every
// event as the Trace Event Format (Chrome's "Trace Event Format" document) defines it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "capture_fixtures.h"
#include "graphlens/capture/chrome_trace.h"

namespace graphlens {
namespace {

using Json = nlohmann::json;

std::vector<Json> events_of(const Json& trace, int tid, const std::string& phase) {
    std::vector<Json> out;
    for (const auto& e : trace["traceEvents"])
        if (e.value("tid", -1) == tid && e["ph"] == phase) out.push_back(e);
    return out;
}

TEST(ChromeTrace, OneNamedTrackPerModeWithItsRepeatsEndToEnd) {
    const RunResult run = test::small_run();
    const Json trace = Json::parse(chrome_trace_json(run));
    for (int tid = 1; tid <= 2; ++tid) {
        const ModeResult& mode = run.modes[static_cast<size_t>(tid - 1)];
        const auto meta = events_of(trace, tid, "M");
        ASSERT_FALSE(meta.empty());
        EXPECT_EQ(meta[0]["args"]["name"], mode.mode);
        const auto slices = events_of(trace, tid, "X");
        ASSERT_EQ(slices.size(), mode.gpu_ns.samples.size());
        double t_us = 0;
        for (size_t i = 0; i < slices.size(); ++i) {
            EXPECT_DOUBLE_EQ(slices[i]["ts"].get<double>(), t_us);
            EXPECT_DOUBLE_EQ(slices[i]["dur"].get<double>(), mode.gpu_ns.samples[i] / 1000.0);
            t_us += mode.gpu_ns.samples[i] / 1000.0;
        }
    }
}

TEST(ChromeTrace, PerDispatchSlicesAreNamedByLabel) {
    const RunResult run = test::small_run();
    const Json trace = Json::parse(chrome_trace_json(run));
    const auto slices = events_of(trace, 3, "X");
    ASSERT_EQ(slices.size(), run.per_dispatch.size());
    for (size_t i = 0; i < slices.size(); ++i) {
        EXPECT_EQ(slices[i]["name"], run.per_dispatch[i].label);
        EXPECT_DOUBLE_EQ(slices[i]["ts"].get<double>(), run.per_dispatch[i].start_ns / 1000.0);
        EXPECT_EQ(slices[i]["args"]["op"], op_kind_name(run.per_dispatch[i].op));
    }
}

TEST(ChromeTrace, PerGroupTimingsGetATrackOfTheirOwn) {
    const RunResult run = test::small_run();
    const Json trace = Json::parse(chrome_trace_json(run));
    const auto meta = events_of(trace, 4, "M");
    ASSERT_FALSE(meta.empty());
    EXPECT_EQ(meta[0]["args"]["name"], "groups of elided (profiled)");
    const auto slices = events_of(trace, 4, "X");
    ASSERT_EQ(slices.size(), run.per_group.size());
    EXPECT_DOUBLE_EQ(slices[1]["ts"].get<double>(), run.per_group[1].start_ns / 1000.0);
    EXPECT_EQ(slices[1]["args"]["first_label"], run.per_group[1].first_label);
}

TEST(ChromeTrace, ARunWithoutProfilesHasOnlyModeTracks) {
    RunResult run = test::small_run();
    run.per_dispatch.clear();
    run.per_group.clear();
    const Json trace = Json::parse(chrome_trace_json(run));
    EXPECT_TRUE(events_of(trace, 3, "X").empty());
    EXPECT_TRUE(events_of(trace, 3, "M").empty());
    // ... and still every mode's track with its repeats.
    for (int tid = 1; tid <= 2; ++tid) {
        const ModeResult& mode = run.modes[static_cast<size_t>(tid - 1)];
        const auto meta = events_of(trace, tid, "M");
        ASSERT_FALSE(meta.empty());
        EXPECT_EQ(meta[0]["args"]["name"], mode.mode);
        EXPECT_EQ(events_of(trace, tid, "X").size(), mode.gpu_ns.samples.size());
        EXPECT_FALSE(mode.gpu_ns.samples.empty());
    }
}

// The events of the per-dispatch track of small_run() (tid 3) traced with small_graph().
Json traced_small_run() {
    const ComputeGraph g = test::small_graph();
    return Json::parse(chrome_trace_json(test::small_run(), TraceGraph{&g, "hand-built graph"}));
}

std::vector<Json> events_of_category(const Json& trace, const std::string& category) {
    std::vector<Json> out;
    for (const auto& e : trace["traceEvents"])
        if (e.value("cat", "") == category) out.push_back(e);
    return out;
}

TEST(ChromeTrace, HazardsAreFlowsFromTheEarlierDispatchToTheLaterOne) {
    const Json trace = traced_small_run();
    const auto flows = events_of_category(trace, "hazard");
    // small_graph: the norm writes what the mul reads, the mul writes what the residual reads
    // (the fence has no slice: it was not profiled).
    ASSERT_EQ(flows.size(), 4u);
    const std::vector<std::pair<double, double>> ends = {{0.0, 0.41}, {0.41, 0.72}};
    for (size_t k = 0; k < 2; ++k) {
        const Json& start = flows[2 * k];
        const Json& finish = flows[2 * k + 1];
        EXPECT_EQ(start["ph"], "s");
        EXPECT_EQ(finish["ph"], "f");
        EXPECT_EQ(finish["bp"], "e");  // binds to the slice that starts there
        EXPECT_EQ(start["id"], finish["id"]);
        EXPECT_EQ(start["name"], "RAW");
        EXPECT_EQ(start["tid"], 3);
        EXPECT_EQ(finish["tid"], 3);
        EXPECT_DOUBLE_EQ(start["ts"].get<double>(), ends[k].first);
        EXPECT_DOUBLE_EQ(finish["ts"].get<double>(), ends[k].second);
    }
    EXPECT_NE(flows[0]["id"], flows[2]["id"]);
    EXPECT_EQ(flows[2]["args"]["hazard"],
              "RAW blk.0.attn_norm_mul -> blk.0.residual on activations [1024, 1536)");
}

TEST(ChromeTrace, BarriersAreInstantMarkersWithTheHazardsThatNeedThem) {
    const Json trace = traced_small_run();
    const auto barriers = events_of_category(trace, "barrier");
    ASSERT_EQ(barriers.size(), 1u);
    EXPECT_EQ(barriers[0]["ph"], "i");
    EXPECT_EQ(barriers[0]["s"], "t");
    EXPECT_EQ(barriers[0]["tid"], 3);
    EXPECT_DOUBLE_EQ(barriers[0]["ts"].get<double>(), 0.72);  // where the residual starts
    EXPECT_EQ(barriers[0]["args"]["redundant"], false);
    // The group after it also holds small_graph's fence (a dispatch of unknown ranges).
    EXPECT_EQ(barriers[0]["args"]["reason"],
              "RAW blk.0.attn_norm_mul -> blk.0.residual on activations [1024, 1536); a fence in "
              "an adjacent group");
}

TEST(ChromeTrace, ARedundantBarrierSaysSo) {
    ComputeGraph g = test::small_graph();
    // A second barrier right after the first separates nothing.
    g.nodes.insert(g.nodes.begin() + 3, g.nodes[2]);
    const Json trace = Json::parse(chrome_trace_json(test::small_run(), TraceGraph{&g, ""}));
    const auto barriers = events_of_category(trace, "barrier");
    ASSERT_EQ(barriers.size(), 2u);
    EXPECT_EQ(barriers[0]["args"]["redundant"], true);
    EXPECT_EQ(barriers[0]["args"]["reason"], "redundant: no hazard crosses only it");
}

TEST(ChromeTrace, EachConcurrencyGroupHasATrackWithItsDispatches) {
    const Json trace = traced_small_run();
    // small_graph: norm and mul | barrier | residual and the (unprofiled) fence.
    std::vector<std::pair<int, std::string>> tracks;
    for (const auto& e : trace["traceEvents"])
        if (e["name"] == "thread_name" &&
            e["args"]["name"].get<std::string>().rfind("concurrency group", 0) == 0)
            tracks.emplace_back(e["tid"].get<int>(), e["args"]["name"].get<std::string>());
    ASSERT_EQ(tracks.size(), 2u);
    EXPECT_EQ(tracks[0].second, "concurrency group 0");
    EXPECT_EQ(tracks[1].second, "concurrency group 1");
    const auto first = events_of(trace, tracks[0].first, "X");
    const auto second = events_of(trace, tracks[1].first, "X");
    ASSERT_EQ(first.size(), 2u);
    ASSERT_EQ(second.size(), 1u);
    EXPECT_EQ(first[0]["name"], "blk.0.attn_norm");
    EXPECT_EQ(first[1]["name"], "blk.0.attn_norm_mul");
    EXPECT_EQ(second[0]["name"], "blk.0.residual");
    EXPECT_DOUBLE_EQ(second[0]["ts"].get<double>(), 0.72);
    // No group track without the graph.
    const Json plain = Json::parse(chrome_trace_json(test::small_run()));
    for (const auto& e : plain["traceEvents"]) EXPECT_NE(e.value("cat", ""), "group dispatch");
}

TEST(ChromeTrace, TheSourceIsInTheMetadata) {
    EXPECT_EQ(traced_small_run()["otherData"]["source"], "hand-built graph");
}

// The Trace Event Format's required fields per phase: every event has a name, a phase, a pid;
// complete events a ts and a non-negative dur; flow events an id and a ts inside a slice of
// their own thread; instant events a scope of g, p or t; metadata events args.
TEST(ChromeTrace, EveryEventFollowsTheTraceEventFormat) {
    const Json trace = traced_small_run();
    ASSERT_TRUE(trace["traceEvents"].is_array());
    const std::set<std::string> phases = {"X", "M", "s", "f", "i"};
    for (const auto& e : trace["traceEvents"]) {
        ASSERT_TRUE(e["name"].is_string()) << e;
        ASSERT_TRUE(e["ph"].is_string()) << e;
        ASSERT_TRUE(phases.count(e["ph"].get<std::string>())) << e;
        ASSERT_TRUE(e["pid"].is_number_integer()) << e;
        const std::string ph = e["ph"];
        if (ph == "M") {
            EXPECT_TRUE(e["args"].is_object()) << e;
            continue;
        }
        ASSERT_TRUE(e["ts"].is_number()) << e;
        ASSERT_TRUE(e["tid"].is_number_integer()) << e;
        if (ph == "X") {
            EXPECT_GE(e["dur"].get<double>(), 0.0) << e;
        }
        if (ph == "i") {
            EXPECT_TRUE(e["s"] == "g" || e["s"] == "p" || e["s"] == "t") << e;
        }
        if (ph == "s" || ph == "f") {
            EXPECT_TRUE(e.contains("id")) << e;
            bool inside = false;
            for (const auto& x : events_of(trace, e["tid"], "X")) {
                const double t = e["ts"], begin = x["ts"], end = begin + x["dur"].get<double>();
                inside |= t >= begin && t <= end;
            }
            EXPECT_TRUE(inside) << "a flow event outside every slice of its thread: " << e;
        }
    }
}

}  // namespace
}  // namespace graphlens
