// graphlens-cli capture: records one decode or prefill step of a transformer (a GGUF file or
// a built-in preset) through GraphSession and saves the graph as a capture file. Recording
// needs no weight values: the allocations are made (untouched, so even an 8B preset costs no
// resident memory on lavapipe) but nothing is uploaded.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <optional>

#include "command.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/exec/capture_device.h"
#include "graphlens/model/gguf_file.h"
#include "graphlens/model/model_config.h"
#include "graphlens/model/transformer_builder.h"
#include "graphlens/synthetic/synthetic_graphs.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"

namespace graphlens::cli {
namespace {

struct CaptureOptions {
    std::string model_path;
    std::string preset;
    std::string synthetic;  ///< "transformer": transformer_graph, no device
    size_t layers = 4;      ///< --synthetic: layers
    std::string phase = "decode";
    std::optional<uint32_t> tokens;
    std::optional<uint32_t> ctx;
    std::string kv_type = "f32";
    std::string weight_type;
    bool f32_x = false;
    std::string output;
};

/// Progress on stderr: a bar redrawn in place on a terminal, plain lines otherwise.
class Progress {
  public:
    explicit Progress(std::string what) : what_(std::move(what)), tty_(isatty(fileno(stderr))) {}
    void update(size_t done, size_t total) {
        if (tty_) {
            constexpr int kWidth = 30;
            const int filled = total ? int(kWidth * done / total) : kWidth;
            fmt::print(stderr, "\r{} [{}{}] {}/{}", what_, std::string(filled, '#'),
                       std::string(kWidth - filled, ' '), done, total);
            if (done == total) fmt::print(stderr, "\n");
        } else if (total && (done == total || done * 4 / total != last_quarter_)) {
            last_quarter_ = done * 4 / total;
            fmt::print(stderr, "{}: {}/{}\n", what_, done, total);
        }
    }

