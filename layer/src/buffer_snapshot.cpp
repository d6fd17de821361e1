// Buffer contents at the start of the range: see buffer_snapshot.h. The layer's own objects
// (command pool and buffer, staging buffer and memory, fence) are made through the next
// layer's functions, so the layer's hooks never see them; its command buffer gets the
// device's dispatch key as every dispatchable object the loader hands out has.
#include "layer/src/buffer_snapshot.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>

#include "layer/src/capture_session.h"
#include "layer/src/diagnostics.h"
#include "layer/src/graph_builder.h"

namespace graphlens::layer {
namespace {

constexpr uint64_t kStagingBytes = 64ull << 20;

template <class T>
T vk_struct(VkStructureType type) {
    T t{};
    t.sType = type;
    return t;
}

// One piece of a buffer to copy: bytes [memory_offset, + size) of its memory, which are bytes
// [buffer_offset, + size) of the buffer.
struct Piece {
    VkBuffer buffer = VK_NULL_HANDLE;
    uint64_t buffer_offset = 0;
    std::shared_ptr<const MemoryState> memory;
    uint64_t memory_offset = 0;
    uint64_t size = 0;
};

// Every byte of every memory some live buffer covers, once, as pieces no larger than the
// staging buffer.
std::vector<Piece> pieces_of(const DeviceState& d) {
    struct Bound {
        uint64_t handle, size, memory_offset;
        std::shared_ptr<const MemoryState> memory;
    };
    // Copied under the map's lock: another thread may destroy a buffer meanwhile.
    std::map<const MemoryState*, std::vector<Bound>> by_memory;
    d.buffers.for_each([&](const BufferState& b) {
        if (b.destroyed || !b.memory || b.size == 0) return;
        by_memory[b.memory.get()].push_back({b.handle, b.size, b.memory_offset, b.memory});
    });
    std::vector<Piece> out;
    for (auto& [memory, buffers] : by_memory) {
        std::sort(buffers.begin(), buffers.end(),
                  [](const Bound& a, const Bound& b) { return a.memory_offset < b.memory_offset; });
        uint64_t covered = 0;
        for (const Bound& b : buffers) {
            const uint64_t end = std::min(b.memory_offset + b.size, memory->size);
            for (uint64_t at = std::max(covered, b.memory_offset); at < end;) {
                const uint64_t n = std::min(end - at, kStagingBytes);
                out.push_back(
                    {reinterpret_cast<VkBuffer>(b.handle), at - b.memory_offset, b.memory, at, n});
                at += n;
            }
            covered = std::max(covered, end);
        }
    }
    return out;
}

template <class F>
F device_fn(const DeviceState& d, const char* name) {
    auto f = reinterpret_cast<F>(d.dispatch.GetDeviceProcAddr(d.device, name));
    if (!f) throw std::runtime_error(std::string("the driver has no ") + name);
    return f;
}

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS)
        throw std::runtime_error(std::string(what) + " failed (VkResult " + std::to_string(r) +
                                 ")");
}

// The layer's staging objects, destroyed in any case.
struct Staging {
    const DeviceState& d;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    void* mapped = nullptr;
    ~Staging() {
        VkDevice dev = d.device;
        if (mapped) device_fn<PFN_vkUnmapMemory>(d, "vkUnmapMemory")(dev, memory);
        if (fence) device_fn<PFN_vkDestroyFence>(d, "vkDestroyFence")(dev, fence, nullptr);
        if (buffer) d.dispatch.DestroyBuffer(dev, buffer, nullptr);
        if (memory) d.dispatch.FreeMemory(dev, memory, nullptr);
        if (pool) d.dispatch.DestroyCommandPool(dev, pool, nullptr);
    }
};

uint32_t host_visible_type(const DeviceState& d, uint32_t type_bits) {
    auto props_fn = reinterpret_cast<PFN_vkGetPhysicalDeviceMemoryProperties>(
        d.instance->dispatch.GetInstanceProcAddr(d.instance->instance,
                                                 "vkGetPhysicalDeviceMemoryProperties"));
    if (!props_fn) throw std::runtime_error("no vkGetPhysicalDeviceMemoryProperties");
    VkPhysicalDeviceMemoryProperties props{};
    props_fn(d.physical, &props);
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want)
            return i;
    throw std::runtime_error("no host-visible, coherent memory type for the staging buffer");
}

