// graphlens-cli generate: a real autoregressive decode loop (greedy_decode.h) on a GGUF model
// or a preset with random weights, in one execution mode: prints the generated tokens and the
// time per token (median, min, max over the timed tokens after the warm-up).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "command.h"
#include "encoding_options.h"
#include "graphlens/decode/greedy_decode.h"
#include "graphlens/model/gguf_file.h"
#include "graphlens/model/model_config.h"
#include "graphlens/model/model_weights.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/results/run_result.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"

namespace graphlens::cli {
namespace {

struct GenerateOptions {
    std::string model_path;
    std::string preset;
    std::string weight_type;
    uint64_t seed = 1;
    uint32_t tokens = 16;
    uint32_t warmup = 4;
    uint32_t ctx = 0;
    int32_t prompt_token = 1;
    std::string mode = "levels+ahead";
    std::string kv_type = "f16";
    bool f32_x = false;
    bool wait_each_token = false;
    EncodingOptions encoding;
};

// The weights: a GGUF's (the file stays mapped while they are used) or a preset's at random.
struct LoadedWeights {
    std::unique_ptr<GgufFile> file;
    std::unique_ptr<ModelWeights> weights;
    std::string source;
};

LoadedWeights load_weights(const GenerateOptions& o) {
    LoadedWeights w;
    if (!o.model_path.empty()) {
        w.file = std::make_unique<GgufFile>(GgufFile::open(o.model_path));
        w.weights = std::make_unique<ModelWeights>(
            ModelWeights::from_gguf(*w.file, model_config_from_gguf(*w.file)));
        w.source = o.model_path;
        return w;
    }
    ModelConfig c = model_preset(o.preset).config;
    if (!o.weight_type.empty()) {
        const auto t = dtype_from_name(o.weight_type);
        if (!t)
            throw std::invalid_argument(fmt::format("--weights: unknown type '{}'", o.weight_type));
        c.weight_type = *t;
        c.validate();
    }
    w.weights = std::make_unique<ModelWeights>(ModelWeights::random(c, o.seed));
    w.source = fmt::format("preset {}, random {} weights (seed {})", o.preset,
                           dtype_name(c.weight_type), o.seed);
    return w;
}

std::string microseconds(double ns) {
    return fmt::format("{:.1f}", ns / 1e3);
}

void print_result(const GreedyDecodeResult& r, const GenerateOptions& o, const std::string& source,
                  const Device& device) {
    const ExecutionTiming& first = r.steps.front();
    fmt::print("device:  {}\nmodel:   {}\n", device.facts().name, source);
    fmt::print(
        "mode:    {}, planned once ({} dispatches, {} barriers, {} command buffer(s) a token, {} "
        "fusions), each token's KV length, cache slot and sampler values patched in\n",
        o.mode, first.dispatches, first.barriers, first.command_buffers, r.fusions_applied);
    fmt::print("context: {} positions, KV {}\n", r.context, o.kv_type);
    fmt::print("tokens:  {} | {}\n", o.prompt_token, fmt::join(r.tokens, " "));
    std::vector<double> wall, gpu, encode;
    for (size_t i = o.warmup; i < r.steps.size(); ++i) {
        wall.push_back(double(r.steps[i].wall_ns));
        gpu.push_back(double(r.steps[i].gpu_ns));
        encode.push_back(double(r.steps[i].encode_ns));
    }
    const auto w = TimingSummary::from_samples(wall);
    const auto g = TimingSummary::from_samples(gpu);
    const auto e = TimingSummary::from_samples(encode);
    fmt::print(
        "timed:   {} tokens at KV lengths {}..{}, after {} warm-up tokens; greedy argmax on the "
        "GPU, the token stays there (tokens read back once, after the loop){}\n",
        wall.size(), o.warmup + 1, o.warmup + wall.size(), o.warmup,
        o.mode == "levels+ahead" && !o.wait_each_token
            ? "; each step queued behind the one before (its GPU time may include waiting there)"
            : "");
    fmt::print("time per token (wall, µs): median {}  min {}  max {}   ({:.1f} tokens/s)\n",
               microseconds(w.median), microseconds(w.min), microseconds(w.max),
               w.median > 0 ? 1e9 / w.median : 0.0);
    fmt::print("  GPU median {} µs, recording median {} µs\n", microseconds(g.median),
               microseconds(e.median));
    // One line for scripts (bench/llama/decode_loop_ab.sh).
    fmt::print("generate: mode={} tokens={} kv={}..{} median_us={} min_us={} max_us={} gpu_us={}\n",
               o.mode, wall.size(), o.warmup + 1, o.warmup + wall.size(), microseconds(w.median),
               microseconds(w.min), microseconds(w.max), microseconds(g.median));
}

int run_generate(const GenerateOptions& o) {
    if (o.model_path.empty() == o.preset.empty())
        throw std::invalid_argument("give one of --model FILE.gguf or --preset NAME");
    const auto mode = execution_mode_from_name(o.mode);
    if (!mode) throw std::invalid_argument(fmt::format("--mode: unknown mode '{}'", o.mode));
    const LoadedWeights w = load_weights(o);
    Device device;
    DeviceMemory memory(device);
    GreedyDecodeOptions go;
    go.mode = *mode;
    go.tokens = o.tokens;
    go.warmup = o.warmup;
    go.context = o.ctx;
    go.prompt_token = o.prompt_token;
    go.kv_type = o.kv_type == "f32" ? DType::f32 : DType::f16;
    go.q8_activations = !o.f32_x;
    go.queue_steps = !o.wait_each_token;
    go.planning.fusion_recipes = ops::fusion_recipes();
    go.planning.stream_first = o.encoding.stream_first;
    go.planning.stream_growth = o.encoding.stream_growth;
    go.planning.parallel_threads = o.encoding.parallel_threads;
    const GreedyDecodeResult r = greedy_decode(memory, *w.weights, go);
    print_result(r, o, w.source, device);
    std::fflush(stdout);
    if (const size_t invalid = device.validation_errors()) {
        fmt::print(stderr, "graphlens-cli: error: the validation layer reported {} error(s)\n",
                   invalid);
        return 1;
    }
    return 0;
}

const RegisterCommand generate_registration{
    "generate", [](CLI::App& app) -> std::function<int()> {
        app.description(
            "Decode tokens in a real greedy loop and time it per token (argmax on the GPU, the "
            "plan made once)");
        app.footer(
            "Each token's step reads the KV cache up to its position and appends at it; the next "
            "token is the argmax of the step's logits, chosen on the GPU and left there (the "
            "tokens are read back once, after the loop). The step is planned once for the mode "
            "and the context; each token's KV length, cache slot and sampler values are patched "
            "into that plan and its command buffer recorded anew (levels+ahead: while the GPU "
            "runs the token before). Prints the tokens and the wall time per token (median, min, "
            "max over the timed tokens), the figure to compare with llama.cpp's tokens per "
            "second; run --modes levels+ahead gives the fixed-step lower bound instead.");
        auto o = std::make_shared<GenerateOptions>();
        auto* model = app.add_option("--model", o->model_path, "GGUF model file with weights")
                          ->check(CLI::ExistingFile);
        auto* preset = app.add_option("--preset", o->preset,
                                      "built-in model with random weights (graphlens-cli presets)");
        model->excludes(preset);
        preset->excludes(model);
        app.add_option("--weights", o->weight_type,
                       "--preset: matrix weight type (q4_0, q8_0, q4_k, q6_k, f16, f32; default "
                       "the preset's, q4_0)");
        app.add_option("--seed", o->seed, "--preset: seed of the random weights");
        app.add_option("--tokens", o->tokens, "tokens generated and timed (default 16)")
            ->check(CLI::Range(1u, 1u << 20));
        app.add_option("--warmup", o->warmup,
                       "tokens generated before the timed ones; the KV cache grows through them, "
                       "so --warmup 512 times tokens at KV lengths 513 and on (default 4)");
        app.add_option("--ctx", o->ctx,
                       "KV-cache positions the plan is sized for (default: warmup + tokens)");
        app.add_option("--prompt-token", o->prompt_token,
                       "the first step's input token id (default 1)");
        app.add_option("--mode", o->mode,
                       "execution mode: serial, per-op-submit, elided, fused, greedy, levels, "
                       "levels+split, levels+stream, levels+parallel or levels+ahead (default "
                       "levels+ahead: the next token's step recorded while the GPU runs this "
                       "one)")
            ->capture_default_str();
        app.add_option("--kv", o->kv_type, "KV cache type: f16 or f32")
            ->check(CLI::IsMember({"f32", "f16"}))
            ->capture_default_str();
        app.add_flag("--f32-x", o->f32_x,
                     "keep the x of the Q4_0 / Q8_0 mat-vecs f32 (default: q8x where the device "
                     "has integer dot products)");
        app.add_flag("--wait-each-token", o->wait_each_token,
                     "levels+ahead: submit a token's step only once the one before has completed "
                     "(default: queued behind it at once, since the sampler leaves the token on "
                     "the GPU)");
        add_encoding_options(app, o->encoding);
        return [o] { return run_generate(*o); };
    }};

}  // namespace
}  // namespace graphlens::cli
