#pragma once
// What the code of an entry point's call tree does with the memory of a variable. Pointers
// are followed from the variable through OpAccessChain and its variants, OpCopyObject,
// pointer OpBitcast, OpSelect, OpPhi, OpImageTexelPointer, into the parameters of called
// functions and back out of OpReturnValue, to the instructions that touch memory: OpLoad
// reads, OpStore writes, atomics do both (OpAtomicLoad reads, OpAtomicStore writes),
// OpCopyMemory writes its target and reads its source, cooperative-matrix loads (KHR, NV)
// read and stores write (tensor-addressed ones of SPV_NV_cooperative_matrix2 too), OpArrayLength
// does neither. An image
// loaded from the variable is followed the same way: OpImageWrite writes, queries touch
// nothing, any other use reads. A pointer reaching anything else "escapes" (stored to memory,
// converted to an integer, an unknown opcode): the caller then takes read_write.
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "spirv/src/spirv_module.h"

namespace graphlens::spirv {

struct CodeAccess {
    bool reads = false;
    bool writes = false;
    bool escapes = false;  ///< used in a way the walker does not follow
};

class AccessAnalysis {
  public:
    /// Indexes the uses of every id in the functions reachable from `entry_function`.
    AccessAnalysis(const SpirvModule& module, uint32_t entry_function, size_t at);

    /// Whether `id` is an operand of an instruction of the call tree (debug instructions
    /// aside). Conservative: a literal operand that happens to equal `id` counts too.
    bool referenced(uint32_t id) const { return uses_.contains(id); }
    /// The accesses the call tree makes through pointers derived from `variable`.
    CodeAccess access_of(uint32_t variable) const;
    /// The entry point's function and every function it calls or hands to the driver to call
    /// (cooperative-matrix decode callbacks): the code that runs for a dispatch.
    const std::vector<const Function*>& reachable_functions() const { return reachable_; }

  private:
    friend class PointerWalk;
    void collect_reachable(uint32_t entry_function, size_t at);
    void index_uses(const Function& f);
    bool is_debug_only(const Instruction& in) const;

    const SpirvModule& module_;
    std::vector<const Function*> reachable_;
    std::unordered_map<uint32_t, std::vector<size_t>> uses_;   // id -> instruction indices
    std::unordered_map<uint32_t, std::vector<size_t>> calls_;  // callee -> OpFunctionCall indices
    std::unordered_map<size_t, uint32_t> returns_;  // OpReturnValue index -> its function's id
};

}  // namespace graphlens::spirv
