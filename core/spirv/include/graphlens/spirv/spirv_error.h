#pragma once
// The one error reflection of foreign SPIR-V throws: malformed, truncated or unsupported
// input. It carries the word offset of the instruction at fault (when there is one), so a
// capture of someone else's pipeline can point at the word `spirv-dis --offsets` shows.
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string_view>

namespace graphlens::spirv {

class SpirvError : public std::runtime_error {
  public:
    static constexpr size_t no_offset = std::numeric_limits<size_t>::max();

    /// what(): "SPIR-V word <offset>: <message>", or "SPIR-V: <message>" without an offset.
    explicit SpirvError(std::string_view message, size_t word_offset = no_offset);

    /// Word index (0 = the magic number) of the instruction at fault, or no_offset.
    size_t word_offset() const { return word_offset_; }

  private:
    size_t word_offset_;
};

}  // namespace graphlens::spirv
