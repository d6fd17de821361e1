#pragma once
// What device_address_program does, for the tests that check its capture: one dispatch writes
// `data` through its buffer device address (a push constant), then `add` reads `data` twice
// through descriptors and writes `out`.
#include <cstdint>

namespace device_address {

inline constexpr uint32_t kCount = 256;
inline constexpr uint64_t kBytes = kCount * 4;
inline constexpr const char* kStoreLabel = "store_through_address";
inline constexpr const char* kAddLabel = "add";

}  // namespace device_address
