// Specification of format version 2: what a program recorded by the capture layer brings
// (foreign kernels' SPIR-V, descriptor sets, barrier scopes, transfer commands, the source)
// round-trips; version-1 files still load and save again as version 2 with nothing else
// changed; the limits hold.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
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

void expect_same_nodes(const ComputeGraph& a, const ComputeGraph& b) {
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    for (size_t i = 0; i < a.nodes.size(); ++i) {
        SCOPED_TRACE("node " + std::to_string(i));
        const Node& x = a.nodes[i];
        const Node& y = b.nodes[i];
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.barrier_scope(), y.barrier_scope());
        if (x.is_barrier()) continue;
        EXPECT_EQ(x.id, y.id);
        EXPECT_EQ(x.kernel, y.kernel);
        EXPECT_EQ(x.bindings, y.bindings);
        EXPECT_EQ(x.push_constants, y.push_constants);
        EXPECT_EQ(x.reads, y.reads);
        EXPECT_EQ(x.writes, y.writes);
        EXPECT_EQ(x.ranges_known, y.ranges_known);
    }
}

void expect_same_graph(const ComputeGraph& a, const ComputeGraph& b) {
    EXPECT_EQ(a.allocations, b.allocations);
    EXPECT_EQ(a.kernels, b.kernels);
    EXPECT_EQ(a.barrier_scopes, b.barrier_scopes);
    expect_same_nodes(a, b);
}

TEST(CaptureVersion2, EveryNewFieldLoadsBackEqual) {
    const CaptureDocument doc = test::foreign_document();
    const CaptureDocument loaded = load_capture_from_string(save_capture_to_string(doc));
    EXPECT_EQ(loaded.format_version, 2u);
    expect_same_graph(loaded.graph, doc.graph);
    ASSERT_EQ(loaded.snapshots.size(), 2u);
    expect_same_graph(loaded.snapshots[0].graph, doc.snapshots[0].graph);
    expect_same_graph(loaded.snapshots[1].graph, doc.snapshots[1].graph);
    ASSERT_TRUE(loaded.source.has_value());
    EXPECT_EQ(*loaded.source, *doc.source);
    // The scopes say what they did in the recorded program.
    const BarrierScope* scope = loaded.graph.scope_of(loaded.graph.nodes[3]);
    ASSERT_NE(scope, nullptr);
    ASSERT_EQ(scope->dependencies.size(), 2u);
    EXPECT_EQ(scope->dependencies[0].range, (ByteRange{1, 0, 1024}));
    EXPECT_EQ(loaded.graph.scope_of(loaded.graph.nodes[5]), nullptr);  // the full barrier
    // The event wait keeps where its event was set.
    const BarrierScope* wait = loaded.graph.scope_of(loaded.graph.nodes[4]);
    ASSERT_NE(wait, nullptr);
    ASSERT_EQ(wait->dependencies.size(), 1u);
    EXPECT_EQ(wait->dependencies[0].event_set_at, 2u);
    EXPECT_EQ(scope->dependencies[0].event_set_at, std::nullopt);
    EXPECT_EQ(loaded.graph.stage_of(loaded.graph.nodes[0]), kStageTransfer);
    EXPECT_TRUE(loaded.graph.allocations[1].device_address);
    EXPECT_FALSE(loaded.graph.allocations[0].device_address);
}

TEST(CaptureVersion2, SaveLoadSaveIsByteIdentical) {
    const std::string first = save_capture_to_string(test::foreign_document());
    EXPECT_EQ(save_capture_to_string(load_capture_from_string(first)), first);
}

TEST(CaptureVersion2, SpirvIsBase64OfTheLittleEndianWords) {
    const std::string text = save_capture_to_string(test::foreign_document());
    // 03 02 23 07 | 00 03 01 00 | 0b 00 08 00 | 34 00 00 00 | 00 00 00 00
    EXPECT_NE(text.find("\"spirv_base64\":\"AwIjBwADAQALAAgANAAAAAAAAAA=\""), std::string::npos);
    EXPECT_NE(text.find("\"specialization\":[{\"id\":0,\"bytes\":\"40000000\"},"
                        "{\"id\":7,\"bytes\":\"01\"}]"),
              std::string::npos);
}