  private:
    std::string what_;
    bool tty_;
    size_t last_quarter_ = 0;
};

DType parse_dtype(const std::string& name, const char* option) {
    const auto t = dtype_from_name(name);
    if (!t) throw std::invalid_argument(fmt::format("{}: unknown type '{}'", option, name));
    return *t;
}

// A graph built without a device or kernels (synthetic_graphs.h): the large captures the GUI
// benchmarks open, made anywhere the same way.
int run_synthetic_capture(const CaptureOptions& o) {
    const auto start = std::chrono::steady_clock::now();
    TransformerGraphOptions options;
    options.layers = o.layers;
    CaptureDocument doc;
    doc.graph = transformer_graph(options);
    doc.graph.metadata["source"] = fmt::format("synthetic transformer, {} layers", o.layers);
    doc.generator = "graphlens-cli capture --synthetic";
    save_capture(doc, o.output);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("{}: {} dispatches, {} barriers, {} allocations ({:.1f} s)\n", o.output,
               doc.graph.dispatch_count(), doc.graph.barrier_count(), doc.graph.allocations.size(),
               seconds);
    return 0;
}

int run_capture(const CaptureOptions& o) {
    if (!o.synthetic.empty()) return run_synthetic_capture(o);
    CaptureRequest request;
    std::string source;
    if (!o.model_path.empty()) {
        const GgufFile file = GgufFile::open(o.model_path);
        request.config = model_config_from_gguf(file);
        source = o.model_path;
    } else {
        request.config = model_preset(o.preset).config;
        source = "preset " + o.preset;
    }
    if (!o.weight_type.empty()) {
        request.config.weight_type = parse_dtype(o.weight_type, "--weights");
        request.config.validate();
    }
    request.phase = o.phase == "prefill" ? Phase::prefill : Phase::decode;
    request.tokens = request.phase == Phase::decode ? 1 : o.tokens.value_or(512);
    if (request.phase == Phase::decode && o.tokens && *o.tokens != 1)
        throw std::invalid_argument("--tokens: a decode step processes exactly 1 token");
    request.kv_length = o.ctx.value_or(request.phase == Phase::decode ? 512 : 0);
    request.kv_type = parse_dtype(o.kv_type, "--kv");
    request.q8_activations = !o.f32_x;
    const ModelConfig& c = request.config;

    const auto start = std::chrono::steady_clock::now();
    Device device;
    DeviceMemory memory(device);
    const double weight_mb = double(model_weight_bytes(c)) / 1e6;
    const std::string weight_size = weight_mb >= 1000 ? fmt::format("{:.2f} GB", weight_mb / 1000)
                                                      : fmt::format("{:.1f} MB", weight_mb);
    fmt::print(stderr, "capturing {} ({}, {} layers, {} weights {}) {} tokens={} ctx={} on {}\n",
               c.name, architecture_name(c.architecture), c.n_layer, dtype_name(c.weight_type),
               weight_size, phase_name(request.phase), request.tokens, request.kv_length,
               device.facts().name);
    Progress progress("recording");
    CaptureDocument doc;
    doc.graph = capture_transformer(
        memory, request,
        [&](size_t done, size_t total, std::string_view) { progress.update(done, total); });
    doc.graph.metadata["source"] = source;
    doc.generator = "graphlens-cli capture";
    doc.device = capture_device_from(device.facts());
    save_capture(doc, o.output);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    fmt::print("{}: {} dispatches, {} barriers, {} allocations ({:.1f} s)\n", o.output,
               doc.graph.dispatch_count(), doc.graph.barrier_count(), doc.graph.allocations.size(),
               seconds);
    return 0;
}

const RegisterCommand capture_registration{
    "capture", [](CLI::App& app) -> std::function<int()> {
        auto o = std::make_shared<CaptureOptions>();
        app.description(
            "Record one decode or prefill step of a transformer and save it as a capture file");
        auto* model = app.add_option("--model", o->model_path,
                                     "GGUF model file (metadata is "
                                     "enough; weights are not read)")
                          ->check(CLI::ExistingFile);
        auto* preset = app.add_option("--preset", o->preset,
                                      "built-in model (graphlens-cli presets lists them)");
        auto* synthetic =
            app.add_option("--synthetic", o->synthetic,
                           "a graph made without a device: 'transformer' (a llama-style decode "
                           "step, 20 dispatches a layer + 4; its kernels are not real, so it "
                           "can be analysed and opened, not run)")
                ->check(CLI::IsMember({"transformer"}));
        app.add_option("--layers", o->layers, "--synthetic: layers (5000 makes 100,004 dispatches)")
            ->check(CLI::Range(size_t{1}, size_t{1} << 20))
            ->capture_default_str();
        model->excludes(preset);
        preset->excludes(model);
        synthetic->excludes(model)->excludes(preset);
        app.add_option("--phase", o->phase, "decode (1 token) or prefill (--tokens tokens)")
            ->check(CLI::IsMember({"decode", "prefill"}))
            ->capture_default_str();
        app.add_option("--tokens", o->tokens, "prefill: tokens in the step (default 512)");
        app.add_option("--ctx", o->ctx,
                       "tokens already in the KV cache (default: decode 512, prefill 0)");
        app.add_option("--kv", o->kv_type,
                       "KV cache type: f32 or f16 (an f16 prefill attends token by token)")
            ->check(CLI::IsMember({"f32", "f16"}))
            ->capture_default_str();
        app.add_option("--weights", o->weight_type,
                       "matrix weight type of a preset (q4_0, q8_0, q4_k, q6_k, f16, f32); "
                       "default q4_0");
        app.add_flag("--f32-x", o->f32_x,
                     "decode: keep the x of the Q4_0 / Q8_0 mat-vecs f32 (by default the norms "
                     "before q/k/v and gate/up quantise it to q8x, read with integer dot "
                     "products where the device has them)");
        app.add_option("-o,--output", o->output, "capture file to write")->required();
        return [o] {
            if (o->model_path.empty() && o->preset.empty() && o->synthetic.empty())
                throw std::invalid_argument(
                    "one of --model FILE.gguf, --preset NAME or --synthetic transformer is "
                    "needed");
            return run_capture(*o);
        };
    }};

}  // namespace
}  // namespace graphlens::cli
