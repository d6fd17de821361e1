#pragma once
// What is bound to a command buffer's compute bind point while its recording is replayed:
// pipeline, descriptor sets (with their dynamic offsets) and push constants. The recorded
// handles are resolved here, at submission (recorded_command.h says why that is exact).
#include <map>
#include <memory>
#include <vector>

#include "layer/src/handle_cache.h"
#include "layer/src/layer_state.h"
#include "layer/src/recorded_command.h"

namespace graphlens::layer {

struct BoundSet {
    std::shared_ptr<const SetContents> contents;  ///< null: bound, but unknown to the layer
    std::shared_ptr<const SetLayoutState> layout;
    std::vector<uint32_t> dynamic_offsets;  ///< this set's, in binding then element order
    bool pushed = false;
    /// The contents pushes write into, in place: only this bind state holds them (a dispatch
    /// keeps its ranges, not the set), so a push costs no copy of the set.
    std::shared_ptr<SetContents> pushed_contents;

    /// The dynamic offset of descriptor `element` of `binding` (0 for a non-dynamic one).
    uint32_t dynamic_offset(uint32_t binding, uint32_t element) const;
};

/// The handles are resolved through the submission's caches (handle_cache.h), which keep the
/// objects alive while the submission is walked.
struct BindState {
    const PipelineState* pipeline = nullptr;
    std::map<uint32_t, BoundSet> sets;
    std::vector<uint8_t> push_constants;

    void apply(SubmissionHandles& handles, const DeviceState& device, const CmdBindPipeline& c);
    void apply(SubmissionHandles& handles, const DeviceState& device, const CommandList& list,
               const CmdBindSets& c);
    void apply(SubmissionHandles& handles, DeviceState& device, const CommandList& list,
               const CmdPushDescriptors& c);
    void apply(const CommandList& list, const CmdPushConstants& c);
};

}  // namespace graphlens::layer
