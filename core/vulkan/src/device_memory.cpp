// Arenas of VkDeviceMemory carved into one VkBuffer per allocation, plus data transfers.
#include "graphlens/vulkan/device_memory.h"
#include "vulkan/src/vk_struct.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "graphlens/vulkan/device.h"

namespace graphlens {
namespace {

// Uniform: a recorded program's kernels may bind an allocation as a uniform buffer.
constexpr VkBufferUsageFlags kUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
    VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
// Staging transfers move at most this much per submission.
constexpr uint64_t kStagingChunk = 32ull << 20;

uint64_t align_up(uint64_t v, uint64_t a) {
    return a <= 1 ? v : (v + a - 1) / a * a;
}

// A one-shot command buffer on the device's queue, destroyed after the wait.
class OneShot {
  public:
    explicit OneShot(Device& d) : device_(d) {
        VkCommandPoolCreateInfo pi =
            vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
        pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        pi.queueFamilyIndex = d.queue_family();
        vk_check(vkCreateCommandPool(d.handle(), &pi, nullptr, &pool_), "vkCreateCommandPool");
        VkCommandBufferAllocateInfo ai =
            vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
        ai.commandPool = pool_;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        vk_check(vkAllocateCommandBuffers(d.handle(), &ai, &cmd_), "vkAllocateCommandBuffers");
        VkCommandBufferBeginInfo bi =
            vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        vk_check(vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
    }
    ~OneShot() { vkDestroyCommandPool(device_.handle(), pool_, nullptr); }
    VkCommandBuffer cmd() const { return cmd_; }
    void run() {
        // Transfer writes become visible to compute, transfers and the host of later work.
        VkMemoryBarrier mb = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
        mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                           VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                           VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                                 VK_PIPELINE_STAGE_HOST_BIT,
                             0, 1, &mb, 0, nullptr, 0, nullptr);
        vk_check(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
        device_.submit_and_wait(cmd_);
    }

  private:
    Device& device_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
};

// A host-visible buffer for staging.
struct Staging {
    Device& device;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint8_t* mapped = nullptr;
    Staging(Device& d, uint64_t size) : device(d) {
        VkBufferCreateInfo bi = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
        bi.size = size;
        bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        vk_check(vkCreateBuffer(d.handle(), &bi, nullptr, &buffer), "vkCreateBuffer (staging)");
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(d.handle(), buffer, &req);
        VkPhysicalDeviceMemoryProperties props;
        vkGetPhysicalDeviceMemoryProperties(d.physical_device(), &props);
        const VkMemoryPropertyFlags want =
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        uint32_t type = UINT32_MAX;
        for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
            if ((req.memoryTypeBits & (1u << i)) &&
                (props.memoryTypes[i].propertyFlags & want) == want) {
                type = i;
                break;
            }
        if (type == UINT32_MAX)
            throw std::runtime_error("no host-visible coherent memory type for staging");
        VkMemoryAllocateInfo ai =
            vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
        ai.allocationSize = req.size;
        ai.memoryTypeIndex = type;
        vk_check(vkAllocateMemory(d.handle(), &ai, nullptr, &memory), "vkAllocateMemory (staging)");
        vk_check(vkBindBufferMemory(d.handle(), buffer, memory, 0), "vkBindBufferMemory (staging)");
        void* p = nullptr;
        vk_check(vkMapMemory(d.handle(), memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory (staging)");
        mapped = static_cast<uint8_t*>(p);
    }
    ~Staging() {
        vkDestroyBuffer(device.handle(), buffer, nullptr);
        vkFreeMemory(device.handle(), memory, nullptr);
    }
};

}  // namespace

DeviceMemory::DeviceMemory(Device& device, uint64_t arena_bytes)
    : device_(&device), arena_bytes_(arena_bytes) {
    host_visible_ = device.facts().unified_memory;
}

DeviceMemory::~DeviceMemory() {
    clear();
}

void DeviceMemory::clear() {
    VkDevice dev = device_->handle();
    std::vector<VkBuffer> buffers;
    std::vector<VkDeviceMemory> arenas;
    for (const auto& b : buffers_) buffers.push_back(b.buffer);
    for (const auto& a : arenas_) arenas.push_back(a.memory);
    auto destroy = [dev, buffers = std::move(buffers), arenas = std::move(arenas)] {
        for (VkBuffer b : buffers) vkDestroyBuffer(dev, b, nullptr);
        for (VkDeviceMemory m : arenas) vkFreeMemory(dev, m, nullptr);
    };
    // A cancelled run's abandoned submissions may still use these buffers: they are destroyed
    // after them. Else whatever was submitted is done first.
    if (!device_->retired_work().defer(destroy)) {
        vkDeviceWaitIdle(dev);
        destroy();
    }
    buffers_.clear();
    arenas_.clear();
    infos_.clear();
}

uint32_t DeviceMemory::pick_memory_type(uint32_t type_bits) const {
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(device_->physical_device(), &props);
    const VkMemoryPropertyFlags unified = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags want =
        host_visible_ ? unified : VkMemoryPropertyFlags{VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT};
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want)
            return i;
    for (uint32_t i = 0; i < props.memoryTypeCount; ++i)
        if (type_bits & (1u << i)) return i;
    throw std::runtime_error("no memory type for storage buffers");
}

AllocationId DeviceMemory::allocate(std::string name, uint64_t size, AllocationUsage usage,
                                    bool device_address) {
    check_fits_device(name, size);
    VkDevice dev = device_->handle();
    VkBufferCreateInfo bi = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bi.size = size;
    bi.usage = kUsage | (device_address ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0);
    DeviceBuffer buf;
    buf.size = size;
    vk_check(vkCreateBuffer(dev, &bi, nullptr, &buf.buffer), "vkCreateBuffer");
    try {
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(dev, buf.buffer, &req);
        auto [arena, offset] = place(req, device_address, name, size);
        vk_check(vkBindBufferMemory(dev, buf.buffer, arena->memory, offset), "vkBindBufferMemory");
        arena->used = offset + req.size;
        if (arena->mapped) buf.mapped = arena->mapped + offset;
    } catch (...) {
        vkDestroyBuffer(dev, buf.buffer, nullptr);
        throw;
    }
    device_->name_object(VK_OBJECT_TYPE_BUFFER, buf.buffer, name);
    AllocationInfo info;
    info.id = static_cast<AllocationId>(infos_.size());
    info.size = size;
    info.name = std::move(name);
    info.usage = usage;
    info.device_address = device_address;
    infos_.push_back(std::move(info));
    buffers_.push_back(buf);
    return infos_.back().id;
}

void DeviceMemory::check_fits_device(const std::string& name, uint64_t size) const {
    const auto& f = device_->facts();
    if (size == 0) throw std::length_error(fmt::format("allocation '{}': size 0", name));
    if (f.max_allocation_size && size > f.max_allocation_size)
        throw std::length_error(
            fmt::format("allocation '{}' of {} bytes exceeds the largest allocation device '{}' "
                        "allows ({} bytes)",
                        name, size, f.name, f.max_allocation_size));
    if (f.device_local_bytes && size > f.device_local_bytes)
        throw std::length_error(
            fmt::format("allocation '{}' of {} bytes exceeds the device memory of '{}' ({} bytes)",
                        name, size, f.name, f.device_local_bytes));
}

std::pair<DeviceMemory::Arena*, uint64_t> DeviceMemory::place(const VkMemoryRequirements& req,
                                                              bool device_address,
                                                              const std::string& name,
                                                              uint64_t size) {
    const uint64_t alignment =
        std::max<uint64_t>(req.alignment, device_->facts().storage_offset_alignment);
    for (auto& a : arenas_) {  // the first arena of the same kind with room
        if (a.device_address != device_address) continue;
        const uint64_t at = align_up(a.used, alignment);
        if (at + req.size <= a.size) return {&a, at};
    }
    return {&add_arena(req, device_address, name, size), 0};
}

DeviceMemory::Arena& DeviceMemory::add_arena(const VkMemoryRequirements& req, bool device_address,
                                             const std::string& name, uint64_t size) {
    const auto& f = device_->facts();
    VkDevice dev = device_->handle();
    Arena a;
    a.device_address = device_address;
    a.size = std::max(arena_bytes_, req.size);
    if (f.max_allocation_size)
        a.size = std::min<uint64_t>(a.size, std::max<uint64_t>(req.size, f.max_allocation_size));
    VkMemoryAllocateInfo ai =
        vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    ai.allocationSize = a.size;
    ai.memoryTypeIndex = pick_memory_type(req.memoryTypeBits);
    VkMemoryAllocateFlagsInfo flags =
        vk_struct<VkMemoryAllocateFlagsInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO);
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    if (device_address) ai.pNext = &flags;
    VkResult r = vkAllocateMemory(dev, &ai, nullptr, &a.memory);
    if (r != VK_SUCCESS)
        throw std::length_error(
            fmt::format("allocation '{}' of {} bytes: device memory exhausted (VkResult {})", name,
                        size, static_cast<int>(r)));
    if (host_visible_) {
        void* p = nullptr;
        vk_check(vkMapMemory(dev, a.memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
        a.mapped = static_cast<uint8_t*>(p);
    }
    arenas_.push_back(a);
    return arenas_.back();
}

void DeviceMemory::recreate(const ComputeGraph& graph) {
    clear();
    for (size_t i = 0; i < graph.allocations.size(); ++i) {
        const auto& a = graph.allocations[i];
        if (a.id != i)
            throw std::invalid_argument(
                fmt::format("graph allocation '{}' at index {} has id {}; ids must equal indices",
                            a.name, i, a.id));
        allocate(a.name, a.size, a.usage, a.device_address);
    }
}

void DeviceMemory::add_missing_scratch(const ComputeGraph& graph) {
    // A fused kernel's scratch that this memory already holds must be that scratch (made by an
    // earlier run of a graph fused from the same capture, and left zeroed), not another buffer
    // that happens to have its id: counters read from other data would break the kernel.
    for (size_t i = 0; i < std::min(infos_.size(), graph.allocations.size()); ++i) {
        const auto& a = graph.allocations[i];
        if (a.usage == AllocationUsage::scratch && a.name != infos_[i].name)
            throw std::invalid_argument(
                fmt::format("graph allocation {} '{}' (scratch) is '{}' in this device memory", i,
                            a.name, infos_[i].name));
    }
    for (size_t i = infos_.size(); i < graph.allocations.size(); ++i) {
        const auto& a = graph.allocations[i];
        if (a.usage != AllocationUsage::scratch || a.id != i)
            throw std::invalid_argument(fmt::format(
                "graph allocation {} '{}' ({}) is not in this device memory ({} allocations)", i,
                a.name, allocation_usage_name(a.usage), infos_.size()));
        const AllocationId id = allocate(a.name, a.size, a.usage);
        upload(id, std::vector<uint8_t>(a.size, 0));
    }
}

uint64_t DeviceMemory::arena_bytes() const {
    uint64_t n = 0;
    for (const auto& a : arenas_) n += a.size;
    return n;
}

const AllocationInfo& DeviceMemory::info(AllocationId id) const {
    if (id >= infos_.size())
        throw std::out_of_range(
            fmt::format("allocation id {} does not exist ({} allocations)", id, infos_.size()));
    return infos_[id];
}

const DeviceBuffer& DeviceMemory::buffer(AllocationId id) const {
    info(id);
    return buffers_[id];
}

bool DeviceMemory::view_ok(const TensorView& v) const noexcept {
    if (v.allocation >= infos_.size()) return false;
    const uint64_t size = infos_[v.allocation].size;
    if (v.offset > size || v.size > size - v.offset) return false;
    const auto& f = device_->facts();
    if (f.storage_offset_alignment > 1 && v.offset % f.storage_offset_alignment != 0) return false;
    return !(f.max_storage_buffer_range && v.size > f.max_storage_buffer_range);
}

void DeviceMemory::check_view(const TensorView& v, std::string_view where) const {
    if (v.allocation >= infos_.size())
        throw std::out_of_range(
            fmt::format("{}: view refers to allocation {} which does not exist ({} allocations)",
                        where, v.allocation, infos_.size()));
    const auto& a = infos_[v.allocation];
    if (v.offset > a.size || v.size > a.size - v.offset)
        throw std::out_of_range(fmt::format("{}: view [{}, {}) leaves allocation '{}' of {} bytes",
                                            where, v.offset, v.offset + v.size, a.name, a.size));
    const uint64_t align = device_->facts().storage_offset_alignment;
    if (align > 1 && v.offset % align != 0)
        throw std::invalid_argument(
            fmt::format("{}: view offset {} in allocation '{}' is not a multiple of the "
                        "storage-buffer offset alignment {}",
                        where, v.offset, a.name, align));
    const uint64_t range = device_->facts().max_storage_buffer_range;
    if (range && v.size > range)
        throw std::out_of_range(
            fmt::format("{}: view of {} bytes in allocation '{}' exceeds maxStorageBufferRange {}",
                        where, v.size, a.name, range));
}

TensorView DeviceMemory::view(AllocationId id, DType dtype, std::span<const int64_t> shape,
                              uint64_t offset) const {
    if (shape.empty() || shape.size() > 4)
        throw std::invalid_argument(
            fmt::format("view of allocation {}: rank {} (1..4 supported)", id, shape.size()));
    TensorView v;
    v.allocation = id;
    v.offset = offset;
    v.dtype = dtype;
    v.rank = static_cast<uint8_t>(shape.size());
    v.shape = {1, 1, 1, 1};
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] <= 0)
            throw std::invalid_argument(
                fmt::format("view of allocation {}: dimension {} is {}", id, i, shape[i]));
        v.shape[i] = shape[i];
    }
    v.size = dtype_bytes_for(dtype, static_cast<uint64_t>(v.elements()));
    check_view(v, fmt::format("view of allocation '{}'",
                              id < infos_.size() ? infos_[id].name : std::to_string(id)));
    return v;
}

TensorView DeviceMemory::whole(AllocationId id) const {
    const auto& a = info(id);
    return view(id, DType::u8, {static_cast<int64_t>(a.size)});
}

void DeviceMemory::copy_via_staging(AllocationId id, uint64_t offset, uint64_t size,
                                    const uint8_t* src, uint8_t* dst) {
    const DeviceBuffer& b = buffers_[id];
    Staging staging(*device_, std::min(size, kStagingChunk));
    for (uint64_t done = 0; done < size;) {
        const uint64_t n = std::min(size - done, kStagingChunk);
        if (src) std::memcpy(staging.mapped, src + done, n);
        OneShot shot(*device_);
        VkBufferCopy region{};
        region.size = n;
        if (src) {
            region.dstOffset = offset + done;
            vkCmdCopyBuffer(shot.cmd(), staging.buffer, b.buffer, 1, &region);
        } else {
            region.srcOffset = offset + done;
            vkCmdCopyBuffer(shot.cmd(), b.buffer, staging.buffer, 1, &region);
        }
        shot.run();
        if (dst) std::memcpy(dst + done, staging.mapped, n);
        done += n;
    }
}

void DeviceMemory::upload(AllocationId id, std::span<const uint8_t> bytes, uint64_t offset) {
    const auto& a = info(id);
    if (offset > a.size || bytes.size() > a.size - offset)
        throw std::out_of_range(
            fmt::format("upload of {} bytes at offset {} leaves allocation '{}' of {} bytes",
                        bytes.size(), offset, a.name, a.size));
    if (bytes.empty()) return;
    const DeviceBuffer& b = buffers_[id];
    if (b.mapped)
        std::memcpy(b.mapped + offset, bytes.data(), bytes.size());
    else
        copy_via_staging(id, offset, bytes.size(), bytes.data(), nullptr);
}

void DeviceMemory::upload(const TensorView& v, std::span<const uint8_t> bytes) {
    check_view(v, "upload");
    if (bytes.size() != v.size)
        throw std::invalid_argument(
            fmt::format("upload to allocation '{}': {} bytes for a view of {} bytes",
                        info(v.allocation).name, bytes.size(), v.size));
    upload(v.allocation, bytes, v.offset);
}

std::vector<uint8_t> DeviceMemory::download(AllocationId id, uint64_t offset, uint64_t size) {
    const auto& a = info(id);
    if (offset > a.size || size > a.size - offset)
        throw std::out_of_range(
            fmt::format("download of {} bytes at offset {} leaves allocation '{}' of {} bytes",
                        size, offset, a.name, a.size));
    std::vector<uint8_t> out(size);
    if (size == 0) return out;
    const DeviceBuffer& b = buffers_[id];
    if (b.mapped)
        std::memcpy(out.data(), b.mapped + offset, size);
    else
        copy_via_staging(id, offset, size, nullptr, out.data());
    return out;
}

std::vector<uint8_t> DeviceMemory::download(const TensorView& v) {
    check_view(v, "download");
    return download(v.allocation, v.offset, v.size);
}

void DeviceMemory::fill(AllocationId id, uint8_t byte) {
    const auto& a = info(id);
    const DeviceBuffer& b = buffers_[id];
    if (b.mapped) {
        std::memset(b.mapped, byte, a.size);
        return;
    }
    OneShot shot(*device_);
    const uint32_t word = byte * 0x01010101u;
    // vkCmdFillBuffer writes whole words; a trailing partial word goes through upload.
    const uint64_t words = a.size / 4 * 4;
    if (words) vkCmdFillBuffer(shot.cmd(), b.buffer, 0, words, word);
    shot.run();
    if (words < a.size) {
        std::vector<uint8_t> tail(a.size - words, byte);
        upload(id, tail, words);
    }
}

}  // namespace graphlens
