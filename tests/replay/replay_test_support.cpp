#include "replay_test_support.h"

#include <sstream>
#include <vector>

namespace replay_test {

layer_test::CommandResult run_capture(const std::string& capture, const std::string& extra) {
    return layer_test::run("GRAPHLENS_DEVICE=llvmpipe GRAPHLENS_VALIDATION=1 " +
                           std::string(GRAPHLENS_CLI) + " run " + capture +
                           " --modes all --repeat 1 --warmup 1 --warmup-ms 0 " + extra);
}

std::optional<std::string> mode_line(const std::string& output, const std::string& mode) {
    std::istringstream in(output);
    for (std::string line; std::getline(in, line);)
        if (line.rfind(mode + " ", 0) == 0) return line;
    return std::nullopt;
}

int validation_errors(const std::string& line) {
    // ... <GPU vs> <wall vs> <errors>  <comparison words>
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    for (size_t i = 1; i < words.size(); ++i)
        if (words[i] == "bitwise" || words[i] == "differs") return std::stoi(words[i - 1]);
    return -1;
}

}  // namespace replay_test