TEST(CaptureVersion2, NodesAndKernelsStayOnePerLine) {
    const std::string text = save_capture_to_string(test::foreign_document());
    std::istringstream lines(text);
    size_t scoped_barriers = 0, kernels = 0;
    for (std::string line; std::getline(lines, line);) {
        if (line.find("{\"kind\":\"barrier\",\"scope\":") != std::string::npos) ++scoped_barriers;
        if (line.find("\"spirv_base64\"") != std::string::npos) ++kernels;
    }
    EXPECT_EQ(scoped_barriers, 2u * 3u);  // top level and the captured snapshot, not reordered
    EXPECT_EQ(kernels, 3u);               // once: the snapshots share the kernel list
}

TEST(CaptureVersion2, SnapshotsStoreBarrierScopesOnlyWhereTheyDiffer) {
    const std::string text = save_capture_to_string(test::foreign_document());
    // The top level's list; "captured" shares it; "reordered" has none and says so.
    size_t lists = 0;
    for (size_t pos = 0; (pos = text.find("\"barrier_scopes\"", pos)) != std::string::npos; ++pos)
        ++lists;
    EXPECT_EQ(lists, 2u);
    EXPECT_NE(text.find("\"barrier_scopes\": [],"), std::string::npos);
    const CaptureDocument loaded = load_capture_from_string(text);
    EXPECT_EQ(loaded.snapshots[0].graph->barrier_scopes, loaded.graph.barrier_scopes);
    EXPECT_TRUE(loaded.snapshots[1].graph->barrier_scopes.empty());
}

TEST(CaptureVersion2, DefaultsAreNotWritten) {
    // GraphLens's own captures use none of the new fields: the file holds none of them.
    const std::string text = save_capture_to_string(test::small_document());
    for (const char* key :
         {"\"set\"", "\"evidence\"", "\"descriptor\"", "\"stage\":\"", "spirv_base64",
          "\"specialization\"", "required_subgroup_size", "pipeline_flags", "\"scope\"",
          "barrier_scopes", "\"source\"", "device_address"})
        EXPECT_EQ(text.find(key), std::string::npos) << key;
}

TEST(CaptureVersion2, AVersion1FileLoads) {
    const CaptureDocument doc = load_capture(test::test_data("captures/version1_minimal.json"));
    EXPECT_EQ(doc.format_version, 1u);
    EXPECT_EQ(doc.graph.dispatch_count(), 2u);
    EXPECT_TRUE(doc.graph.barrier_scopes.empty());
    EXPECT_FALSE(doc.source.has_value());
    for (const auto& k : doc.graph.kernels) {
        EXPECT_EQ(k.stage, kStageCompute);
        EXPECT_TRUE(k.spirv.empty());
    }
}

TEST(CaptureVersion2, AVersion1FileSavedAgainDiffersOnlyInItsVersion) {
    const std::string v1 = slurp(test::test_data("captures/version1_written.json"));
    const CaptureDocument doc = load_capture_from_string(v1);
    EXPECT_EQ(doc.format_version, 1u);
    std::string expected = v1;
    const std::string old_version = "\"format_version\": 1,";
    ASSERT_NE(expected.find(old_version), std::string::npos);
    expected.replace(expected.find(old_version), old_version.size(), "\"format_version\": 2,");
    EXPECT_EQ(save_capture_to_string(doc), expected);
}

