#pragma once
// IEEE binary16 (DType::f16) conversions: what the kernels store and what the runner's seeded
// data and output comparison read and write.
#include <cstdint>

namespace graphlens {

/// Round to nearest even; overflow to inf; NaN kept.
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

}  // namespace graphlens
