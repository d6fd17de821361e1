// graphlens-cli gguf: writes a model file of random weights in a preset's (or a tiny test
// model's) shape, for running the same model in GraphLens and in other engines (llama.cpp).
#include <fmt/format.h>

#include <memory>

#include "command.h"
#include "graphlens/model/model_config.h"
#include "graphlens/model/model_weights.h"

namespace graphlens::cli {
namespace {

struct GgufArgs {
    std::string output;
    std::string preset;
    std::string tiny;
    std::string weights = "q4_0";
    uint64_t seed = 1;
    bool vocabulary = true;
};

ModelConfig config_of(const GgufArgs& a) {
    if (a.preset.empty() == a.tiny.empty())
        throw std::invalid_argument("give one of --preset NAME or --tiny ARCH");
    const auto dtype = dtype_from_name(a.weights);
    if (!dtype) throw std::invalid_argument("--weights must be f32, f16, q8_0 or q4_0");
    if (!a.tiny.empty()) {
        const auto arch = architecture_from_name(a.tiny);
        if (!arch) throw std::invalid_argument(fmt::format("unknown architecture '{}'", a.tiny));
        return tiny_model_config(*arch, *dtype);
    }
    ModelConfig c = model_preset(a.preset).config;
    c.weight_type = *dtype;
    c.validate();
    return c;
}

int write_gguf(const GgufArgs& a) {
    const ModelConfig config = config_of(a);
    const ModelWeights weights = ModelWeights::random(config, a.seed);
    write_model_gguf(a.output, weights, {.vocabulary = a.vocabulary});
    fmt::print("wrote {} ({}, {} layers, {} weights, seed {})\n", a.output, config.name,
               config.n_layer, a.weights, a.seed);
    return 0;
}

const RegisterCommand gguf_registration{
    "gguf", [](CLI::App& app) -> std::function<int()> {
        app.description(
            "Write a GGUF model file of random weights in a preset's shape or a tiny test "
            "model's, loadable by llama.cpp (token ids in, no tokenizer)");
        auto args = std::make_shared<GgufArgs>();
        app.add_option("-o,--output", args->output, "the GGUF file to write")->required();
        app.add_option("--preset", args->preset, "a built-in preset (graphlens-cli presets)");
        app.add_option("--tiny", args->tiny, "a tiny test model of this architecture (llama, ...)");
        app.add_option("--weights", args->weights, "f32, f16, q8_0 or q4_0 (default q4_0)");
        app.add_option("--seed", args->seed, "seed of the random weights");
        app.add_flag("!--no-vocabulary", args->vocabulary,
                     "omit the placeholder tokenizer keys llama.cpp needs");
        return [args] { return write_gguf(*args); };
    }};

}  // namespace
}  // namespace graphlens::cli
