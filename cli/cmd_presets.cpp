// graphlens-cli presets: the built-in models `capture --preset` knows, with their shapes and
// the source of their dimensions (docs/models.md).
#include <fmt/format.h>

#include "command.h"
#include "graphlens/model/model_config.h"

namespace graphlens::cli {
namespace {

const RegisterCommand presets_registration{
    "presets", [](CLI::App& app) -> std::function<int()> {
        app.description("List the built-in model presets");
        return [] {
            fmt::print("{:<15} {:<9} {:>6} {:>6} {:>9} {:>6} {:>7} {:>9}  {}\n", "preset", "arch",
                       "layers", "embd", "heads/kv", "head", "ffn", "Q4_0 GB", "source");
            for (const ModelPreset& p : model_presets()) {
                const ModelConfig& c = p.config;
                const std::string ffn =
                    c.is_moe() ? fmt::format("{}x{}/{}", c.n_ff_expert, c.n_expert_used, c.n_expert)
                               : std::to_string(c.n_ff);
                fmt::print("{:<15} {:<9} {:>6} {:>6} {:>9} {:>6} {:>7} {:>9.2f}  {}\n", p.name,
                           architecture_name(c.architecture), c.n_layer, c.n_embd,
                           fmt::format("{}/{}", c.n_head, c.n_head_kv), c.head_dim, ffn,
                           double(model_weight_bytes(c)) / 1e9, p.source);
                fmt::print("{:<15} {}\n", "", p.description);
            }
            return 0;
        };
    }};

}  // namespace
}  // namespace graphlens::cli