void create_staging(DeviceState& d, uint32_t family, Staging& s) {
    VkDevice dev = d.device;
    VkCommandPoolCreateInfo pi =
        vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    pi.queueFamilyIndex = family;
    check(device_fn<PFN_vkCreateCommandPool>(d, "vkCreateCommandPool")(dev, &pi, nullptr, &s.pool),
          "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai =
        vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    ai.commandPool = s.pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    check(d.dispatch.AllocateCommandBuffers(dev, &ai, &s.cmd), "vkAllocateCommandBuffers");
    // Made below the loader: give it the device's dispatch key, as the loader would.
    *reinterpret_cast<void**>(s.cmd) = *reinterpret_cast<void**>(dev);
    VkBufferCreateInfo bi = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bi.size = kStagingBytes;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    check(d.dispatch.CreateBuffer(dev, &bi, nullptr, &s.buffer), "vkCreateBuffer (staging)");
    VkMemoryRequirements req{};
    device_fn<PFN_vkGetBufferMemoryRequirements>(d, "vkGetBufferMemoryRequirements")(dev, s.buffer,
                                                                                     &req);
    VkMemoryAllocateInfo mi =
        vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    mi.allocationSize = req.size;
    mi.memoryTypeIndex = host_visible_type(d, req.memoryTypeBits);
    check(d.dispatch.AllocateMemory(dev, &mi, nullptr, &s.memory), "vkAllocateMemory (staging)");
    check(d.dispatch.BindBufferMemory(dev, s.buffer, s.memory, 0), "vkBindBufferMemory");
    check(
        device_fn<PFN_vkMapMemory>(d, "vkMapMemory")(dev, s.memory, 0, VK_WHOLE_SIZE, 0, &s.mapped),
        "vkMapMemory");
    VkFenceCreateInfo fi = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
    check(device_fn<PFN_vkCreateFence>(d, "vkCreateFence")(dev, &fi, nullptr, &s.fence),
          "vkCreateFence");
}

// Copies pieces [first, last) (at most kStagingBytes together) into the staging buffer,
// waits, and appends them to `out`.
void copy_batch(DeviceState& d, VkQueue queue, Staging& s, const std::vector<Piece>& pieces,
                size_t first, size_t last, std::vector<BufferSnapshot::Entry>& out) {
    VkDevice dev = d.device;
    VkCommandBufferBeginInfo begin =
        vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(d.dispatch.BeginCommandBuffer(s.cmd, &begin), "vkBeginCommandBuffer");
    uint64_t at = 0;
    for (size_t i = first; i < last; ++i) {
        const VkBufferCopy region{pieces[i].buffer_offset, at, pieces[i].size};
        d.dispatch.CmdCopyBuffer(s.cmd, pieces[i].buffer, s.buffer, 1, &region);
        at += pieces[i].size;
    }
    VkMemoryBarrier mb = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
    mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    d.dispatch.CmdPipelineBarrier(s.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                                  0, 1, &mb, 0, nullptr, 0, nullptr);
    check(device_fn<PFN_vkEndCommandBuffer>(d, "vkEndCommandBuffer")(s.cmd), "vkEndCommandBuffer");
    VkSubmitInfo si = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    si.commandBufferCount = 1;
    si.pCommandBuffers = &s.cmd;
    check(d.dispatch.QueueSubmit(queue, 1, &si, s.fence), "vkQueueSubmit (snapshot)");
    check(d.dispatch.WaitForFences(dev, 1, &s.fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    check(device_fn<PFN_vkResetFences>(d, "vkResetFences")(dev, 1, &s.fence), "vkResetFences");
    at = 0;
    for (size_t i = first; i < last; ++i) {
        const auto* src = static_cast<const uint8_t*>(s.mapped) + at;
        out.push_back({pieces[i].memory, pieces[i].memory_offset,
                       std::vector<uint8_t>(src, src + pieces[i].size)});
        at += pieces[i].size;
    }
}

}  // namespace

BufferSnapshot take_buffer_snapshot(DeviceState& d, VkQueue queue, uint64_t limit) {
    BufferSnapshot snap;
    const std::vector<Piece> pieces = pieces_of(d);
    uint64_t total = 0;
    for (const auto& p : pieces) total += p.size;
    if (total > limit) {
        snap.not_taken = "buffer contents not saved: the buffers hold " + std::to_string(total) +
                         " bytes, more than GRAPHLENS_CAPTURE_DATA_LIMIT (" +
                         std::to_string(limit) + ")";
        return snap;
    }
    const auto info = d.queues.find(handle_bits(queue));
    if (!info) {
        snap.not_taken = "buffer contents not saved: the submitting queue is unknown to the layer";
        return snap;
    }
    try {
        check(d.dispatch.DeviceWaitIdle(d.device), "vkDeviceWaitIdle");
        Staging s{d};
        create_staging(d, info->family, s);
        for (size_t first = 0; first < pieces.size();) {
            size_t last = first;
            for (uint64_t bytes = 0;
                 last < pieces.size() && bytes + pieces[last].size <= kStagingBytes; ++last)
                bytes += pieces[last].size;
            copy_batch(d, queue, s, pieces, first, last, snap.entries);
            first = last;
        }
    } catch (const std::exception& e) {
        snap.entries.clear();
        snap.not_taken = std::string("buffer contents not saved: ") + e.what();
    }
    return snap;
}

BufferData snapshot_data_for(const BufferSnapshot& snapshot,
                             const std::vector<std::shared_ptr<const MemoryState>>& memories,
                             const ComputeGraph& graph) {
    std::set<AllocationId> read;
    for (const Node& n : graph.nodes)
        if (n.is_dispatch())
            for (const ByteRange& r : n.reads) read.insert(r.allocation);
    std::map<const MemoryState*, AllocationId> id_of;
    for (AllocationId id = 0; id < memories.size(); ++id) id_of[memories[id].get()] = id;
    BufferData data;
    for (const auto& e : snapshot.entries) {
        const auto it = id_of.find(e.memory.get());
        if (it == id_of.end() || !read.count(it->second)) continue;
        data.entries.push_back({it->second, e.offset, e.bytes});
    }
    return data;
}

// --- CaptureSession's side ------------------------------------------------------------------

bool CaptureSession::range_may_begin(uint64_t queue,
                                     const std::vector<SubmittedBatch>& batches) const {
    if (began_ || finished_) return false;
    uint64_t dispatches = 0;
    bool labels = false;
    for (const auto& b : batches)
        for (const auto& l : b.lists) {
            dispatches += l->dispatches;
            labels = labels || l->has_labels;
        }
    const CaptureRange& r = settings_.range;
    switch (r.kind) {
        case RangeKind::submits:
            return submissions_ + batches.size() > r.first && submissions_ <= r.count_or_last;
        case RangeKind::dispatches:
            return dispatches_seen_ + dispatches > r.first;
        case RangeKind::label: {
            const auto q = queues_.find(queue);
            return labels || (q != queues_.end() && q->second.labels.contains(r.label));
        }
        case RangeKind::first_dispatch_submission:
            break;
    }
    return dispatches > 0;
}

void CaptureSession::before_submit(DeviceState& device, VkQueue queue,
                                   const std::vector<SubmittedBatch>& batches) {
    if (!settings_.data) return;
    std::lock_guard lock(mutex_);
    if (!range_may_begin(handle_bits(queue), batches)) return;
    // A label range may be predicted too early (a batch with other labels): each new
    // snapshot replaces the last until the range has begun.
    snapshot_ =
        std::make_shared<BufferSnapshot>(take_buffer_snapshot(device, queue, settings_.data_limit));
}

std::string CaptureSession::write_buffer_data() {
    if (!snapshot_) return "buffer contents not saved: no submission began the range";
    if (!snapshot_->not_taken.empty()) return snapshot_->not_taken;
    const std::string path = buffer_data_path(settings_.output).string();
    try {
        const BufferData data =
            snapshot_data_for(*snapshot_, builder_->allocation_memories(), document_.graph);
        save_buffer_data(data, path);
        return "buffer contents at the start of the range: " + std::to_string(data.total_bytes()) +
               " bytes of " + std::to_string(data.entries.size()) +
               " pieces of the allocations the range reads, in " + path;
    } catch (const std::exception& e) {
        warn_once("data", std::string("buffer contents not saved: ") + e.what());
        return std::string("buffer contents not saved: ") + e.what();
    }
}

std::optional<std::vector<uint8_t>> snapshot_bytes(const BufferSnapshot& snapshot,
                                                   const MemoryState* memory, uint64_t offset,
                                                   uint64_t size) {
    for (const auto& e : snapshot.entries) {
        if (e.memory.get() != memory || offset < e.offset ||
            offset + size > e.offset + e.bytes.size())
            continue;
        const auto first = e.bytes.begin() + int64_t(offset - e.offset);
        return std::vector<uint8_t>(first, first + int64_t(size));
    }
    return std::nullopt;
}

}  // namespace graphlens::layer