TEST(CaptureVersion2, TheForeignExampleInTheFormatDocumentationIsTheDataFileAndLoads) {
    const std::string page = slurp(test::test_data("../../docs/capture-format.md"));
    const std::string begin = "<!-- foreign-example:begin -->\n```json\n";
    const std::string end = "```\n<!-- foreign-example:end -->";
    const auto b = page.find(begin);
    const auto e = page.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    const std::string example = page.substr(b + begin.size(), e - b - begin.size());
    const std::string file = slurp(test::test_data("captures/foreign_minimal.json"));
    EXPECT_EQ(example, file);
    const CaptureDocument doc = load_capture_from_string(file);
    // Written as GraphLens writes it: saving it again changes nothing.
    EXPECT_EQ(save_capture_to_string(doc), file);
    const ComputeGraph& g = doc.graph;
    EXPECT_TRUE(g.validate().empty());
    ASSERT_EQ(g.kernels.size(), 3u);
    EXPECT_EQ(g.kernels[0].spirv.front(), 0x07230203u);
    EXPECT_EQ(g.kernels[0].bindings[1].set, 1u);
    EXPECT_EQ(g.kernels[1].bindings[1].evidence, AccessEvidence::code);
    EXPECT_EQ(g.kernels[1].bindings[0].descriptor, DescriptorKind::uniform_buffer);
    EXPECT_EQ(g.kernels[2].stage, kStageTransfer);
    // The fill states its writes; the dispatches' ranges follow from their (set, binding).
    EXPECT_EQ(g.nodes[0].writes, (std::vector<ByteRange>{{2, 0, 4096}}));
    EXPECT_EQ(g.nodes[2].writes, (std::vector<ByteRange>{{1, 0, 1024}}));
    ASSERT_NE(g.scope_of(g.nodes[3]), nullptr);
    EXPECT_EQ(g.scope_of(g.nodes[3])->dependencies[0].range, (ByteRange{1, 0, 4096}));
    ASSERT_TRUE(doc.source.has_value());
    ASSERT_EQ(doc.source->submissions.size(), 2u);
    EXPECT_EQ(doc.source->submissions[1].sync, "semaphore");
}

// The first dispatch node of `g` with a kernel (not a transfer), stated with unknown counts.
Node& mark_counts_unknown(ComputeGraph& g, const std::string& why) {
    for (Node& n : g.nodes)
        if (n.is_dispatch() && g.stage_of(n) == kStageCompute) {
            n.workgroups = {0, 0, 0};
            g.unknown_workgroups[n.id] = why;
            return n;
        }
    throw std::logic_error("no compute dispatch");
}

TEST(CaptureVersion2, ADispatchWithUnknownWorkgroupCountsKeepsWhyThroughSaveAndLoad) {
    CaptureDocument doc = test::foreign_document();
    doc.snapshots.clear();
    const Node& marked = mark_counts_unknown(doc.graph, "vkCmdDispatchIndirect: no contents");
    const std::string text = save_capture_to_string(doc);
    EXPECT_NE(text.find("\"workgroups_unknown\":\"vkCmdDispatchIndirect: no contents\""),
              std::string::npos);
    const CaptureDocument loaded = load_capture_from_string(text);
    EXPECT_EQ(loaded.graph.unknown_workgroups, doc.graph.unknown_workgroups);
    EXPECT_EQ(loaded.graph.unknown_workgroups.count(marked.id), 1u);
    EXPECT_EQ(save_capture_to_string(loaded), text);
}

TEST(CaptureVersion2, UnknownWorkgroupCountsWithCountsAreRefusedOnSave) {
    CaptureDocument doc = test::foreign_document();
    doc.snapshots.clear();
    Node& marked = mark_counts_unknown(doc.graph, "why");
    marked.workgroups = {4, 1, 1};
    size_t index = size_t(&marked - doc.graph.nodes.data());
    try {
        save_capture_to_string(doc);
        FAIL() << "counts stated and unknown at once must not be saved";
    } catch (const CaptureError& e) {
        EXPECT_EQ(e.json_path(), "/nodes/" + std::to_string(index));
    }
}

TEST(CaptureVersion2, AScopeTheGraphDoesNotHaveIsRefusedOnSave) {
    CaptureDocument doc;
    doc.graph = test::small_graph();
    doc.graph.nodes[2] = Node::barrier(1);
    try {
        save_capture_to_string(doc);
        FAIL() << "a barrier naming a missing scope must not be saved";
    } catch (const CaptureError& e) {
        EXPECT_EQ(e.json_path(), "/nodes/2/scope");
    }
}

