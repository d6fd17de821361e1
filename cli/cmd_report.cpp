// graphlens-cli report: a capture as HTML, Markdown, CSV or JSON (graphlens/capture/report.h).
#include <fmt/core.h>

#include <fstream>
#include <memory>

#include "command.h"
#include "graphlens/capture/report.h"
#include "graphlens/ops/fusion_recipes.h"

namespace graphlens::cli {
namespace {

struct ReportArgs {
    std::string capture;
    std::string format;
    std::string output = "-";
    std::string reorder = "greedy";
};

ReportFormat format_of(const ReportArgs& a) {
    std::string name = a.format;
    if (name.empty()) {  // from the output's extension, HTML otherwise
        const std::string ext = std::filesystem::path(a.output).extension().string();
        name = ext.empty() || a.output == "-" ? "html" : ext.substr(1);
    }
    const auto f = report_format_from_name(name);
    if (!f)
        throw std::invalid_argument("unknown report format '" + name + "' (html, md, csv, json)");
    return *f;
}

int run_report(const ReportArgs& a) {
    const ReportFormat format = format_of(a);
    const CaptureDocument doc = load_capture(a.capture);
    ReportOptions options;
    // Used only when the capture holds no snapshots: the same pipeline `run` would apply.
    options.passes.recipes = ops::fusion_recipes();
    options.passes.reorder = *reorder_mode_from_name(a.reorder);
    const std::string text = render_report(summarize_capture(doc, options), format);
    if (a.output == "-") {
        fmt::print("{}", text);
        return 0;
    }
    std::ofstream f(a.output, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot open " + a.output + " for writing");
    f.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!f) throw std::runtime_error("cannot write " + a.output);
    fmt::print(stderr, "wrote {} ({} report, {} bytes)\n", a.output, report_format_name(format),
               text.size());
    return 0;
}

const RegisterCommand report_registration{
    "report", [](CLI::App& app) -> std::function<int()> {
        app.description(
            "Summarise a capture: stages, lower bound, fusions, barrier causes, redundant "
            "barriers, timings per mode, op and layer (runs the pass pipeline if the capture "
            "has no snapshots)");
        auto args = std::make_shared<ReportArgs>();
        app.add_option("capture", args->capture, "capture file (graphlens-capture JSON)")
            ->required();
        app.add_option("--format,-f", args->format,
                       "html, md, csv (one row per dispatch) or json; default: from -o's "
                       "extension, else html")
            ->check(CLI::IsMember({"html", "md", "markdown", "csv", "json"}));
        app.add_option("-o,--output", args->output, "output file ('-' = stdout)");
        app.add_option("--reorder", args->reorder,
                       "reorder of the pipeline run when the capture has no snapshots")
            ->check(CLI::IsMember({"none", "greedy", "levels"}));
        return [args] { return run_report(*args); };
    }};

}  // namespace
}  // namespace graphlens::cli
