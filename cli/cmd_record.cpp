// graphlens-cli record: runs a program under VK_LAYER_GRAPHLENS_capture (record_program, the
// same as the GUI's File → Record a program…) and summarises the capture it wrote.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <optional>

#include "command.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/layer/capture_settings.h"
#include "graphlens/record/program_recorder.h"

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
    bool data = false;
};

// The range options as the layer takes them, parsed by the layer's own parser.
layer::CaptureRange range_of(const RecordOptions& o) {
    std::map<std::string, std::string> env{
        {layer::kEnvSubmits, o.submits},
        {layer::kEnvAfterDispatches, o.after_dispatches ? std::to_string(*o.after_dispatches) : ""},
        {layer::kEnvDispatches, o.dispatches ? std::to_string(*o.dispatches) : ""},
        {layer::kEnvLabel, o.label}};
    return layer::parse_capture_settings([&](const char* n) {
               auto it = env.find(n);
               return it == env.end() ? nullptr : it->second.c_str();
           })
        .range;
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
    RecordRequest request;
    request.command = o.command;
    request.working_directory = o.cwd;
    request.output = fs::absolute(o.output);
    request.range = range_of(o);
    request.data = o.data;
    const RecordResult r = record_program(request);
    fmt::print("program: {} {}\n", o.command.front(),
               r.program_failure.empty() ? "exited with status 0" : r.program_failure);
    if (!r.capture) {
        fmt::print(stderr, "graphlens-cli: no capture was written: {}\n", r.why_not);
        return 2;
    }
    print_summary(*r.capture, request.output.string());
    if (!r.program_failure.empty()) {
        fmt::print(stderr, "graphlens-cli: the program {}; the capture is kept\n",
                   r.program_failure);
        return r.exit_code != 0 ? r.exit_code : 1;
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
        app.add_flag("--data", o->data,
                     "also save the contents of the buffers the range reads, as they are when "
                     "it begins, to <output>.data (run loads them)");
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
