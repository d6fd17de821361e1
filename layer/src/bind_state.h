#pragma once
// What is bound to a command buffer's compute bind point while its recording is replayed:
// pipeline, descriptor sets (with their dynamic offsets) and push constants.
#include <map>
#include <memory>
#include <vector>

#include "layer/src/recorded_command.h"

namespace graphlens::layer {

struct BoundSet {
    std::shared_ptr<const SetContents> contents;  ///< null: bound, but unknown to the layer
    std::shared_ptr<const SetLayoutState> layout;
    std::vector<uint32_t> dynamic_offsets;  ///< this set's, in binding then element order
    bool pushed = false;

    /// The dynamic offset of descriptor `element` of `binding` (0 for a non-dynamic one).
    uint32_t dynamic_offset(uint32_t binding, uint32_t element) const;
};

struct BindState {
    std::shared_ptr<const PipelineState> pipeline;
    std::map<uint32_t, BoundSet> sets;
    std::vector<uint8_t> push_constants;

    void apply(const CmdBindSets& c);
    void apply(const CmdPushDescriptors& c);
    void apply(const CmdPushConstants& c);
};

}  // namespace graphlens::layer
