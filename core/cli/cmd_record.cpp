// graphlens-cli record: runs a program under VK_LAYER_GRAPHLENS_capture and summarises the
// capture it wrote. The program needs no change: the layer is enabled through the loader's
// environment variables (VK_LAYER_PATH, VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE) and told
// what to capture through its own (graphlens/layer/capture_settings.h).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>

#include "command.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/layer/capture_settings.h"

namespace graphlens::cli {
namespace {

namespace fs = std::filesystem;

struct RecordOptions {
    std::string output;
    std::string submits;
    std::optional<uint64_t> after_dispatches;
    std::optional<uint64_t> dispatches;
    std::string label;
    std::string cwd;
    std::vector<std::string> command;
};

/// The directory holding the layer's manifest: GRAPHLENS_LAYER_PATH, else the build tree
/// (<build>/layer next to <build>/core/graphlens-cli), else the install tree
/// (<prefix>/share/vulkan/explicit_layer.d next to <prefix>/bin/graphlens-cli).
fs::path find_layer_manifest_dir() {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("GRAPHLENS_LAYER_PATH"); env && *env) {
        fs::path p(env);
        candidates.push_back(fs::is_regular_file(p) ? p.parent_path() : p);
    }
    std::error_code ec;
    const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
    candidates.push_back(exe_dir.parent_path() / "layer");
    candidates.push_back(exe_dir.parent_path() / "share/vulkan/explicit_layer.d");
    for (const auto& dir : candidates)
        if (fs::is_regular_file(dir / layer::kLayerManifest)) return fs::absolute(dir);
    std::string looked;
    for (const auto& dir : candidates) looked += "\n  " + dir.string();
    throw std::runtime_error(fmt::format(
        "cannot find the capture layer's manifest {} (set GRAPHLENS_LAYER_PATH); looked in:{}",
        layer::kLayerManifest, looked));
}

std::string joined(const char* name, const std::string& value, const char* separator,
                   bool prepend) {
    const char* old = std::getenv(name);
    if (!old || !*old) return value;
    return prepend ? value + separator + old : std::string(old) + separator + value;
}

/// The directories the loader searches for explicit layers when VK_LAYER_PATH is unset: setting
/// VK_LAYER_PATH replaces them, and the program may enable layers of its own (validation).
std::string default_explicit_layer_dirs() {
    auto env_or = [](const char* name, std::string fallback) {
        const char* v = std::getenv(name);
        return v && *v ? std::string(v) : fallback;
    };
    const char* home = std::getenv("HOME");
    std::vector<std::string> roots = {
        env_or("XDG_CONFIG_HOME", home ? std::string(home) + "/.config" : ""), "/etc/xdg", "/etc"};
    const std::string data_dirs = env_or("XDG_DATA_DIRS", "/usr/local/share:/usr/share");
    roots.push_back(env_or("XDG_DATA_HOME", home ? std::string(home) + "/.local/share" : ""));
    for (size_t begin = 0; begin <= data_dirs.size();) {
        const size_t end = std::min(data_dirs.find(':', begin), data_dirs.size());
        roots.push_back(data_dirs.substr(begin, end - begin));
        begin = end + 1;
    }
    std::string out;
    for (const auto& r : roots)
        if (!r.empty()) out += (out.empty() ? "" : ":") + r + "/vulkan/explicit_layer.d";
    return out;
}

/// The environment of the recorded program: this one's, with the layer enabled and told
/// what to capture (any GRAPHLENS_CAPTURE_* of this environment replaced).
std::map<std::string, std::string> record_environment(const RecordOptions& o,
                                                      const fs::path& manifest_dir,
                                                      const fs::path& status_file) {
    std::map<std::string, std::string> env;
    const char* layer_path = std::getenv("VK_LAYER_PATH");
    env["VK_LAYER_PATH"] = manifest_dir.string() + ":" +
                           (layer_path && *layer_path ? layer_path : default_explicit_layer_dirs());
    env["VK_INSTANCE_LAYERS"] = joined("VK_INSTANCE_LAYERS", layer::kLayerName, ":", false);
    env["VK_LOADER_LAYERS_ENABLE"] =
        joined("VK_LOADER_LAYERS_ENABLE", layer::kLayerName, ",", false);
    env[layer::kEnvOutput] = fs::absolute(o.output).string();
    env[layer::kEnvStatus] = status_file.string();
    env[layer::kEnvSubmits] = o.submits;
    env[layer::kEnvAfterDispatches] = o.after_dispatches ? std::to_string(*o.after_dispatches) : "";
    env[layer::kEnvDispatches] = o.dispatches ? std::to_string(*o.dispatches) : "";
    env[layer::kEnvLabel] = o.label;
    return env;
}

/// fork + exec with the environment changes; returns the wait status. Throws when the
/// program cannot be started (the child reports exec's errno through a close-on-exec pipe).
int run_program(const RecordOptions& o, const std::map<std::string, std::string>& env) {
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
    if (pid == 0) {
        close(pipe_fds[0]);
        int err = 0;
        if (!o.cwd.empty() && chdir(o.cwd.c_str()) != 0) err = errno;
        for (const auto& [name, value] : env)
            value.empty() ? unsetenv(name.c_str()) : setenv(name.c_str(), value.c_str(), 1);
        std::vector<char*> argv;
        for (const auto& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        if (err == 0) {
            execvp(argv[0], argv.data());
            err = errno;
        }
        [[maybe_unused]] ssize_t n = write(pipe_fds[1], &err, sizeof err);
        _exit(127);
    }
    close(pipe_fds[1]);
    int child_errno = 0;
    const ssize_t got = read(pipe_fds[0], &child_errno, sizeof child_errno);
    close(pipe_fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got == sizeof child_errno)
        throw std::runtime_error(fmt::format("cannot start '{}'{}: {}", o.command.front(),
                                             o.cwd.empty() ? "" : " in " + o.cwd,
                                             std::strerror(child_errno)));
    return status;
}

/// "exited with status 3", "was killed by signal 11"; empty for a clean exit.
std::string program_failure(int status) {
    if (WIFEXITED(status))
        return WEXITSTATUS(status) == 0 ? ""
                                        : fmt::format("exited with status {}", WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return fmt::format("was killed by signal {}", WTERMSIG(status));
    return "ended abnormally";
}

std::string read_status_line(const fs::path& file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

void print_summary(const CaptureDocument& doc, const std::string& path) {
    const ComputeGraph& g = doc.graph;
    fmt::print("capture: {}\n", path);
    if (doc.source) fmt::print("range: {}\n", doc.source->range);
    fmt::print("device: {}\n", doc.device.name);
    fmt::print("dispatches: {} (kernels {}, allocations {})\n", g.dispatch_count(),
               g.kernels.size(), g.allocations.size());
    fmt::print("barriers: {}\n", g.barrier_count());
    if (!doc.source) return;
    fmt::print("submissions: {}\n", doc.source->submissions.size());
    for (const auto& s : doc.source->submissions)
        fmt::print("  submission {}: nodes {}..{}, sync with the previous: {}\n", s.index,
                   s.first_node, s.end_node, s.sync);
    fmt::print("notes: {}\n", doc.source->notes.size());
    for (const auto& n : doc.source->notes)
        fmt::print("  {}{}\n", n.node ? fmt::format("node {}: ", *n.node) : "", n.text);
}

int run_record(const RecordOptions& o) {
    if (o.command.empty()) throw std::invalid_argument("record: give the program to run after --");
    const fs::path manifest_dir = find_layer_manifest_dir();
    const fs::path output = fs::absolute(o.output);
    const fs::path status_file = output.string() + ".record-status";
    auto env = record_environment(o, manifest_dir, status_file);
    // The same parser as the layer's, so a malformed range fails here, before the program runs.
    layer::parse_capture_settings([&](const char* n) {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
    });
    std::error_code ec;
    fs::remove(output, ec);
    fs::remove(status_file, ec);
    const int status = run_program(o, env);
    const std::string failure = program_failure(status);
    fmt::print("program: {} {}\n", o.command.front(),
               failure.empty() ? "exited with status 0" : failure);
    const std::string layer_status = read_status_line(status_file);
    fs::remove(status_file, ec);
    if (!fs::exists(output)) {
        const std::string why =
            layer_status.rfind("not written: ", 0) == 0 ? layer_status.substr(13)
            : layer_status.empty() ? "the capture layer was not loaded (did the program create a "
                                     "Vulkan instance? is " +
                                         manifest_dir.string() + " readable by the loader?)"
                                   : layer_status;
        fmt::print(stderr, "graphlens-cli: no capture was written: {}\n", why);
        return 2;
    }
    const CaptureDocument doc = load_capture(output);
    print_summary(doc, output.string());
    if (!failure.empty()) {
        fmt::print(stderr, "graphlens-cli: the program {}; the capture is kept\n", failure);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    return 0;
}

const RegisterCommand kRegister{
    "record", [](CLI::App& app) {
        auto o = std::make_shared<RecordOptions>();
        app.description("run a program under the capture layer and save its compute work");
        app.add_option("-o,--output", o->output, "capture file to write")->required();
        app.add_option("--submits", o->submits, "queue submissions A..B (0-based) or A");
        app.add_option("--after-dispatches", o->after_dispatches, "skip the first N dispatches");
        app.add_option("--dispatches", o->dispatches, "capture M dispatches");
        app.add_option("--label", o->label, "the commands inside the first debug-utils label NAME");
        app.add_option("--cwd", o->cwd, "working directory of the program (default: this one)");
        app.add_option("command", o->command, "program and its arguments (after --)")->required();
        app.positionals_at_end();
        app.footer(
            "Without a range, the first queue submission that contains a dispatch is "
            "captured.");
        return [o] { return run_record(*o); };
    }};

}  // namespace
}  // namespace graphlens::cli
