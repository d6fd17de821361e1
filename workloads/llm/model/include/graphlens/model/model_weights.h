#pragma once
// The weights of a transformer on the host, tensor by tensor in ggml's byte layout (the
// layout the GPU kernels read): viewed in place from a memory-mapped GGUF, or generated at
// random with the right shapes and types for presets and metadata-only files.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graphlens/model/model_config.h"

namespace graphlens {

class GgufFile;

class ModelWeights {
  public:
    /// Deterministic random weights for `config`: quantized blocks are built directly (a
    /// random f16 scale and random quants), so even a 1B preset takes well under a second
    /// per gigabyte. Norm weights are near 1, matrices scaled by 1/sqrt(row length) so
    /// activations stay of order one through many layers.
    static ModelWeights random(const ModelConfig& config, uint64_t seed);
    /// Views the tensors of a GGUF with data (the file must outlive the weights). Throws
    /// std::invalid_argument naming the tensor when one is missing or has another shape or
    /// an unsupported type.
    static ModelWeights from_gguf(const GgufFile& file, const ModelConfig& config);

    const ModelConfig& config() const { return config_; }
    const std::vector<WeightSpec>& specs() const { return specs_; }
    const WeightSpec& spec(std::string_view name) const;
    std::span<const uint8_t> bytes(std::string_view name) const;
    /// The tensor's values as floats (dequantized), innermost dimension first.
    std::vector<float> values(std::string_view name) const;

  private:
    size_t index_of(std::string_view name) const;
    ModelConfig config_;
    std::vector<WeightSpec> specs_;
    std::vector<std::span<const uint8_t>> data_;
    std::vector<std::vector<uint8_t>> owned_;
    std::unordered_map<std::string, size_t> index_;
};

/// Writes the GGUF metadata keys llama.cpp uses for `config` ("general.architecture",
/// "<arch>.block_count", ...), so model_config_from_gguf(written file) == config.
class GgufWriter;
void write_model_metadata(GgufWriter& writer, const ModelConfig& config);
/// What else a model file carries besides GraphLens's own metadata and the tensors.
struct ModelFileExtras {
    /// A placeholder vocabulary (placeholder_vocabulary.h), so that llama.cpp loads the file
    /// and takes token ids below the model's vocabulary size.
    bool vocabulary = false;
};
/// Writes a complete model file: metadata plus every tensor of `weights`.
void write_model_gguf(const std::filesystem::path& path, const ModelWeights& weights,
                      const ModelFileExtras& extras = {});

}  // namespace graphlens
