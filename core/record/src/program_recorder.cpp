#include "graphlens/record/program_recorder.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <fstream>
#include <stdexcept>
#include "graphlens/capture/buffer_data.h"

namespace graphlens {

namespace fs = std::filesystem;

namespace {

std::string joined(const char* name, const std::string& value, const char* separator,
                   bool prepend) {
    const char* old = std::getenv(name);
    if (!old || !*old) return value;
    return prepend ? value + separator + old : std::string(old) + separator + value;
}

// The directories the loader searches for explicit layers when VK_LAYER_PATH is unset:
// setting VK_LAYER_PATH replaces them, and the program may enable layers of its own
// (validation).
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

// The range as the layer's variables state it (the layer parses them back with
// layer::parse_capture_settings).
void set_range(std::map<std::string, std::string>& env, const layer::CaptureRange& r) {
    env[layer::kEnvSubmits] = "";
    env[layer::kEnvAfterDispatches] = "";
    env[layer::kEnvDispatches] = "";
    env[layer::kEnvLabel] = "";
    switch (r.kind) {
        case layer::RangeKind::submits:
            env[layer::kEnvSubmits] = fmt::format("{}..{}", r.first, r.count_or_last);
            break;
        case layer::RangeKind::dispatches:
            env[layer::kEnvAfterDispatches] = std::to_string(r.first);
            if (r.count_or_last != UINT64_MAX)
                env[layer::kEnvDispatches] = std::to_string(r.count_or_last);
            break;
        case layer::RangeKind::label:
            env[layer::kEnvLabel] = r.label;
            break;
        case layer::RangeKind::first_dispatch_submission:
            break;
    }
}

// The program's whole environment: this process's with `changes` applied (an empty value
// removes the name). Made before fork: the child of a multi-threaded process (the GUI) may
// only make async-signal-safe calls, and setenv allocates.
std::vector<std::string> program_environment(const std::map<std::string, std::string>& changes) {
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string entry(*e);
        const std::string name = entry.substr(0, entry.find('='));
        if (!changes.count(name)) env.push_back(entry);
    }
    for (const auto& [name, value] : changes)
        if (!value.empty()) env.push_back(name + "=" + value);
    return env;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
    std::vector<char*> p;
    for (auto& s : strings) p.push_back(s.data());
    p.push_back(nullptr);
    return p;
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const char* cwd, char* const* argv, char* const* envp, int log_fd,
                             int error_pipe) {
    int err = 0;
    if (cwd && chdir(cwd) != 0) err = errno;
    if (log_fd >= 0 && err == 0 && (dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)) err = errno;
    if (err == 0) {
        execvpe(argv[0], argv, envp);
        err = errno;
    }
    [[maybe_unused]] ssize_t n = write(error_pipe, &err, sizeof err);
    _exit(127);
}

// fork + exec with the environment changes; returns the wait status. Throws when the program
// cannot be started: the child reports exec's errno through a close-on-exec pipe.
int run_program(const RecordRequest& r, const std::map<std::string, std::string>& env_changes) {
    std::vector<std::string> args = r.command;
    std::vector<std::string> env = program_environment(env_changes);
    const std::vector<char*> argv = pointers_to(args);
    const std::vector<char*> envp = pointers_to(env);
    const std::string cwd = r.working_directory.string();
    int log_fd = -1;
    if (!r.program_log.empty()) {
        log_fd = open(r.program_log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (log_fd < 0)
            throw std::runtime_error(fmt::format("cannot write the program's log {}: {}",
                                                 r.program_log.string(), std::strerror(errno)));
    }
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(fmt::format("fork failed: {}", std::strerror(errno)));
    if (pid == 0)
        exec_child(cwd.empty() ? nullptr : cwd.c_str(), argv.data(), envp.data(), log_fd,
                   pipe_fds[1]);
    close(pipe_fds[1]);
    if (log_fd >= 0) close(log_fd);
    int child_errno = 0;
    const ssize_t got = read(pipe_fds[0], &child_errno, sizeof child_errno);
    close(pipe_fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (got == sizeof child_errno)
        throw std::runtime_error(fmt::format("cannot start '{}'{}: {}", r.command.front(),
                                             cwd.empty() ? "" : " in " + cwd,
                                             std::strerror(child_errno)));
    return status;
}

std::string failure_of(int status) {
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

std::string why_not_written(const std::string& layer_status, const fs::path& manifest_dir) {
    if (layer_status.rfind("not written: ", 0) == 0) return layer_status.substr(13);
    if (!layer_status.empty()) return layer_status;
    return "the capture layer was not loaded (did the program create a Vulkan instance? is " +
           manifest_dir.string() + " readable by the loader?)";
}

}  // namespace

fs::path find_layer_manifest_dir() {
    std::vector<fs::path> candidates;
    if (const char* env = std::getenv("GRAPHLENS_LAYER_PATH"); env && *env) {
        fs::path p(env);
        candidates.push_back(fs::is_regular_file(p) ? p.parent_path() : p);
    }
    std::error_code ec;
    const fs::path exe_dir = fs::read_symlink("/proc/self/exe", ec).parent_path();
    candidates.push_back(exe_dir.parent_path() / "layer");
    candidates.push_back(exe_dir.parent_path().parent_path() / "layer");  // build/tests/gui
    candidates.push_back(exe_dir.parent_path() / "share/vulkan/explicit_layer.d");
    for (const auto& dir : candidates)
        if (fs::is_regular_file(dir / layer::kLayerManifest)) return fs::absolute(dir);
    std::string looked;
    for (const auto& dir : candidates) looked += "\n  " + dir.string();
    throw std::runtime_error(fmt::format(
        "cannot find the capture layer's manifest {} (set GRAPHLENS_LAYER_PATH); looked in:{}",
        layer::kLayerManifest, looked));
}

std::map<std::string, std::string> record_environment(const RecordRequest& r,
                                                      const fs::path& manifest_dir,
                                                      const fs::path& status_file) {
    std::map<std::string, std::string> env;
    const char* layer_path = std::getenv("VK_LAYER_PATH");
    env["VK_LAYER_PATH"] = manifest_dir.string() + ":" +
                           (layer_path && *layer_path ? layer_path : default_explicit_layer_dirs());
    env["VK_INSTANCE_LAYERS"] = joined("VK_INSTANCE_LAYERS", layer::kLayerName, ":", false);
    env["VK_LOADER_LAYERS_ENABLE"] =
        joined("VK_LOADER_LAYERS_ENABLE", layer::kLayerName, ",", false);
    env[layer::kEnvOutput] = fs::absolute(r.output).string();
    env[layer::kEnvStatus] = status_file.string();
    env[layer::kEnvData] = r.data ? "1" : "";
    set_range(env, r.range);
    return env;
}

RecordResult record_program(const RecordRequest& r) {
    if (r.command.empty() || r.command.front().empty())
        throw std::invalid_argument("record: no program to run");
    const fs::path manifest_dir = find_layer_manifest_dir();
    const fs::path output = fs::absolute(r.output);
    const fs::path status_file = output.string() + ".record-status";
    const auto env = record_environment(r, manifest_dir, status_file);
    // The layer's own parser, so that a malformed range fails here, before the program runs.
    layer::parse_capture_settings([&](const char* n) {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
    });
    std::error_code ec;
    fs::remove(output, ec);
    fs::remove(buffer_data_path(output), ec);  // never a stale one beside a new capture
    fs::remove(status_file, ec);
    const int status = run_program(r, env);
    RecordResult result;
    result.program_failure = failure_of(status);
    result.exit_code = WIFEXITED(status)     ? WEXITSTATUS(status)
                       : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
                                             : 1;
    const std::string layer_status = read_status_line(status_file);
    fs::remove(status_file, ec);
    if (!fs::exists(output)) {
        result.why_not = why_not_written(layer_status, manifest_dir);
        return result;
    }
    result.capture = load_capture(output);
    return result;
}

}  // namespace graphlens
