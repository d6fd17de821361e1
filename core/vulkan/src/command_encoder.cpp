// CommandRecorder (one VkCommandBuffer), CommandEncoder (direct / capture) and the replay
// of ComputeGraphs.
#include "graphlens/vulkan/command_encoder.h"
#include "vulkan/src/vk_struct.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "graphlens/vulkan/kernel_catalog.h"
#include "graphlens/vulkan/kernel_registry.h"

namespace graphlens {

// --- validation -------------------------------------------------------------------------

void validate_dispatch(const KernelInfo& kernel, const std::vector<BoundView>& bindings,
                       const std::vector<uint8_t>& push_constants,
                       const std::array<uint32_t, 3>& workgroups, std::string_view label,
                       const std::vector<AllocationInfo>& allocations,
                       const uint32_t* max_workgroups) {
    auto where = [&] { return fmt::format("dispatch '{}' of kernel '{}'", label, kernel.name); };
    for (const auto& kb : kernel.bindings) {
        size_t bound = 0;
        for (const auto& b : bindings) bound += b.binding == kb.binding;
        if (bound == 0)
            throw std::invalid_argument(fmt::format("{}: binding {} ('{}', {}) is not bound",
                                                    where(), kb.binding, kb.name,
                                                    binding_access_name(kb.access)));
        if (bound > 1)
            throw std::invalid_argument(
                fmt::format("{}: binding {} is bound {} times", where(), kb.binding, bound));
    }
    for (const auto& b : bindings) {
        if (!kernel.find_binding(b.binding))
            throw std::invalid_argument(
                fmt::format("{}: binding {} is not declared by the kernel", where(), b.binding));
        const auto& v = b.view;
        if (v.allocation >= allocations.size())
            throw std::out_of_range(
                fmt::format("{}: binding {} refers to allocation {}, which does not exist", where(),
                            b.binding, v.allocation));
        const auto& a = allocations[v.allocation];
        if (v.size == 0)
            throw std::invalid_argument(
                fmt::format("{}: binding {} is an empty view of '{}'", where(), b.binding, a.name));
        if (v.offset > a.size || v.size > a.size - v.offset)
            throw std::out_of_range(
                fmt::format("{}: binding {} view [{}, {}) leaves allocation '{}' of {} bytes",
                            where(), b.binding, v.offset, v.offset + v.size, a.name, a.size));
    }
    if (push_constants.size() != kernel.push_constant_size)
        throw std::invalid_argument(
            fmt::format("{}: {} bytes of push constants, the kernel declares {}", where(),
                        push_constants.size(), kernel.push_constant_size));
    for (int d = 0; d < 3; ++d) {
        if (workgroups[d] == 0)
            throw std::invalid_argument(
                fmt::format("{}: workgroup count {} is 0", where(), "xyz"[d]));
        if (max_workgroups && max_workgroups[d] && workgroups[d] > max_workgroups[d])
            throw std::invalid_argument(
                fmt::format("{}: {} workgroups in {} exceed the device limit {}", where(),
                            workgroups[d], "xyz"[d], max_workgroups[d]));
    }
}

// --- CommandRecorder ----------------------------------------------------------------------

CommandRecorder::CommandRecorder(Device& device, DeviceMemory& memory, CommandLevel level)
    : device_(device), memory_(memory), level_(level) {
    VkDevice dev = device.handle();
    VkCommandPoolCreateInfo pi =
        vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pi.queueFamilyIndex = device.queue_family();
    vk_check(vkCreateCommandPool(dev, &pi, nullptr, &pool_), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai =
        vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    ai.commandPool = pool_;
    ai.level = level == CommandLevel::primary ? VK_COMMAND_BUFFER_LEVEL_PRIMARY
                                              : VK_COMMAND_BUFFER_LEVEL_SECONDARY;
    ai.commandBufferCount = 1;
    VkFenceCreateInfo fi = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    if (vkAllocateCommandBuffers(dev, &ai, &cmd_) != VK_SUCCESS ||
        vkCreateFence(dev, &fi, nullptr, &fence_) != VK_SUCCESS) {
        vkDestroyCommandPool(dev, pool_, nullptr);
        throw std::runtime_error("Vulkan: cannot create a command buffer and fence");
    }
}

void CommandRecorder::set_name(const std::string& name) {
    device_.name_object(VK_OBJECT_TYPE_COMMAND_BUFFER, cmd_, name);
}

CommandRecorder::~CommandRecorder() {
    VkDevice dev = device_.handle();
    auto destroy = [dev, fence = fence_, pool = pool_, queries = queries_,
                    descriptor_pool = descriptor_pool_, retired_pools = retired_pools_] {
        vkDestroyFence(dev, fence, nullptr);
        vkDestroyCommandPool(dev, pool, nullptr);
        if (queries) vkDestroyQueryPool(dev, queries, nullptr);
        if (descriptor_pool) vkDestroyDescriptorPool(dev, descriptor_pool, nullptr);
        for (auto p : retired_pools) vkDestroyDescriptorPool(dev, p, nullptr);
    };
    // An abandoned submission runs on without anyone waiting: its objects go when its fence
    // signals. A secondary buffer, or one that ran, may still be executed by an abandoned
    // primary: it waits behind whatever was abandoned before it.
    if (in_flight_ && abandoned_) {
        device_.retired_work().retire(fence_, std::move(destroy));
        return;
    }
    if (in_flight_) vkWaitForFences(dev, 1, &fence_, VK_TRUE, UINT64_MAX);
    if (!device_.retired_work().defer(destroy)) destroy();
}

void CommandRecorder::ensure_query_capacity(uint32_t n) {
    if (n <= query_capacity_) return;
    VkDevice dev = device_.handle();
    if (queries_) vkDestroyQueryPool(dev, queries_, nullptr);
    queries_ = VK_NULL_HANDLE;
    uint32_t cap = std::max<uint32_t>(n, 2 * query_capacity_);
    VkQueryPoolCreateInfo qi =
        vk_struct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = cap;
    vk_check(vkCreateQueryPool(dev, &qi, nullptr, &queries_), "vkCreateQueryPool");
    query_capacity_ = cap;
}

void CommandRecorder::begin(bool timestamps, bool profile_dispatches, size_t expected_dispatches,
                            bool profile_groups) {
    wait();
    VkDevice dev = device_.handle();
    vk_check(vkResetCommandPool(dev, pool_, 0), "vkResetCommandPool");
    for (auto p : retired_pools_) vkDestroyDescriptorPool(dev, p, nullptr);
    retired_pools_.clear();
    if (descriptor_pool_) vkResetDescriptorPool(dev, descriptor_pool_, 0);
    descriptor_sets_used_ = 0;
    dispatches_ = barriers_ = 0;
    queries_used_ = 0;
    profiled_.clear();
    bound_pipeline_ = VK_NULL_HANDLE;
    const bool primary = level_ == CommandLevel::primary;
    timestamps_ = primary && timestamps && device_.facts().timestamps;
    profile_ = profile_dispatches && timestamps_;
    profile_groups_ = profile_groups && timestamps_ && !profile_;
    groups_.clear();

    VkCommandBufferBeginInfo bi =
        vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    // Compute only: a secondary buffer inherits no render pass or queries.
    VkCommandBufferInheritanceInfo inherit = vk_struct<VkCommandBufferInheritanceInfo>(
        VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO);
    if (!primary) bi.pInheritanceInfo = &inherit;
    vk_check(vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
    recording_ = true;
    if (timestamps_) {
        const uint32_t needed =
            2 + (profile_ || profile_groups_ ? static_cast<uint32_t>(expected_dispatches) : 0);
        ensure_query_capacity(needed);
        vkCmdResetQueryPool(cmd_, queries_, 0, query_capacity_);
        write_timestamp(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
    }
}

void CommandRecorder::write_timestamp(VkPipelineStageFlagBits stage) {
    if (queries_used_ >= query_capacity_) return;  // profile beyond the expected count: skipped
    vkCmdWriteTimestamp(cmd_, stage, queries_, queries_used_++);
}

namespace {

// The storage-buffer descriptor writes of one dispatch's bindings; each write points at its
// buffer info inside this object, so it is built in place and never copied.
class StorageBufferWrites {
  public:
    static constexpr size_t kMaxBindings = 16;

    StorageBufferWrites(const std::vector<BoundView>& bindings, DeviceMemory& memory,
                        std::string_view label)
        : count_(static_cast<uint32_t>(bindings.size())) {
        if (bindings.size() > kMaxBindings)
            throw std::invalid_argument(fmt::format("dispatch '{}': {} bindings, at most {}", label,
                                                    bindings.size(), kMaxBindings));
        for (size_t i = 0; i < bindings.size(); ++i) {
            const auto& v = bindings[i].view;
            infos_[i] = {memory.buffer(v.allocation).buffer, v.offset, v.size};
            writes_[i] = vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
            writes_[i].dstBinding = bindings[i].binding;
            writes_[i].descriptorCount = 1;
            writes_[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes_[i].pBufferInfo = &infos_[i];
        }
    }
    StorageBufferWrites(const StorageBufferWrites&) = delete;
    StorageBufferWrites& operator=(const StorageBufferWrites&) = delete;

    uint32_t count() const { return count_; }
    VkWriteDescriptorSet* writes() { return writes_; }

  private:
    uint32_t count_;
    VkDescriptorBufferInfo infos_[kMaxBindings];
    VkWriteDescriptorSet writes_[kMaxBindings];
};

// Without push descriptors, sets come from a pool that grows geometrically; a full pool is
// kept until the next begin() (its sets are in use).
void ensure_descriptor_pool(VkDevice dev, VkDescriptorPool& pool, uint32_t& pool_sets,
                            uint32_t& sets_used, std::vector<VkDescriptorPool>& retired) {
    if (pool && sets_used < pool_sets) return;
    if (pool) retired.push_back(pool);
    pool_sets = std::max<uint32_t>(256, pool_sets * 2);
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, pool_sets * 8};
    VkDescriptorPoolCreateInfo pi =
        vk_struct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
    pi.maxSets = pool_sets;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    vk_check(vkCreateDescriptorPool(dev, &pi, nullptr, &pool), "vkCreateDescriptorPool");
    sets_used = 0;
}

VkResult allocate_descriptor_set(VkDevice dev, VkDescriptorPool pool, VkDescriptorSetLayout layout,
                                 VkDescriptorSet& set) {
    VkDescriptorSetAllocateInfo ai =
        vk_struct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
    ai.descriptorPool = pool;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &layout;
    return vkAllocateDescriptorSets(dev, &ai, &set);
}

void begin_debug_label(const DeviceFunctions& fn, VkCommandBuffer cmd, std::string_view label) {
    // Labels are NUL-terminated C strings; the view may not be.
    char name[128];
    const size_t len = std::min(label.size(), sizeof(name) - 1);
    std::memcpy(name, label.data(), len);
    name[len] = '\0';
    VkDebugUtilsLabelEXT l =
        vk_struct<VkDebugUtilsLabelEXT>(VK_STRUCTURE_TYPE_DEBUG_UTILS_LABEL_EXT);
    l.pLabelName = name;
    fn.begin_label(cmd, &l);
}

}  // namespace

void CommandRecorder::dispatch(std::string_view kernel, const std::vector<BoundView>& bindings,
                               const std::vector<uint8_t>& push_constants,
                               const std::array<uint32_t, 3>& workgroups, std::string_view label,
                               NodeId node) {
    if (!recording_) throw std::logic_error("CommandRecorder::dispatch outside begin()/end()");
    // Consecutive dispatches often share a kernel: skip the registry's locked lookup then.
    if (!last_pipeline_ || kernel != last_kernel_) {
        last_pipeline_ = &device_.kernels().get(kernel);
        last_kernel_.assign(kernel);
    }
    dispatch(*last_pipeline_, bindings, push_constants, workgroups, label, node);
}

void CommandRecorder::dispatch(const KernelPipeline& p, const std::vector<BoundView>& bindings,
                               const std::vector<uint8_t>& push_constants,
                               const std::array<uint32_t, 3>& workgroups, std::string_view label,
                               NodeId node) {
    if (!recording_) throw std::logic_error("CommandRecorder::dispatch outside begin()/end()");
    if (p.pipeline != bound_pipeline_) {
        vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
        bound_pipeline_ = p.pipeline;
    }
    StorageBufferWrites writes(bindings, memory_, label);
    if (device_.uses_push_descriptor()) {
        device_.functions().push_descriptor_set(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0,
                                                writes.count(), writes.writes());
    } else {
        VkDevice dev = device_.handle();
        ensure_descriptor_pool(dev, descriptor_pool_, descriptor_pool_sets_, descriptor_sets_used_,
                               retired_pools_);
        VkDescriptorSet set = VK_NULL_HANDLE;
        VkResult r = allocate_descriptor_set(dev, descriptor_pool_, p.set_layout, set);
        if (r == VK_ERROR_OUT_OF_POOL_MEMORY || r == VK_ERROR_FRAGMENTED_POOL) {
            descriptor_sets_used_ = descriptor_pool_sets_;  // force a new pool
            return dispatch(p, bindings, push_constants, workgroups, label, node);
        }
        vk_check(r, "vkAllocateDescriptorSets");
        ++descriptor_sets_used_;
        for (uint32_t i = 0; i < writes.count(); ++i) writes.writes()[i].dstSet = set;
        vkUpdateDescriptorSets(dev, writes.count(), writes.writes(), 0, nullptr);
        vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0,
                                nullptr);
    }
    if (!push_constants.empty())
        vkCmdPushConstants(cmd_, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                           static_cast<uint32_t>(push_constants.size()), push_constants.data());
    const auto& fn = device_.functions();
    if (fn.begin_label) begin_debug_label(fn, cmd_, label);
    vkCmdDispatch(cmd_, workgroups[0], workgroups[1], workgroups[2]);
    if (fn.end_label) fn.end_label(cmd_);
    if (profile_groups_) {
        if (groups_.empty() || groups_.back().dispatches == SIZE_MAX)
            groups_.push_back({dispatches_, 0, std::string(label)});
        ++groups_.back().dispatches;
    }
    ++dispatches_;
    if (profile_) {
        // Serialise: the next dispatch starts after this one's timestamp.
        const size_t counted = barriers_;
        barrier();
        barriers_ = counted;
        write_timestamp(VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
        profiled_.emplace_back(node, std::string(label));
    }
}

void CommandRecorder::barrier() {
    if (!recording_) throw std::logic_error("CommandRecorder::barrier outside begin()/end()");
    if (profile_groups_ && !groups_.empty() && groups_.back().dispatches != SIZE_MAX) {
        // Close the group: its end is when all its dispatches are done.
        write_timestamp(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        groups_.push_back({dispatches_, SIZE_MAX, {}});  // marker: next dispatch opens a group
    }
    const auto& fn = device_.functions();
    if (fn.pipeline_barrier2) {
        VkMemoryBarrier2 mb = vk_struct<VkMemoryBarrier2>(VK_STRUCTURE_TYPE_MEMORY_BARRIER_2);
        mb.srcStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
        mb.srcAccessMask = VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
        mb.dstStageMask = VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT;
        mb.dstAccessMask =
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT;
        VkDependencyInfo di = vk_struct<VkDependencyInfo>(VK_STRUCTURE_TYPE_DEPENDENCY_INFO);
        di.memoryBarrierCount = 1;
        di.pMemoryBarriers = &mb;
        fn.pipeline_barrier2(cmd_, &di);
    } else {
        VkMemoryBarrier mb = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0,
                             nullptr);
    }
    ++barriers_;
}

void CommandRecorder::execute(std::span<const VkCommandBuffer> secondaries) {
    if (!recording_) throw std::logic_error("CommandRecorder::execute outside begin()/end()");
    if (level_ != CommandLevel::primary)
        throw std::logic_error("CommandRecorder::execute in a secondary command buffer");
    if (secondaries.empty()) return;
    vkCmdExecuteCommands(cmd_, static_cast<uint32_t>(secondaries.size()), secondaries.data());
    bound_pipeline_ = VK_NULL_HANDLE;  // the primary's bound state is undefined afterwards
}

void CommandRecorder::end() {
    if (!recording_) throw std::logic_error("CommandRecorder::end without begin()");
    if (level_ == CommandLevel::secondary) {
        vk_check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
        recording_ = false;
        return;
    }
    // The submission barrier: this buffer's shader writes are visible to whatever comes later
    // on the queue (the next submission, transfers for downloads) and to the host after the
    // fence. Not counted as a graph barrier.
    VkMemoryBarrier mb = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                       VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                             VK_PIPELINE_STAGE_HOST_BIT,
                         0, 1, &mb, 0, nullptr, 0, nullptr);
    if (timestamps_) {
        if (queries_used_ >= query_capacity_) --queries_used_;  // keep room for the end stamp
        write_timestamp(VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    }
    vk_check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
    recording_ = false;
}

void CommandRecorder::submit() {
    if (recording_) throw std::logic_error("CommandRecorder::submit before end()");
    if (level_ != CommandLevel::primary)
        throw std::logic_error("CommandRecorder::submit of a secondary command buffer");
    vk_check(vkResetFences(device_.handle(), 1, &fence_), "vkResetFences");
    device_.submit(cmd_, fence_);
    in_flight_ = true;
}

void CommandRecorder::wait(const CancelCheck& cancelled) {
    if (!in_flight_) return;
    const VkResult r = wait_for_fence(cancelled);
    if (r == VK_TIMEOUT) {
        abandon();
        throw RunCancelled();
    }
    in_flight_ = abandoned_ = false;
    vk_check(r, "vkWaitForFences");
}

VkResult CommandRecorder::wait_for_fence(const CancelCheck& cancelled) const {
    auto cancel_asked = [&] { return cancelled && cancelled(); };
    if (cancel_asked()) return VK_TIMEOUT;
    // Poll first (see Device::Options::fence_spin_us), then block.
    if (const uint32_t spin = device_.fence_spin_us(); spin > 0) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin);
        do {
            const VkResult r = vkGetFenceStatus(device_.handle(), fence_);
            if (r != VK_NOT_READY) return r;
        } while (std::chrono::steady_clock::now() < until);
    }
    // Blocked in slices when a cancel may end the wait, so that it is seen within one slice.
    const uint64_t slice_ns = cancelled ? uint64_t{kCancelSliceMs} * 1'000'000 : UINT64_MAX;
    for (;;) {
        const VkResult r = vkWaitForFences(device_.handle(), 1, &fence_, VK_TRUE, slice_ns);
        if (r != VK_TIMEOUT || cancel_asked()) return r;
    }
}

std::vector<uint64_t> CommandRecorder::read_timestamps() const {
    std::vector<uint64_t> ticks(queries_used_);
    if (!timestamps_ || queries_used_ == 0 || in_flight_ || recording_) return {};
    vk_check(vkGetQueryPoolResults(device_.handle(), queries_, 0, queries_used_,
                                   ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "vkGetQueryPoolResults");
    const uint32_t bits = device_.facts().timestamp_valid_bits;
    const uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
    const double period = device_.facts().timestamp_period_ns;
    for (auto& t : ticks) t = static_cast<uint64_t>(static_cast<double>(t & mask) * period);
    return ticks;
}

uint64_t CommandRecorder::gpu_ns() const {
    auto ts = read_timestamps();
    if (ts.size() < 2) return 0;
    return ts.back() >= ts.front() ? ts.back() - ts.front() : 0;
}

uint64_t CommandRecorder::begin_timestamp_ns() const {
    auto ts = read_timestamps();
    return ts.empty() ? 0 : ts.front();
}

uint64_t CommandRecorder::end_timestamp_ns() const {
    auto ts = read_timestamps();
    return ts.empty() ? 0 : ts.back();
}

std::vector<CommandRecorder::DispatchInterval> CommandRecorder::dispatch_intervals() const {
    std::vector<DispatchInterval> out;
    auto ts = read_timestamps();
    if (ts.size() < 2) return out;
    // ts[0] = begin, ts[1 + i] = after dispatch i, ts.back() = end.
    for (size_t i = 0; i < profiled_.size() && i + 1 < ts.size() - 1; ++i)
        out.push_back({profiled_[i].first, profiled_[i].second, ts[i] - ts[0], ts[i + 1] - ts[0]});
    return out;
}

std::vector<CommandRecorder::GroupInterval> CommandRecorder::group_intervals() const {
    std::vector<GroupInterval> out;
    auto ts = read_timestamps();
    if (ts.size() < 2) return out;
    // ts[0] = begin, then one stamp per closed group, ts.back() = end (closes the last).
    size_t stamp = 1;
    for (const auto& g : groups_) {
        if (g.dispatches == SIZE_MAX) continue;
        if (stamp >= ts.size()) break;
        out.push_back({g.first_dispatch, g.dispatches, g.first_label, ts[stamp - 1] - ts[0],
                       ts[stamp] - ts[0]});
        ++stamp;
    }
    return out;
}

// --- CommandEncoder ----------------------------------------------------------------------

CommandEncoder::CommandEncoder(CommandRecorder& recorder) : recorder_(&recorder) {}
CommandEncoder::CommandEncoder(ComputeGraph& graph) : graph_(&graph) {}

Node CommandEncoder::prepare(const DispatchDesc& desc) {
    const KernelInfo& reflected = KernelCatalog::embedded().get(desc.kernel);
    KernelInfo staged;  // a copy only for the few kernels of several stages
    if (!desc.stages.empty()) {
        staged = reflected;
        staged.stages = desc.stages;
    }
    const KernelInfo& info = desc.stages.empty() ? reflected : staged;
    Node node;
    node.op = desc.op;
    node.label = desc.label;
    node.bindings = desc.bindings;
    std::sort(node.bindings.begin(), node.bindings.end(),
              [](const BoundView& a, const BoundView& b) { return a.binding < b.binding; });
    node.push_constants = desc.push_constants;
    node.workgroups = desc.workgroups;
    if (graph_) {
        validate_dispatch(info, node.bindings, node.push_constants, node.workgroups, desc.label,
                          graph_->allocations);
        node.kernel = graph_->add_kernel(info);
        graph_->derive_ranges(node);
    } else {
        DeviceMemory& mem = recorder_->memory();
        validate_dispatch(info, node.bindings, node.push_constants, node.workgroups, desc.label,
                          mem.allocations(), recorder_->device().facts().max_workgroup_count);
        for (const auto& b : node.bindings)
            if (!mem.view_ok(b.view))  // the message is built only on failure
                mem.check_view(b.view, fmt::format("dispatch '{}' of kernel '{}' binding {}",
                                                   desc.label, desc.kernel, b.binding));
        node.kernel = direct_kernels_.add_kernel(info);
        direct_kernels_.derive_ranges(node);
    }
    // Ids are assigned here: ComputeGraph::add_dispatch would scan every node for the next id.
    node.id = static_cast<NodeId>(dispatches_);
    node.origin = {node.id};
    return node;
}

const Node& CommandEncoder::record(Node node) {
    if (graph_) {
        graph_->nodes.push_back(std::move(node));
        ++dispatches_;
        return graph_->nodes.back();
    }
    const std::string& kernel = direct_kernels_.kernels.at(node.kernel).name;
    recorder_->dispatch(kernel, node.bindings, node.push_constants, node.workgroups, node.label,
                        node.id);
    ++dispatches_;
    last_ = std::move(node);
    return last_;
}

void CommandEncoder::barrier() {
    if (graph_)
        graph_->add_barrier();
    else
        recorder_->barrier();
    ++barriers_;
}

// --- replay ------------------------------------------------------------------------------

void validate_for_replay(const ComputeGraph& graph, const DeviceMemory& memory) {
    const auto& mem = memory.allocations();
    if (mem.size() < graph.allocations.size())
        throw std::invalid_argument(
            fmt::format("graph has {} allocations but the device memory holds {}",
                        graph.allocations.size(), mem.size()));
    for (const auto& a : graph.allocations)
        if (mem[a.id].size < a.size)
            throw std::invalid_argument(
                fmt::format("allocation {} '{}': graph needs {} bytes, device memory has {}", a.id,
                            a.name, a.size, mem[a.id].size));
    const auto& catalog = KernelCatalog::embedded();
    for (const auto& k : graph.kernels) {
        const KernelInfo* have = catalog.find(k.name);
        if (!have)
            throw std::invalid_argument(
                fmt::format("graph uses kernel '{}', which this build does not embed", k.name));
        if (have->bindings.size() != k.bindings.size() ||
            have->push_constant_size != k.push_constant_size)
            throw std::invalid_argument(
                fmt::format("kernel '{}' of the graph ({} bindings, {} push-constant bytes) "
                            "differs from this build's ({}, {})",
                            k.name, k.bindings.size(), k.push_constant_size, have->bindings.size(),
                            have->push_constant_size));
        // The same interface is not the same contract: a kernel whose code changed may
        // cover its rows with another grid, so dispatches recorded for the old code would
        // run on the new one and compute something else without any error.
        if (k.spirv_hash != 0 && k.spirv_hash != have->spirv_hash)
            throw std::invalid_argument(fmt::format(
                "kernel '{}' of the graph was recorded with other SPIR-V (hash {:016x}) than "
                "this build's ({:016x}): its dispatches were made for that code; record the "
                "workload again with this build",
                k.name, k.spirv_hash, have->spirv_hash));
    }
    const auto& facts = memory.device().facts();
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& n = graph.nodes[i];
        if (!n.is_dispatch()) continue;
        if (n.kernel >= graph.kernels.size())
            throw std::invalid_argument(
                fmt::format("node {} '{}': kernel {} does not exist", i, n.label, n.kernel));
        const KernelInfo& k = *catalog.find(graph.kernels[n.kernel].name);
        try {
            validate_dispatch(k, n.bindings, n.push_constants, n.workgroups, n.label,
                              graph.allocations, facts.max_workgroup_count);
            for (const auto& b : n.bindings)
                if (!memory.view_ok(b.view))
                    memory.check_view(b.view, fmt::format("binding {}", b.binding));
        } catch (const std::exception& e) {
            throw std::invalid_argument(fmt::format("node {}: {}", i, e.what()));
        }
    }
}

namespace {
// The pipelines of a graph's kernels, each looked up in the registry (a lock and a hash of
// its name) the first time a dispatch of the replay needs it.
class GraphPipelines {
  public:
    GraphPipelines(const ComputeGraph& graph, CommandRecorder& rec)
        : graph_(graph), rec_(rec), pipelines_(graph.kernels.size(), nullptr) {}
    const KernelPipeline& of(const Node& n) {
        const KernelPipeline*& p = pipelines_.at(n.kernel);
        if (!p) p = &rec_.device().kernels().get(graph_.kernels[n.kernel].name);
        return *p;
    }

  private:
    const ComputeGraph& graph_;
    CommandRecorder& rec_;
    std::vector<const KernelPipeline*> pipelines_;
};

void replay_dispatch(GraphPipelines& pipelines, const Node& n, CommandRecorder& rec) {
    rec.dispatch(pipelines.of(n), n.bindings, n.push_constants, n.workgroups, n.label, n.id);
}
size_t clamp_last(const ComputeGraph& g, size_t last) {
    return std::min(last, g.nodes.size());
}
}  // namespace

ReplayCounts encode_sequential(const ComputeGraph& graph, CommandRecorder& rec, size_t first,
                               size_t last) {
    ReplayCounts c;
    GraphPipelines pipelines(graph, rec);
    last = clamp_last(graph, last);
    bool pending_barrier = false;
    bool any_dispatch = false;
    for (size_t i = first; i < last; ++i) {
        const Node& n = graph.nodes[i];
        if (n.is_barrier()) {
            // Consecutive barriers and a leading barrier are redundant within one buffer.
            pending_barrier = any_dispatch;
            continue;
        }
        if (pending_barrier) {
            rec.barrier();
            ++c.barriers;
            pending_barrier = false;
        }
        replay_dispatch(pipelines, n, rec);
        any_dispatch = true;
        ++c.dispatches;
    }
    return c;
}

ReplayCounts encode_with_barriers(const ComputeGraph& graph, CommandRecorder& rec,
                                  ConflictTracker& tracker, size_t first, size_t last) {
    ReplayCounts c;
    GraphPipelines pipelines(graph, rec);
    last = clamp_last(graph, last);
    bool group_open = false;
    for (size_t i = first; i < last; ++i) {
        const Node& n = graph.nodes[i];
        if (n.is_barrier()) continue;
        // A node whose ranges are unknown conflicts with everything.
        const bool conflict =
            group_open && (!n.ranges_known || tracker.conflicts(n.reads, n.writes));
        if (conflict) {
            rec.barrier();
            ++c.barriers;
            tracker.reset();
        }
        replay_dispatch(pipelines, n, rec);
        tracker.add(n.reads, n.writes);
        group_open = true;
        ++c.dispatches;
        if (!n.ranges_known) {
            // Nothing may join the group of an unknown node either.
            if (i + 1 < last) {
                rec.barrier();
                ++c.barriers;
            }
            tracker.reset();
            group_open = false;
        }
    }
    return c;
}

ReplayCounts encode_serial(const ComputeGraph& graph, CommandRecorder& rec, size_t first,
                           size_t last) {
    ReplayCounts c;
    GraphPipelines pipelines(graph, rec);
    last = clamp_last(graph, last);
    for (size_t i = first; i < last; ++i) {
        const Node& n = graph.nodes[i];
        if (n.is_barrier()) continue;
        if (c.dispatches > 0) {
            rec.barrier();
            ++c.barriers;
        }
        replay_dispatch(pipelines, n, rec);
        ++c.dispatches;
    }
    return c;
}

ReplayCounts encode_without_barriers(const ComputeGraph& graph, CommandRecorder& rec) {
    ReplayCounts c;
    GraphPipelines pipelines(graph, rec);
    for (const Node& n : graph.nodes) {
        if (n.is_barrier()) continue;
        replay_dispatch(pipelines, n, rec);
        ++c.dispatches;
    }
    return c;
}

size_t dual_buffer_split(size_t dispatches, size_t min_first, size_t divisor) {
    const size_t tenth = divisor ? dispatches / divisor : dispatches;
    return std::min(dispatches, std::max(min_first, tenth));
}

size_t node_index_after_dispatches(const ComputeGraph& graph, size_t first_dispatches) {
    size_t seen = 0;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (seen == first_dispatches) return i;
        if (graph.nodes[i].is_dispatch()) ++seen;
    }
    return graph.nodes.size();
}

ReplayCounts encode_dual_buffer(const ComputeGraph& graph, CommandRecorder& first,
                                CommandRecorder& second, const DualBufferOptions& options) {
    const size_t n = graph.dispatch_count();
    const size_t k =
        options.first_dispatches ? std::min(options.first_dispatches, n) : dual_buffer_split(n);
    const size_t cut = node_index_after_dispatches(graph, k);
    ConflictTracker tracker;
    auto encode = [&](CommandRecorder& rec, size_t a, size_t b) {
        return options.recompute_barriers ? encode_with_barriers(graph, rec, tracker, a, b)
                                          : encode_sequential(graph, rec, a, b);
    };
    first.begin(options.timestamps);
    ReplayCounts c1 = encode(first, 0, cut);
    first.end();
    first.submit();
    // The submission barrier at the end of `first` orders everything across the cut.
    tracker.reset();
    second.begin(options.timestamps);
    ReplayCounts c2 = encode(second, cut, graph.nodes.size());
    second.end();
    second.submit();
    return {c1.dispatches + c2.dispatches, c1.barriers + c2.barriers};
}

std::vector<size_t> stream_chunk_dispatches(size_t dispatches, size_t first, double growth) {
    std::vector<size_t> chunks;
    size_t size = std::max<size_t>(first, 1);
    for (size_t left = dispatches; left > 0;) {
        const size_t take = std::min(size, left);
        chunks.push_back(take);
        left -= take;
        size = static_cast<size_t>(std::ceil(static_cast<double>(size) * std::max(growth, 1.0)));
    }
    return chunks;
}

std::vector<size_t> align_stream_chunks(const ComputeGraph& graph, std::span<const size_t> chunks) {
    std::vector<size_t> aligned;
    size_t want = 0;   // dispatches the chunks closed so far asked for
    size_t given = 0;  // dispatches in the aligned buffers so far
    size_t seen = 0;   // dispatches before the current node
    size_t next = 0;   // the chunk being filled
    for (const Node& n : graph.nodes) {
        if (n.is_dispatch()) ++seen;
        if (!n.is_barrier() || next == chunks.size() || seen < want + chunks[next]) continue;
        // A group ends and the buffer holds its share (or more: a group is never split).
        while (next < chunks.size() && seen >= want + chunks[next]) want += chunks[next++];
        aligned.push_back(seen - given);
        given = seen;
    }
    if (seen > given) aligned.push_back(seen - given);
    return aligned;
}

std::vector<size_t> parallel_slice_bounds(const ComputeGraph& graph, size_t slices,
                                          size_t first_node) {
    const size_t end = graph.nodes.size();
    first_node = std::min(first_node, end);
    std::vector<size_t> bounds{first_node};
    size_t total = 0;  // dispatches from first_node on
    for (size_t i = first_node; i < end; ++i) total += graph.nodes[i].is_dispatch();
    if (first_node == end) return bounds;
    slices = std::max<size_t>(1, std::min(slices, total));
    size_t seen = 0;      // dispatches between first_node and the current node
    size_t seen_cut = 0;  // ... and the last cut: a slice holds at least one dispatch
    for (size_t i = first_node; i < end; ++i) {
        const Node& n = graph.nodes[i];
        const size_t cut = bounds.size();  // the cut being looked for
        if (n.is_barrier() && cut < slices && seen > seen_cut && seen < total &&
            seen * slices >= cut * total) {
            bounds.push_back(i);
            seen_cut = seen;
        }
        if (n.is_dispatch()) ++seen;
    }
    bounds.push_back(end);
    return bounds;
}

ReplayCounts encode_stream(const ComputeGraph& graph, std::span<CommandRecorder* const> recorders,
                           const StreamOptions& options) {
    if (recorders.size() < options.chunk_dispatches.size())
        throw std::invalid_argument(fmt::format("encode_stream: {} chunks but {} recorders",
                                                options.chunk_dispatches.size(), recorders.size()));
    ConflictTracker tracker;
    ReplayCounts total;
    size_t begin = 0, done = 0;
    for (size_t c = 0; c < options.chunk_dispatches.size(); ++c) {
        // Barriers at a boundary are covered by the submission barrier.
        while (begin < graph.nodes.size() && graph.nodes[begin].is_barrier()) ++begin;
        done += options.chunk_dispatches[c];
        const bool last = c + 1 == options.chunk_dispatches.size();
        const size_t end = last ? graph.nodes.size() : node_index_after_dispatches(graph, done);
        CommandRecorder& rec = *recorders[c];
        // Only the first buffer's start and the last one's end are read: the buffers between
        // skip their query reset and timestamps (GPU work at every boundary otherwise).
        rec.begin(options.timestamps && (c == 0 || last));
        tracker.reset();
        const ReplayCounts part = options.recompute_barriers
                                      ? encode_with_barriers(graph, rec, tracker, begin, end)
                                      : encode_sequential(graph, rec, begin, end);
        rec.end();
        rec.submit();
        total.dispatches += part.dispatches;
        total.barriers += part.barriers;
        begin = end;
    }
    return total;
}

}  // namespace graphlens
