#pragma once
// A typed window onto an allocation. Offsets always count: two views of one allocation
// conflict only where their bytes overlap.
#include <array>
#include <cstdint>

#include "graphlens/graph/byte_range.h"
#include "graphlens/graph/dtype.h"

namespace graphlens {

struct TensorView {
    AllocationId allocation = 0;
    uint64_t offset = 0;  ///< bytes from the start of the allocation
    uint64_t size = 0;    ///< bytes
    DType dtype = DType::f32;
    uint8_t rank = 1;
    std::array<int64_t, 4> shape{0, 1, 1, 1};  ///< innermost first (ggml order: ne0 = row length)

    ByteRange range() const { return {allocation, offset, offset + size}; }
    int64_t elements() const {
        int64_t n = 1;
        for (uint8_t i = 0; i < rank; ++i) n *= shape[i];
        return n;
    }
    friend bool operator==(const TensorView&, const TensorView&) = default;
};

}  // namespace graphlens
