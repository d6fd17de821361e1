#pragma once
// A recorded program's graph made runnable on a Device (replay of a foreign capture): every
// kernel's pipeline built from its recorded SPIR-V (checked by spirv-val first), entry point,
// specialization constants, required subgroup size and pipeline flags; per kernel one
// descriptor set layout per set it declares (storage or uniform buffers, as reflected) and a
// pipeline layout with its push-constant block; per dispatch its descriptor sets, written once
// with the recorded buffers, offsets and sizes (dynamic offsets are already resolved into the
// offsets), so every plan of the graph binds the same sets. Transfer nodes (the program's
// copy, fill and update commands) are recorded as those commands again.
//
// Nodes are found by id, so any plan of the graph (reordered, rebarriered: passes keep node
// ids) records through the same ForeignProgram.
#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "graphlens/graph/compute_graph.h"

namespace graphlens {

class Device;
class DeviceMemory;

/// True when the graph holds kernels GraphLens does not build: recorded SPIR-V or transfer
/// pseudo-kernels (a capture of another program).
bool is_foreign_graph(const ComputeGraph& graph);

/// spirv-val's verdict on a recorded module: `error` is why it cannot be used ("" when it
/// validates for Vulkan 1.x as the device reports it). `unknown_to_validator` says the module
/// uses a capability, extension or operand this SPIRV-Tools release does not know yet (e.g.
/// a vendor's newer cooperative-matrix capability): the program's own driver accepted the
/// module, so the verdict is left to this device's driver instead.
struct SpirvVerdict {
    std::string error;
    bool unknown_to_validator = false;
};
SpirvVerdict validate_spirv(const std::vector<uint32_t>& words, uint32_t api_version);

/// True when the module contains an atomic instruction (OpAtomic*): its results may depend on
/// the order its invocations run in.
bool spirv_uses_atomics(const std::vector<uint32_t>& words);

class ForeignProgram {
  public:
    /// Builds pipelines and descriptor sets for `graph` in `memory` (which holds the graph's
    /// allocations). Throws std::runtime_error naming the kernel (id and name) or node (index,
    /// id and label) that cannot be made; first of all a dispatch whose workgroup counts the
    /// recorder could not read (ComputeGraph::unknown_workgroups), with why.
    ForeignProgram(Device& device, DeviceMemory& memory, const ComputeGraph& graph);
    ~ForeignProgram();
    ForeignProgram(const ForeignProgram&) = delete;
    ForeignProgram& operator=(const ForeignProgram&) = delete;

    /// Records dispatch or transfer node `n` (of the graph or any plan of it) into `cmd`.
    void record(VkCommandBuffer cmd, const Node& n) const;
    /// Records the program's barrier `scope` as the pipeline barrier it was: its stages,
    /// accesses and buffer ranges.
    void record_barrier(VkCommandBuffer cmd, const BarrierScope& scope) const;
    /// A barrier ordering every command of the graph's stages before it with every one after
    /// it (what GraphLens's plans put where they need one): compute (and, when the graph has
    /// transfer commands, transfer) writes → reads and writes.
    void record_full_barrier(VkCommandBuffer cmd) const;

    /// What the replay does differently from the program, once each ("vkCmdFillBuffer's value
    /// was not recorded: it fills 0").
    const std::vector<std::string>& notes() const { return notes_; }
    /// Names of the kernels that use atomics.
    const std::vector<std::string>& atomic_kernels() const { return atomic_kernels_; }

  private:
    struct Pipeline;
    struct Command;
    void build_pipeline(KernelId id);
    void prepare_dispatch(size_t index, const Node& n);
    void prepare_transfer(size_t index, const Node& n);
    void create_descriptor_pool();
    void release();

    Device& device_;
    DeviceMemory& memory_;
    const ComputeGraph& graph_;
    bool has_transfers_ = false;
    std::vector<std::unique_ptr<Pipeline>> pipelines_;  // by kernel id, null for transfers
    std::unordered_map<NodeId, std::unique_ptr<Command>> commands_;
    VkDescriptorPool pool_ = VK_NULL_HANDLE;
    std::vector<std::string> notes_;
    std::vector<std::string> atomic_kernels_;
};

}  // namespace graphlens
