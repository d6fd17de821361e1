// How the layer orders submissions the program orders without fence waits: a fence polled
// with vkGetFenceStatus, timeline semaphores waited for by value on the device and on the
// host, a value the host signalled. Its descriptor set is written with an update template and
// one dispatch runs in a secondary command buffer; both give dispatches with known ranges.
#include <gtest/gtest.h>

#include <array>
#include <stdexcept>
#include <string>

#include "layer_test_support.h"
#include "sync_layout.h"

namespace graphlens {
namespace {

using namespace layer_test;

CaptureDocument recorded_sync_program() {
    const Recording r = record("--submits 0..5", SYNC_PROGRAM);
    EXPECT_EQ(r.result.exit_code, 0) << r.result.output;
    return load_capture(r.capture_path);
}

TEST(SyncCapture, EachBoundarySaysHowTheProgramOrderedIt) {
    const CaptureDocument doc = recorded_sync_program();
    ASSERT_TRUE(doc.source);
    ASSERT_EQ(doc.source->submissions.size(), sync_program::kSubmissions);
    for (uint32_t s = 0; s < sync_program::kSubmissions; ++s)
        EXPECT_EQ(doc.source->submissions[s].sync, sync_program::kSync[s]) << "submission " << s;
}

TEST(SyncCapture, TemplateWrittenSetsAndSecondaryBuffersGiveDispatchesWithRanges) {
    const CaptureDocument doc = recorded_sync_program();
    std::vector<std::string> labels;
    for (const Node& n : doc.graph.nodes) {
        if (!n.is_dispatch()) continue;
        labels.push_back(n.label);
        EXPECT_TRUE(n.ranges_known) << n.label;
        // c (the third buffer of the one memory) is written, a and b before it are read.
        ASSERT_EQ(n.writes.size(), 1u) << n.label;
        EXPECT_EQ(n.writes[0].begin, 2 * sync_program::kBytes) << n.label;
        EXPECT_EQ(n.writes[0].end, 3 * sync_program::kBytes) << n.label;
        EXPECT_EQ(n.reads.size(), 2u) << n.label;
    }
    EXPECT_EQ(labels, std::vector<std::string>(std::begin(sync_program::kLabels),
                                               std::end(sync_program::kLabels)));
}

std::string notes_of(const CaptureDocument& doc, NodeId node) {
    std::string out;
    for (const auto& n : doc.source->notes)
        if (n.node == node) out += n.text + "\n";
    return out;
}

const Node& dispatch_labelled(const ComputeGraph& g, const std::string& label) {
    for (const Node& n : g.nodes)
        if (n.is_dispatch() && n.label == label) return n;
    throw std::runtime_error("no dispatch labelled " + label);
}

TEST(SyncCapture, IndirectCountsComeFromTheBufferContentsUnlessTheRangeWritesThemFirst) {
    const Recording r = record("--data --submits 6", SYNC_PROGRAM);
    ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
    const CaptureDocument doc = load_capture(r.capture_path);
    const Node& from_host = dispatch_labelled(doc.graph, sync_program::kIndirectFromHost);
    EXPECT_EQ(from_host.workgroups, (std::array<uint32_t, 3>{2, 1, 1}));
    EXPECT_NE(notes_of(doc, from_host.id).find("workgroup counts read from its arguments"),
              std::string::npos)
        << notes_of(doc, from_host.id);
    const Node& written = dispatch_labelled(doc.graph, sync_program::kIndirectWrittenFirst);
    EXPECT_EQ(written.workgroups, (std::array<uint32_t, 3>{0, 0, 0}));
    const std::string why = notes_of(doc, written.id);
    EXPECT_NE(why.find("workgroup counts unknown"), std::string::npos) << why;
    EXPECT_NE(why.find("may write its arguments"), std::string::npos) << why;
    // Only the dispatch whose counts are unknown is marked so in the capture.
    EXPECT_EQ(doc.graph.unknown_workgroups.count(from_host.id), 0u);
    ASSERT_EQ(doc.graph.unknown_workgroups.count(written.id), 1u);
    EXPECT_NE(doc.graph.unknown_workgroups.at(written.id).find("may write its arguments"),
              std::string::npos)
        << doc.graph.unknown_workgroups.at(written.id);
}

TEST(SyncCapture, IndirectCountsWithoutBufferContentsAreUnknownAndSayHowToGetThem) {
    const Recording r = record("--submits 6", SYNC_PROGRAM);
    ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
    const CaptureDocument doc = load_capture(r.capture_path);
    const Node& from_host = dispatch_labelled(doc.graph, sync_program::kIndirectFromHost);
    EXPECT_EQ(from_host.workgroups, (std::array<uint32_t, 3>{0, 0, 0}));
    EXPECT_NE(notes_of(doc, from_host.id).find("record with --data"), std::string::npos)
        << notes_of(doc, from_host.id);
}

TEST(SyncCapture, ADispatchWithUnknownCountsIsAnalysedButNotReplayed) {
    const Recording r = record("--submits 6", SYNC_PROGRAM);
    ASSERT_EQ(r.result.exit_code, 0) << r.result.output;
    const CaptureDocument doc = load_capture(r.capture_path);
    const Node& from_host = dispatch_labelled(doc.graph, sync_program::kIndirectFromHost);
    ASSERT_EQ(doc.graph.unknown_workgroups.count(from_host.id), 1u);
    EXPECT_NE(doc.graph.unknown_workgroups.at(from_host.id).find("record with --data"),
              std::string::npos);

    const CommandResult passes = run(std::string(GRAPHLENS_CLI) + " passes " + r.capture_path);
    EXPECT_EQ(passes.exit_code, 0) << passes.output;

    // Replayed, it would be no work in every mode, and every mode would agree.
    const CommandResult replay =
        run(std::string(GRAPHLENS_CLI) + " run " + r.capture_path + " --modes all --repeat 1");
    EXPECT_EQ(replay.exit_code, 1) << replay.output;
    EXPECT_NE(replay.output.find("node 0 (dispatch id " + std::to_string(from_host.id) +
                                 ", 'indirect_from_host'), kernel 'add': its workgroup counts "
                                 "are unknown (vkCmdDispatchIndirect: the capture has no buffer "
                                 "contents (record with --data)), so the capture cannot be "
                                 "replayed (1 more such dispatch)"),
              std::string::npos)
        << replay.output;
    EXPECT_EQ(replay.output.find("as-recorded "), std::string::npos) << replay.output;
}

}  // namespace
}  // namespace graphlens
