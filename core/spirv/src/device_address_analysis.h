#pragma once
// Whether a kernel's PhysicalStorageBuffer pointers (buffer device addresses) can reach memory
// that its bindings do not name. A PhysicalStorageBuffer pointer the code forms from data (an
// integer converted or bitcast to a pointer, a pointer loaded from a buffer, a push constant or
// any memory the invocation did not fill itself) may point anywhere; one it only receives from
// the driver, as the parameter of a cooperative-matrix decode callback, points into the buffer
// the tensor load that calls it binds, and passing it on, offsetting it with access chains or
// re-typing it with a pointer-to-pointer bitcast keeps it there. The analysis is by types (a
// pointer's storage class is part of its type), over the code that runs for the entry point:
// every instruction that makes a PhysicalStorageBuffer pointer or uses one must be one whose
// effect it knows, else the kernel's addresses are unknown. Writes through such a pointer are
// unknown too: the walk only proves that a callback's reads stay inside a read binding.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "graphlens/spirv/spirv_reflection.h"
#include "spirv/src/access_analysis.h"
#include "spirv/src/spirv_module.h"

namespace graphlens::spirv {

struct DeviceAddressFinding {
    DeviceAddresses use = DeviceAddresses::none;
    std::string reason;  ///< why, in one sentence; empty for a module without any
};

class DeviceAddressAnalysis {
  public:
    DeviceAddressAnalysis(const SpirvModule& module, const AccessAnalysis& code);
    DeviceAddressFinding run();

  private:
    void index_result_types();
    std::optional<std::string> global_forming_address(const Instruction& in);
    std::optional<std::string> instruction_forming_address(const Instruction& in);
    std::optional<std::string> unfollowed_use(const Instruction& in);
    std::optional<std::string> psb_operand_use(const Instruction& in);

    uint32_t type_of(uint32_t id) const;
    bool is_pointer_type(uint32_t type) const;
    bool is_device_address_type(uint32_t type) const;
    bool holds_device_address(uint32_t type, int depth = 0);
    uint32_t pointee(uint32_t pointer_type) const;
    uint32_t storage_class_of(uint32_t pointer_value) const;
    std::string where(const Instruction& in) const;

    const SpirvModule& module_;
    const AccessAnalysis& code_;
    std::unordered_map<uint32_t, uint32_t> local_types_;  ///< result id → type id, in functions
    std::unordered_map<uint32_t, bool> holds_cache_;      ///< type id → holds a PSB pointer
    bool saw_device_address_value_ = false;
};

}  // namespace graphlens::spirv