TEST(CaptureVersion2, NonCanonicalBase64IsRefused) {
    // "AwIjBwE=" and "AwIjBwF=" decode to the same bytes; only the first is canonical (the
    // unused bits are zero), so a loaded file always saves back to its own text.
    CaptureDocument doc = test::foreign_document();
    std::string text = save_capture_to_string(doc);
    const std::string good = "AwIjBwADAQALAAgANAAAAAAAAAA=";
    ASSERT_NE(text.find(good), std::string::npos);
    text.replace(text.find(good), good.size(), "AwIjBwADAQALAAgANAAAAAAAAAB=");
    try {
        load_capture_from_string(text);
        FAIL();
    } catch (const CaptureError& e) {
        EXPECT_EQ(e.json_path(), "/kernels/0/spirv_base64");
        EXPECT_NE(e.expected().find("canonical base64"), std::string::npos);
    }
}

// ---------------------------------------------------------------- limits

struct LimitCase {
    const char* name;
    const char* json_path;
    std::function<void(nlohmann::json&)> exceed;
};

class CaptureVersion2Limit : public testing::TestWithParam<LimitCase> {};

TEST_P(CaptureVersion2Limit, OneMoreThanTheLimitIsRefusedWithItsPath) {
    nlohmann::json j = nlohmann::json::parse(save_capture_to_string(test::foreign_document()));
    GetParam().exceed(j);
    try {
        load_capture_from_string(j.dump());
        FAIL() << GetParam().name << " loaded";
    } catch (const CaptureError& e) {
        EXPECT_EQ(e.json_path(), GetParam().json_path) << e.what();
        EXPECT_NE(e.expected().find("at most"), std::string::npos) << e.what();
    }
}

template <typename Make>
nlohmann::json many(uint64_t n, Make make) {
    nlohmann::json a = nlohmann::json::array();
    for (uint64_t i = 0; i < n; ++i) a.push_back(make(i));
    return a;
}

const LimitCase kLimits[] = {
    {"spirv_bytes", "/kernels/0/spirv_base64",
     [](nlohmann::json& j) {
         // 16 MiB + 4 bytes of SPIR-V, refused before it is decoded.
         j["kernels"][0]["spirv_base64"] =
             std::string((CaptureLimits::max_spirv_bytes + 6) / 3 * 4, 'A');
     }},
    {"specialization_constants", "/kernels/0/specialization",
     [](nlohmann::json& j) {
         j["kernels"][0]["specialization"] =
             many(CaptureLimits::max_specialization_constants + 1, [](uint64_t i) {
                 return nlohmann::json{{"id", i}, {"bytes", "00"}};
             });
     }},
    {"scope_dependencies", "/barrier_scopes/0/dependencies",
     [](nlohmann::json& j) {
         j["barrier_scopes"][0]["dependencies"] =
             many(CaptureLimits::max_scope_dependencies + 1,
                  [](uint64_t) { return nlohmann::json::object(); });
     }},
    {"arguments", "/source/arguments",
     [](nlohmann::json& j) {
         j["source"]["arguments"] =
             many(CaptureLimits::max_arguments + 1, [](uint64_t) { return "-v"; });
     }},
    {"extensions", "/source/device_extensions",
     [](nlohmann::json& j) {
         j["source"]["device_extensions"] =
             many(CaptureLimits::max_extensions + 1, [](uint64_t) { return "VK_x"; });
     }},
    {"notes", "/source/notes",
     [](nlohmann::json& j) {
         j["source"]["notes"] = many(CaptureLimits::max_notes + 1, [](uint64_t) {
             return nlohmann::json{{"text", "n"}};
         });
     }},
};

INSTANTIATE_TEST_SUITE_P(Version2, CaptureVersion2Limit, testing::ValuesIn(kLimits),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace graphlens
