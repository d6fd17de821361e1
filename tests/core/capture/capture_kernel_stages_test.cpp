// Specification of a kernel's internal stages in the capture format: written and read back,
// absent in files from before the field (which still load), refused when inconsistent with the
// kernel's bindings.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "capture_fixtures.h"

namespace graphlens {
namespace {

// The small document whose add_f32 (kernel 2: a, b → out) is declared as two stages: the
// first reads a and writes out, the last workgroup to arrive at b (as a counter) reads out
// back and writes it again: b and out made read_write, as the declaration needs.
CaptureDocument document_with_stages() {
    CaptureDocument doc = test::small_document();
    KernelInfo& add = doc.graph.kernels.at(2);
    add.bindings[1].access = BindingAccess::read_write;
    add.bindings[2].access = BindingAccess::read_write;
    add.stages = {
        {"first half", {{0, 0}}, {{0, 2}}, StageOrder::first, {}, {}},
        {"second half", {{0, 2}}, {{0, 2}}, StageOrder::last_arrival_per_block, {0, 1}, "row"}};
    return doc;
}

TEST(CaptureKernelStages, AreWrittenAndReadBack) {
    const CaptureDocument doc = document_with_stages();
    const std::string text = save_capture_to_string(doc);
    const CaptureDocument loaded = load_capture_from_string(text);
    EXPECT_EQ(loaded.graph.kernels, doc.graph.kernels);
    EXPECT_EQ(loaded.graph.kernels.at(2).stages, doc.graph.kernels.at(2).stages);
    EXPECT_EQ(save_capture_to_string(loaded), text);
    const nlohmann::json j = nlohmann::json::parse(text);
    EXPECT_EQ(j["kernels"][2]["stages"][1]["order"], "last_arrival_per_block");
    EXPECT_EQ(j["kernels"][2]["stages"][1]["counter"], (nlohmann::json{{"binding", 1}}));
    EXPECT_EQ(j["kernels"][2]["stages"][0].count("counter"), 0u);  // the first has none
    // A kernel of one stage is written as before.
    EXPECT_EQ(j["kernels"][0].count("stages"), 0u);
}

TEST(CaptureKernelStages, AFileWithoutThemLoadsWithSingleStageKernels) {
    const CaptureDocument doc = load_capture(test::test_data("captures/minimal.json"));
    ASSERT_FALSE(doc.graph.kernels.empty());
    for (const KernelInfo& k : doc.graph.kernels) EXPECT_TRUE(k.stages.empty()) << k.name;
}

// The saved document with one edit to its kernel 2's stages, loaded: the error it gives.
CaptureError load_error_after(const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json j = nlohmann::json::parse(save_capture_to_string(document_with_stages()));
    edit(j["kernels"][2]["stages"]);
    try {
        load_capture_from_string(j.dump());
    } catch (const CaptureError& e) {
        return e;
    }
    ADD_FAILURE() << "loaded";
    return CaptureError("", "");
}

TEST(CaptureKernelStages, ADeclarationTheBindingsDoNotAllowIsRefusedNamingTheBinding) {
    const CaptureError e = load_error_after([](nlohmann::json& s) {
        s[0]["writes"].push_back({{"binding", 0}});  // binding 0 is read-only
    });
    EXPECT_EQ(e.json_path(), "/kernels/2/stages");
    EXPECT_EQ(e.got(),
              "kernel 'add_f32' stage 'first half' writes binding 0 ('b0'), which its SPIR-V "
              "declares read");
}

TEST(CaptureKernelStages, AnUnknownOrderAndAMissingCounterAreRefused) {
    CaptureError e = load_error_after([](nlohmann::json& s) { s[1]["order"] = "whenever"; });
    EXPECT_EQ(e.json_path(), "/kernels/2/stages/1/order");
    EXPECT_NE(e.expected().find("first, last_arrival, last_arrival_per_block, all_arrived"),
              std::string::npos);
    e = load_error_after([](nlohmann::json& s) { s[1].erase("counter"); });
    EXPECT_EQ(e.json_path(), "/kernels/2/stages/1/counter");
}

}  // namespace
}  // namespace graphlens
