#include "layer_test_support.h"

#include <unistd.h>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>

namespace layer_test {

CommandResult run(const std::string& command_line) {
    // The programs pick their device as any engine would (the first); the driver list leaves
    // only lavapipe, as GRAPHLENS_DEVICE=llvmpipe does for GraphLens.
    const std::string lvp = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";
    const std::string full =
        "VK_DRIVER_FILES=" + lvp + " VK_ICD_FILENAMES=" + lvp + " " + command_line + " 2>&1";
    CommandResult r;
    FILE* pipe = popen(full.c_str(), "r");
    if (!pipe) return r;
    std::array<char, 4096> buffer;
    while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe))
        r.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
}

std::string scratch_path(const std::string& suffix) {
    // In a suite's set-up there is no current test, only the suite; ctest runs each test of a
    // suite in a process of its own, in parallel, and each sets the suite up: the process id
    // keeps their files apart.
    const auto* unit = testing::UnitTest::GetInstance();
    const auto* info = unit->current_test_info();
    const std::string name =
        info ? std::string(info->test_suite_name()) + "." + info->name()
             : std::string(unit->current_test_suite()->name()) + "." + std::to_string(getpid());
    std::filesystem::create_directories(LAYER_TEST_SCRATCH);
    return std::string(LAYER_TEST_SCRATCH) + "/" + name + suffix;
}

Recording record(const std::string& range_options, const std::string& program) {
    Recording r;
    r.capture_path = scratch_path(".json");
    r.result = run(std::string(GRAPHLENS_CLI) + " record -o " + r.capture_path + " " +
                   range_options + " -- " + program);
    return r;
}

}  // namespace layer_test
