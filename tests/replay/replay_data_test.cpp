// `record --data`: the buffers' contents at the start of the range go to <capture>.data, and
// the replay starts from them, so the program's own plan replayed computes the program's own
// bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "engine_layout.h"
#include "graphlens/capture/buffer_data.h"
#include "graphlens/capture/capture_file.h"
#include "replay_test_support.h"

namespace graphlens {
namespace {

using namespace layer_test;
using namespace replay_test;

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// engine_program's three submissions (upload, frame, finalize), recorded with their contents;
// the program writes what it computed (its output buffer, then its arena) to program.bin.
class EngineReplayWithData : public testing::Test {
  protected:
    static void SetUpTestSuite() {
        // Each test runs in a process of its own, in parallel: files of its own.
        const std::string pid = "." + std::to_string(getpid());
        program_out_ = new std::string(scratch_path(pid + ".program.bin"));
        capture_ = new std::string(scratch_path(pid + ".json"));
        result_ =
            new CommandResult(run(std::string(GRAPHLENS_CLI) +
                                  " record --data --submits "
                                  "0..2 -o " +
                                  *capture_ + " -- " + ENGINE_PROGRAM + " --out " + *program_out_));
    }
    static void TearDownTestSuite() {
        delete program_out_;
        delete capture_;
        delete result_;
    }
    void SetUp() override { ASSERT_EQ(result_->exit_code, 0) << result_->output; }
    static std::string* program_out_;
    static std::string* capture_;
    static CommandResult* result_;
};
std::string* EngineReplayWithData::program_out_ = nullptr;
std::string* EngineReplayWithData::capture_ = nullptr;
CommandResult* EngineReplayWithData::result_ = nullptr;

TEST_F(EngineReplayWithData, AsRecordedComputesTheProgramsOwnBytes) {
    ASSERT_TRUE(std::filesystem::exists(buffer_data_path(*capture_))) << result_->output;
    const std::string outputs = scratch_path(".final.data");
    const auto r = run_capture(*capture_, "--outputs " + outputs);
    ASSERT_TRUE(mode_line(r.output, "as-recorded")) << r.output;
    EXPECT_NE(r.output.find("buffers start with the recorded contents"), std::string::npos)
        << r.output;
    for (const char* mode : kModes)
        EXPECT_NE(mode_line(r.output, mode).value_or("").find("bitwise"), std::string::npos)
            << mode << "\n"
            << r.output;

    const CaptureDocument doc = load_capture(*capture_);
    const BufferData final_bytes = load_buffer_data(outputs, doc.graph);
    const std::vector<uint8_t> program = read_file(*program_out_);
    ASSERT_EQ(program.size(), engine::kOutputSize + engine::kArenaSize);
    // Every byte the captured commands bind, read or write, as the program left it.
    size_t compared = 0;
    for (const auto& e : final_bytes.entries) {
        const std::string& name = doc.graph.allocations[e.allocation].name;
        ASSERT_TRUE(name == "output" || name == "arena") << name;
        const uint8_t* own = program.data() + (name == "output" ? 0 : engine::kOutputSize);
        std::set<uint64_t> bytes;
        for (const Node& n : doc.graph.nodes) {
            std::vector<ByteRange> ranges(n.reads.begin(), n.reads.end());
            ranges.insert(ranges.end(), n.writes.begin(), n.writes.end());
            for (const ByteRange& range : ranges)
                if (range.allocation == e.allocation)
                    for (uint64_t b = range.begin; b < range.end; ++b) bytes.insert(b);
        }
        for (uint64_t b : bytes) {
            ASSERT_EQ(e.bytes.at(b), own[b]) << name << " byte " << b;
            ++compared;
        }
    }
    EXPECT_GT(compared, engine::kOutputSize);
}

TEST_F(EngineReplayWithData, ATruncatedDataFileIsRefusedNamingWhere) {
    const std::string capture = scratch_path(".json");
    std::filesystem::copy_file(*capture_, capture,
                               std::filesystem::copy_options::overwrite_existing);
    std::vector<uint8_t> data = read_file(buffer_data_path(*capture_));
    data.resize(data.size() - 100);
    std::ofstream(buffer_data_path(capture), std::ios::binary)
        .write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()));
    const auto r = run_capture(capture);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find(buffer_data_path(capture).string() + ": truncated at byte"),
              std::string::npos)
        << r.output;
    EXPECT_EQ(mode_line(r.output, "as-recorded"), std::nullopt) << r.output;
}

TEST(ReplayDataLimit, ContentsOverTheLimitAreNotSavedAndTheCaptureSaysSo) {
    const std::string capture = scratch_path(".json");
    const auto rec = run("GRAPHLENS_CAPTURE_DATA_LIMIT=1000 " + std::string(GRAPHLENS_CLI) +
                         " record --data -o " + capture + " -- " + ENGINE_PROGRAM);
    ASSERT_EQ(rec.exit_code, 0) << rec.output;
    EXPECT_NE(rec.output.find("buffer contents not saved: the buffers hold"), std::string::npos)
        << rec.output;
    EXPECT_FALSE(std::filesystem::exists(buffer_data_path(capture)));
    const auto r = run_capture(capture);
    EXPECT_NE(r.output.find("every buffer starts zeroed"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace graphlens
