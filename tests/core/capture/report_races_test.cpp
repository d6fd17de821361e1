// Specification of races in the reports: every format lists the captured schedule's races as
// find_races finds them (one source of truth), and counts them per stage.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "graphlens/capture/report.h"
#include "graphlens/graph/race_finder.h"

namespace graphlens {
namespace {

// A recorded program: two writers, then a reader of both. The barrier makes shader writes
// visible to shader reads for the bytes of the first writer only, so the second writer's RAW
// is a race.
CaptureDocument recorded_program_with_a_race() {
    CaptureDocument doc;
    ComputeGraph& g = doc.graph;
    const AllocationId buf = g.add_allocation("buffer", 256, AllocationUsage::scratch);
    KernelInfo k;
    k.name = "producer";
    g.add_kernel(k);
    auto dispatch = [&](const char* label, std::vector<ByteRange> reads,
                        std::vector<ByteRange> writes) {
        Node n;
        n.label = label;
        n.reads = std::move(reads);
        n.writes = std::move(writes);
        g.add_dispatch(std::move(n));
    };
    dispatch("write_a", {}, {{buf, 0, 64}});
    dispatch("write_b", {}, {{buf, 64, 128}});
    BarrierScope scope;
    scope.dependencies.push_back({kStageCompute, kStageCompute, kAccessShaderWrite,
                                  kAccessShaderRead, ByteRange{buf, 0, 64}});
    g.add_barrier(scope);
    dispatch("read_ab", {{buf, 0, 128}}, {{buf, 128, 256}});
    return doc;
}

TEST(ReportRaces, TheSummaryListsTheRacesFindRacesFinds) {
    const CaptureDocument doc = recorded_program_with_a_race();
    const std::vector<Race> races = find_races(doc.graph);
    ASSERT_EQ(races.size(), 1u);
    const ReportSummary s = summarize_capture(doc);
    EXPECT_EQ(s.race_total, races.size());
    ASSERT_EQ(s.races.size(), 1u);
    EXPECT_EQ(s.races[0].kind, HazardKind::raw);
    EXPECT_EQ(s.races[0].allocation, "buffer");
    EXPECT_EQ(s.races[0].begin, 64u);
    EXPECT_EQ(s.races[0].end, 128u);
    EXPECT_EQ(s.races[0].earlier_label, "write_b");
    EXPECT_EQ(s.races[0].later_label, "read_ab");
    EXPECT_EQ(s.races[0].explanation, races[0].explanation);
    // The captured stage has it; the planned stages order every hazard.
    ASSERT_FALSE(s.stages.empty());
    EXPECT_EQ(s.stages.front().races, 1u);
    EXPECT_EQ(s.stages.back().races, 0u);
}

TEST(ReportRaces, EveryFormatShowsThem) {
    const ReportSummary s = summarize_capture(recorded_program_with_a_race());
    const std::string why = s.races[0].explanation;
    EXPECT_NE(report_markdown(s).find("Races (hazards no barrier orders): 1"), std::string::npos);
    EXPECT_NE(report_html(s).find("Races (hazards no barrier orders): 1"), std::string::npos);
    EXPECT_NE(report_html(s).find("its buffer barrier covers bytes 0..64"), std::string::npos);
    const nlohmann::json j = nlohmann::json::parse(report_json(s));
    EXPECT_EQ(j["races_total"], 1);
    EXPECT_EQ(j["races"][0]["explanation"], why);
    EXPECT_EQ(j["stages"][0]["races"], 1);
    // CSV: one row per dispatch, the last column counting the races it is an end of.
    const std::string csv = report_csv(s);
    EXPECT_NE(csv.find(",races\n"), std::string::npos);
    EXPECT_NE(csv.find("write_a,"), std::string::npos);
    EXPECT_EQ(s.dispatches[1].races, 1u);  // write_b
    EXPECT_EQ(s.dispatches[0].races, 0u);  // write_a is ordered by the buffer barrier
}

TEST(ReportRaces, TheRedundantBarriersFollowTheScopes) {
    CaptureDocument doc = recorded_program_with_a_race();
    // A second barrier that orders only transfers covers no hazard of these compute commands.
    BarrierScope transfers;
    transfers.dependencies.push_back(
        {kStageTransfer, kStageTransfer, kAccessTransferWrite, kAccessTransferRead, std::nullopt});
    doc.graph.nodes.insert(doc.graph.nodes.begin() + 1, Node::barrier(2));
    doc.graph.barrier_scopes.push_back(transfers);
    const ReportSummary s = summarize_capture(doc);
    ASSERT_GE(s.redundant_total, 1u);
    EXPECT_EQ(s.redundant_barriers[0].stage, "captured");
    EXPECT_EQ(s.redundant_barriers[0].node, 1u);
}

}  // namespace
}  // namespace graphlens
