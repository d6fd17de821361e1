// Specification of the loader's validation: every hand-made bad file is rejected with an
// error that names the JSON path and what was expected there; nothing else escapes.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "capture_fixtures.h"

namespace graphlens {
namespace {

std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

struct BadFile {
    const char* name;           ///< tests/data/captures/bad/<name>.json
    const char* json_path;      ///< where the loader must point
    const char* expected_part;  ///< a fragment of what it must say it expected
};

// One row per kind of damage the issue lists (truncated, wrong types, dangling ids, ranges
// past the end, huge counts, wrong version, not JSON at all) plus the consistency rules.
const BadFile kBadFiles[] = {
    {"not_json", "", "valid JSON"},
    {"truncated", "", "valid JSON"},
    {"wrong_version", "/format_version", "format version 1 or 2 (the versions this build reads)"},
    {"wrong_format", "/format", "\"graphlens-capture\""},
    {"wrong_type_size", "/allocations/0/size", "an unsigned integer"},
    {"wrong_type_nodes", "/nodes", "an array"},
    {"dangling_kernel", "/nodes/0/kernel", "an existing kernel"},
    {"dangling_allocation", "/nodes/0/bindings/1/allocation", "an existing allocation"},
    {"range_past_end", "/nodes/2/reads/0/end", "inside allocation 1 'y' of 4096 bytes"},
    {"view_past_end", "/nodes/0/bindings/0/size", "offset + size must lie inside"},
    {"huge_allocation", "/allocations/1/size", "<= 281474976710656"},
    {"huge_workgroups", "/nodes/0/workgroups/1", "<= 2147483647"},
    {"too_many_bindings", "/kernels/0/bindings", "at most 64"},
    {"negative_offset", "/nodes/0/bindings/0/offset", "an unsigned integer"},
    {"duplicate_id", "/nodes/2/id", "not used by an earlier node"},
    {"unknown_field", "/nodes/0/workgroup", "one of the known fields"},
    {"repeated_field", "/allocations/0/size", "each field once"},
    {"missing_nodes", "/nodes", "the list of nodes"},
    {"unknown_op", "/nodes/0/op", "an op kind"},
    {"reads_outside_bindings", "/nodes/0/reads/0", "inside a bound view that kernel 'scale_f32'"},
    {"undeclared_binding", "/nodes/0/bindings/1/binding", "a binding number kernel 'scale_f32'"},
    {"bad_push_constants", "/nodes/0/push_constants", "hex string"},
    {"allocation_id_gap", "/allocations/1/id", "allocation ids equal their position"},
    {"shared_origin", "/nodes/2/origin/0", "no other node"},
    {"timing_min_above_median", "/run/modes/0/gpu_ns", "min <= median <= max"},
    {"snapshot_stats_disagree", "/snapshots/0/stats/dispatches", "dispatch nodes of this stage"},
    // Format version 2: a recorded program's kernels, barrier scopes and source.
    {"version2_field_in_version1", "/kernels/0/stage", "the field came with format version 2"},
    {"spirv_not_whole_words", "/kernels/0/spirv_base64", "a positive multiple of 4 bytes"},
    {"spirv_without_magic", "/kernels/0/spirv_base64", "the magic number 0x07230203"},
    {"spirv_not_base64", "/kernels/1/spirv_base64", "canonical base64"},
    {"specialization_of_three_bytes", "/kernels/0/specialization/0/bytes", "1, 2, 4 or 8 bytes"},
    {"specialization_id_repeated", "/kernels/0/specialization/1/id", "each constant_id once"},
    {"unknown_kernel_stage", "/kernels/2/stage", "a kernel stage: one of compute, transfer"},
    {"kernel_bindings_out_of_set_order", "/kernels/0/bindings/1/set", "sorted by (set, binding)"},
    {"undeclared_set_binding", "/nodes/2/bindings/1/binding",
     "a binding number kernel 'scale_rows' declares"},
    {"barrier_scope_out_of_range", "/nodes/3/scope", "an index into the graph's 2 barrier_scopes"},
    {"scope_without_scopes", "/nodes/1/scope", "the graph's barrier_scopes list is empty"},
    {"barrier_range_past_end", "/barrier_scopes/1/dependencies/0/range/end",
     "inside allocation 1 'mid' of 4096 bytes"},
    {"unknown_stage_name", "/barrier_scopes/0/dependencies/0/src_stages/1",
     "pipeline stages: one of compute, transfer, host"},
    {"repeated_access_name", "/barrier_scopes/0/dependencies/0/dst_access/1", "each name once"},
    {"submission_past_the_graph", "/source/submissions/1/end_node",
     "a node index of the graph, which has 5 nodes"},
    {"submissions_overlap", "/source/submissions/1/first_node", "without overlap"},
    {"submission_index_not_increasing", "/source/submissions/1/index", "(program order)"},
    {"unknown_submission_sync", "/source/submissions/1/sync",
     "\"none\", \"host wait\", \"semaphore\" or \"\""},
    {"note_on_unknown_dispatch", "/source/notes/1/node", "the id of a dispatch of the graph"},
    {"workgroups_unknown_with_counts", "/nodes/2/workgroups", "[0,0,0]"},
};

class BadCaptureFile : public testing::TestWithParam<BadFile> {};

TEST_P(BadCaptureFile, IsRejectedWithItsPathAndWhatWasExpected) {
    const BadFile& bad = GetParam();
    const auto path = test::test_data(std::string("captures/bad/") + bad.name + ".json");
    ASSERT_TRUE(std::filesystem::exists(path)) << path;
    try {
        load_capture(path);
        FAIL() << bad.name << " loaded";
    } catch (const CaptureError& e) {
        EXPECT_EQ(e.json_path(), bad.json_path) << e.what();
        EXPECT_NE(e.expected().find(bad.expected_part), std::string::npos) << e.what();
        EXPECT_EQ(e.file(), path.string());
        // One line: the CLI prints it as the reason for its non-zero exit.
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(HandMade, BadCaptureFile, testing::ValuesIn(kBadFiles),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CaptureLoader, EveryBadFileInTheDataDirectoryHasAnExpectation) {
    // A bad file added without a row above would otherwise go untested.
    size_t files = 0;
    for (const auto& entry : std::filesystem::directory_iterator(test::test_data("captures/bad"))) {
        const std::string stem = entry.path().stem().string();
        ++files;
        EXPECT_TRUE(std::any_of(std::begin(kBadFiles), std::end(kBadFiles), [&](const BadFile& b) {
            return stem == b.name;
        })) << stem;
    }
    EXPECT_EQ(files, std::size(kBadFiles));
}

TEST(CaptureLoader, TheMinimalHandWrittenFileLoads) {
    const CaptureDocument doc = load_capture(test::test_data("captures/minimal.json"));
    EXPECT_EQ(doc.graph.dispatch_count(), 2u);
    EXPECT_EQ(doc.graph.barrier_count(), 1u);
    // Ranges of the first dispatch come from its bindings and the kernel's access.
    EXPECT_EQ(doc.graph.nodes[0].reads, (std::vector<ByteRange>{{0, 0, 4096}}));
    EXPECT_EQ(doc.graph.nodes[0].writes, (std::vector<ByteRange>{{1, 0, 4096}}));
    // The second states its ranges without bindings, as a foreign engine might.
    EXPECT_EQ(doc.graph.nodes[2].writes, (std::vector<ByteRange>{{0, 0, 2048}}));
    EXPECT_TRUE(doc.graph.validate().empty());
}

TEST(CaptureLoader, TheExampleInTheFormatDocumentationIsTheMinimalFileAndLoads) {
    // docs/capture-format.md quotes the example between two marker lines; it must stay the
    // same text as tests/data/captures/minimal.json so the documented example always loads.
    const std::string doc = slurp(test::test_data("../../docs/capture-format.md"));
    const std::string begin = "<!-- minimal-example:begin -->\n```json\n";
    const std::string end = "```\n<!-- minimal-example:end -->";
    const auto b = doc.find(begin);
    const auto e = doc.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    const std::string example = doc.substr(b + begin.size(), e - b - begin.size());
    EXPECT_EQ(example, slurp(test::test_data("captures/minimal.json")));
    EXPECT_NO_THROW(load_capture_from_string(example));
}

TEST(CaptureLoader, TruncationAtAnyByteIsAnErrorNotACrash) {
    const std::string text = save_capture_to_string(test::small_document());
    for (size_t cut = 0; cut + 1 < text.size(); cut += 7) {
        EXPECT_THROW(load_capture_from_string(std::string_view(text).substr(0, cut)), CaptureError)
            << "cut at " << cut;
    }
}

TEST(CaptureLoader, AMissingFileNamesTheFile) {
    try {
        load_capture("/nonexistent/graphlens/capture.json");
        FAIL();
    } catch (const CaptureError& e) {
        EXPECT_EQ(e.file(), "/nonexistent/graphlens/capture.json");
        EXPECT_NE(std::string(e.what()).find("/nonexistent/graphlens/capture.json"),
                  std::string::npos);
    }
}

TEST(CaptureLoader, JsonPointerEscapesKeys) {
    std::string text = save_capture_to_string(test::small_document());
    text.replace(text.find("\"model\""), 7, "\"a/b~c\":1,\"model\"");
    try {
        load_capture_from_string(text);
        FAIL();
    } catch (const CaptureError& e) {
        EXPECT_EQ(e.json_path(), "/metadata/a~1b~0c");
        EXPECT_EQ(e.got(), "1");
    }
}

}  // namespace
}  // namespace graphlens
