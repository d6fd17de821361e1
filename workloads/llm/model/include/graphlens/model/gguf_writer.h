#pragma once
// Writer of GGUF files (version 3 by default, or 2), enough for test models: typed metadata
// and tensors in any ggml type, given as raw bytes or as floats converted to f32, f16, Q8_0
// or Q4_0 (ggml's quantizers, graphlens/ops/ggml_blocks.h). Output is deterministic: metadata
// and tensors in insertion order, data aligned to general.alignment (default 32).
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "graphlens/graph/dtype.h"
#include "graphlens/model/gguf_file.h"

namespace graphlens {

class GgufWriter {
  public:
    explicit GgufWriter(uint32_t version = 3);

    /// Adds or replaces a metadata key. Setting "general.alignment" (u32 power of two)
    /// changes the data alignment.
    void set(const std::string& key, GgufValue value);
    /// Adds a tensor whose bytes are already in ggml layout; their size must match dims and
    /// type. Names must be unique (throws std::invalid_argument).
    void add_tensor(const std::string& name, std::vector<uint64_t> dims, GgmlType type,
                    std::vector<uint8_t> bytes);
    /// Adds a tensor from floats (dims' product values, row-major ggml order), stored as
    /// `type` (f32, f16, q8_0, q4_0, q4_k or q6_k).
    void add_tensor_from_floats(const std::string& name, std::vector<uint64_t> dims, DType type,
                                std::span<const float> values);
    /// Adds a tensor info without data: only for metadata-only files (bytes() throws
    /// std::logic_error for such a tensor unless omit_tensor_data(true)).
    void add_tensor_shape(const std::string& name, std::vector<uint64_t> dims, GgmlType type);
    /// Writes tensor infos but no data section: a "metadata-only" file (see
    /// GgufFile::has_tensor_data). Off by default.
    void omit_tensor_data(bool omit) { omit_data_ = omit; }

    std::vector<uint8_t> bytes() const;
    void write(const std::filesystem::path& path) const;

  private:
    struct PendingTensor {
        std::string name;
        std::vector<uint64_t> dims;
        GgmlType type;
        uint64_t size;               ///< bytes the data takes
        std::vector<uint8_t> bytes;  ///< empty for a shape-only tensor
    };
    void add_pending(const std::string& name, std::vector<uint64_t> dims, GgmlType type,
                     uint64_t size, std::vector<uint8_t> bytes);
    uint32_t version_;
    uint32_t alignment_ = kGgufDefaultAlignment;
    bool omit_data_ = false;
    std::vector<GgufKeyValue> metadata_;
    std::vector<PendingTensor> tensors_;
};

}  // namespace graphlens
