#include "layer/src/graph_builder.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "layer/src/descriptor_writes.h"
#include "layer/src/diagnostics.h"

namespace graphlens::layer {
namespace {

const char* descriptor_class_name(spirv::DescriptorClass c) {
    switch (c) {
        case spirv::DescriptorClass::storage_buffer:
            return "storage buffer";
        case spirv::DescriptorClass::uniform_buffer:
            return "uniform buffer";
        case spirv::DescriptorClass::storage_image:
            return "storage image";
        case spirv::DescriptorClass::sampled_image:
            return "sampled image";
        case spirv::DescriptorClass::sampler:
            return "sampler";
        case spirv::DescriptorClass::other:
            break;
    }
    return "descriptor without byte ranges (texel buffer, acceleration structure, ...)";
}

std::string where(const spirv::ReflectedBinding& b) {
    return "set " + std::to_string(b.set) + " binding " + std::to_string(b.binding);
}

}  // namespace

AllocationId GraphBuilder::allocation_of(const std::shared_ptr<BufferState>& state) {
    // A buffer's memory binding never changes: found once, its allocation is known.
    auto [known, first] = buffer_allocations_.try_emplace(state.get(), 0);
    if (!first) return known->second;
    buffers_seen_.push_back(state);
    const BufferState& buffer = *state;
    const MemoryState* memory = buffer.memory.get();
    auto [it, added] = allocations_.try_emplace(memory, AllocationId(graph_.allocations.size()));
    if (added) {
        graph_.allocations.push_back({it->second, memory->size, {}, AllocationUsage::scratch});
        allocation_memory_.push_back(buffer.memory);
        allocation_buffers_.emplace_back();
    }
    if (buffer.device_address) graph_.allocations[it->second].device_address = true;
    auto& buffers = allocation_buffers_[it->second];
    if (std::find(buffers.begin(), buffers.end(), buffer.handle) == buffers.end())
        buffers.push_back(buffer.handle);
    known->second = it->second;
    return it->second;
}

GraphBuilder::Resolved GraphBuilder::resolve(const std::shared_ptr<BufferState>& buffer,
                                             uint64_t offset, uint64_t size) {
    if (!buffer) return {std::nullopt, "a buffer unknown to the layer"};
    const BufferState& b = *buffer;
    if (b.destroyed) return {std::nullopt, "a destroyed buffer"};
    if (!b.memory) return {std::nullopt, "a buffer not bound to memory"};
    const uint64_t begin = b.memory_offset + offset;
    return {ByteRange{allocation_of(buffer), begin, begin + size}, {}};
}

GraphBuilder::Resolved GraphBuilder::resolve_descriptor(const DescriptorEntry& entry,
                                                        uint32_t dynamic_offset) {
    if (entry.type == VK_DESCRIPTOR_TYPE_MAX_ENUM)
        return {std::nullopt, "a descriptor never written"};
    if (!is_buffer_descriptor(entry.type))
        return {std::nullopt, "a descriptor of type " + std::to_string(entry.type) +
                                  " (texel buffer, image or other: no byte ranges)"};
    return resolve(entry.buffer, entry.offset + dynamic_offset, entry.range);
}

std::string GraphBuilder::bind_views(const PipelineState& pipeline, const BindState& bound,
                                     RecordedPayload& payload) {
    if (!pipeline.reflection_error.empty())
        return "its kernel could not be reflected: " + pipeline.reflection_error;
    if (pipeline.device_addresses == spirv::DeviceAddresses::unknown)
        return "its kernel addresses memory through buffer device addresses: " +
               pipeline.device_address_reason;
    views_scratch_.clear();
    reads_scratch_.clear();
    writes_scratch_.clear();
    bool arrays = false;
    for (const auto& rb : pipeline.reflected) {
        if (rb.descriptor != spirv::DescriptorClass::storage_buffer &&
            rb.descriptor != spirv::DescriptorClass::uniform_buffer)
            return where(rb) + " is a " + descriptor_class_name(rb.descriptor);
        auto set = bound.sets.find(rb.set);
        if (set == bound.sets.end() || !set->second.contents)
            return where(rb) + ": set " + std::to_string(rb.set) + " is not bound (or unknown)";
        const auto* entries = set->second.contents->find(rb.binding);
        const size_t count = rb.array_size == 0 ? (entries ? entries->size() : 0) : rb.array_size;
        if (!entries || entries->size() < count || count == 0)
            return where(rb) + " has no descriptor written";
        arrays = arrays || count > 1;
        for (size_t e = 0; e < count; ++e) {
            const auto r = resolve_descriptor((*entries)[e],
                                              set->second.dynamic_offset(rb.binding, uint32_t(e)));
            if (!r.range) return where(rb) + " is bound to " + r.why;
            views_scratch_.push_back({rb.set, rb.binding, *r.range});
            if (access_reads(rb.access)) reads_scratch_.push_back(*r.range);
            if (access_writes(rb.access)) writes_scratch_.push_back(*r.range);
        }
    }
    // A view per binding where each binding is one buffer; descriptor arrays state their
    // ranges directly (a bound view names one buffer).
    if (arrays) {
        payload.reads = ranges_.intern(reads_scratch_);
        payload.writes = ranges_.intern(writes_scratch_);
    } else {
        payload.bindings = views_.intern(views_scratch_);
    }
    return {};
}

KernelId GraphBuilder::kernel_of(const PipelineState& pipeline) {
    auto [it, added] = kernels_.try_emplace(&pipeline, KernelId(graph_.kernels.size()));
    if (added) {
        graph_.kernels.push_back(pipeline.kernel);
        kernel_pipelines_.push_back(pipeline.shared_from_this());
    }
    return it->second;
}

KernelId GraphBuilder::transfer_kernel(const std::string& name) {
    auto [it, added] = transfer_kernels_.try_emplace(name, KernelId(graph_.kernels.size()));
    if (added) {
        KernelInfo k;
        k.name = name;
        k.stage = kStageTransfer;
        graph_.kernels.push_back(std::move(k));
        kernel_pipelines_.push_back(nullptr);
    }
    return it->second;
}

void GraphBuilder::dispatch(const ResolvedDispatch& cmd, const BindState& bound,
                            const std::string& label) {
    RecordedNode node;
    const NodeId id = next_id();
    node.label = label_of(label);
    node.workgroups = cmd.groups;
    ++dispatches_;
    if (!bound.pipeline) {
        node.kernel = transfer_kernel("unknown compute pipeline");
        graph_.kernels[node.kernel].stage = kStageCompute;
        node.ranges_known = false;
        note(id, "a dispatch with no compute pipeline the layer knows bound");
        nodes_.push_back(node);
        return;
    }
    node.kernel = kernel_of(*bound.pipeline);
    RecordedPayload payload;
    const uint32_t pc_size = bound.pipeline->kernel.push_constant_size;
    payload.push_constants = bytes_.intern(std::span<const uint8_t>(
        bound.push_constants.data(),
        std::min<size_t>(bound.push_constants.size(), pc_size ? pc_size : SIZE_MAX)));
    const std::string why = bind_views(*bound.pipeline, bound, payload);
    if (!why.empty()) {
        node.ranges_known = false;
        payload.reads = {};
        payload.writes = {};
        note(id, "ranges unknown: " + why);
    } else if (bound.pipeline->device_addresses == spirv::DeviceAddresses::within_bindings) {
        note(id,
             "ranges from its bindings although its kernel uses buffer device "
             "addresses: " +
                 bound.pipeline->device_address_reason);
    }
    if (cmd.base != std::array<uint32_t, 3>{0, 0, 0})
        note(id, "vkCmdDispatchBase: the base workgroup is not stored, only the counts");
    if (cmd.is_indirect) {
        // The counts are in device memory: read_indirect_counts reads them from the buffer
        // contents where it can. The arguments are a read.
        const auto args = resolve(cmd.indirect_args);
        indirect_.push_back({nodes_.size(), args.range});
        if (node.ranges_known && args.range) {
            node.reads_indirect_args = true;
        } else if (node.ranges_known) {
            node.ranges_known = false;
            note(id, "ranges unknown: the indirect arguments are in " + args.why);
        }
    }
    node.payload = payloads_.intern(payload);
    nodes_.push_back(node);
}

uint32_t GraphBuilder::label_of(const std::string& text) {
    // The guess costs a comparison of the text where the lookup hashes it too.
    if (last_label_ < next_label_.size()) {
        const uint32_t guess = next_label_[last_label_];
        if (guess < labels_.size() && std::string_view(labels_[guess]) == text)
            return last_label_ = guess;
    }
    auto [it, added] = label_numbers_.try_emplace(text, uint32_t(labels_.size()));
    if (added) {
        labels_.emplace_back(text);
        next_label_.push_back(UINT32_MAX);
    }
    if (last_label_ < next_label_.size()) next_label_[last_label_] = it->second;
    return last_label_ = it->second;
}

void GraphBuilder::transfer(const ResolvedTransfer& cmd, const std::string& label) {
    RecordedNode node;
    const NodeId id = next_id();
    node.label = label_of(label.empty() ? cmd.name : label);
    node.kernel = transfer_kernel(cmd.name);
    RecordedPayload payload;
    payload.push_constants = bytes_.intern(cmd.data);
    if (cmd.name == "vkCmdUpdateBuffer" && cmd.data.empty())
        note(id, "vkCmdUpdateBuffer of more than 4096 bytes: its bytes are not kept");
    reads_scratch_.clear();
    writes_scratch_.clear();
    for (const auto* spans : {&cmd.reads, &cmd.writes}) {
        for (const auto& s : *spans) {
            const auto r = resolve(s);
            if (!r.range) {
                node.ranges_known = false;
                note(id, cmd.name + ": ranges unknown: it uses " + r.why);
                break;
            }
            (spans == &cmd.reads ? reads_scratch_ : writes_scratch_).push_back(*r.range);
        }
    }
    if (node.ranges_known) {
        payload.reads = ranges_.intern(reads_scratch_);
        payload.writes = ranges_.intern(writes_scratch_);
    }
    node.payload = payloads_.intern(payload);
    nodes_.push_back(node);
}

void GraphBuilder::barrier(const ResolvedBarrier& cmd) {
    dependencies_scratch_.clear();
    for (const auto& d : cmd.dependencies) {
        MemoryDependency dep = d.dependency;
        if (d.span) {
            const auto r = resolve(*d.span);
            if (!r.range) {
                // Left out rather than widened to the whole memory: a dependency the layer
                // cannot place can only make a race appear, never hide one.
                note(std::nullopt, "a buffer barrier on " + r.why + " is left out of its scope");
                continue;
            }
            dep.range = r.range;
        }
        dependencies_scratch_.push_back(dep);
    }
    add_barrier(cmd.origin, cmd.note, dependencies_scratch_);
}

void GraphBuilder::submission_barrier(BarrierScope scope) {
    add_barrier(scope.origin, scope.note, scope.dependencies);
}

void GraphBuilder::add_barrier(BarrierOrigin origin, const std::string& note,
                               std::span<const MemoryDependency> dependencies) {
    static_assert(std::is_trivially_copyable_v<MemoryDependency>);
    if (barrier_notes_.empty()) barrier_notes_.emplace_back();  // number 0: no note
    uint32_t note_number = 0;
    if (!note.empty()) {
        auto [it, added] = barrier_note_numbers_.try_emplace(note, uint32_t(barrier_notes_.size()));
        if (added) barrier_notes_.push_back(note);
        note_number = it->second;
    }
    RecordedNode node;
    node.kind = NodeKind::barrier;
    node.kernel = barriers_.intern({origin, note_number, dependencies_.intern(dependencies)});
    nodes_.push_back(node);
}

void GraphBuilder::note(std::optional<NodeId> node, const std::string& text) {
    auto [it, added] = note_counts_.try_emplace(text, notes_.size(), 0);
    ++it->second.second;
    if (!added) return;
    notes_.push_back({node, text});
    warn_once(text, text);
}

std::optional<size_t> GraphBuilder::earlier_writer(size_t index, const ByteRange& bytes) const {
    for (size_t i = 0; i < index; ++i) {
        const Node& n = graph_.nodes[i];
        if (!n.is_dispatch()) continue;
        if (!n.ranges_known) return i;
        for (const ByteRange& w : n.writes)
            if (w.allocation == bytes.allocation && w.begin < bytes.end && bytes.begin < w.end)
                return i;
    }
    return std::nullopt;
}

void GraphBuilder::read_indirect_counts(const BufferSnapshot* contents_at_start) {
    build_nodes();
    for (const IndirectDispatch& d : indirect_) {
        Node& node = graph_.nodes[d.index];
        std::string why;
        std::optional<std::vector<uint8_t>> bytes;
        if (!d.args) {
            why = "its arguments are in a buffer the layer cannot place";
        } else if (!contents_at_start) {
            why = "the capture has no buffer contents (record with --data)";
        } else if (!contents_at_start->not_taken.empty()) {
            why = contents_at_start->not_taken;
        } else if (const auto w = earlier_writer(d.index, *d.args)) {
            why = "node " + std::to_string(*w) + " before it may write its arguments";
        } else if (!(bytes = snapshot_bytes(*contents_at_start,
                                            allocation_memory_[d.args->allocation].get(),
                                            d.args->begin, d.args->size()))) {
            why = "the buffer contents hold no copy of its arguments";
        }
        if (!why.empty()) {
            note(node.id,
                 "vkCmdDispatchIndirect: workgroup counts unknown (stored as 0,0,0): " + why);
            graph_.unknown_workgroups[node.id] = "vkCmdDispatchIndirect: " + why;
            continue;
        }
        std::memcpy(node.workgroups.data(), bytes->data(), 12);
        note(node.id,
             "vkCmdDispatchIndirect: workgroup counts read from its arguments as the buffer "
             "contents held them when the range began");
    }
}

}  // namespace graphlens::layer
