// Specification of the Chrome trace export: one track per mode, repeats end to end, and
// per-dispatch slices named by label, in microseconds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace graphlens
