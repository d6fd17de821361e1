#pragma once
// Device memory for graphs: allocations carved from arenas of VkDeviceMemory, each its own
// VkBuffer bound at an aligned offset. Allocation ids are indices, exactly as in
// ComputeGraph::allocations, so a recorded graph refers to the buffers of the DeviceMemory
// it was recorded with, and `recreate` builds the same table for a capture made elsewhere.
//
// Data moves through a staging buffer, or by memcpy into persistently mapped memory when
// the device has unified memory (CPU and integrated devices).
#include <vulkan/vulkan.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "graphlens/graph/allocation.h"
#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/tensor_view.h"

namespace graphlens {

class Device;

/// Where one allocation lives on the device.
struct DeviceBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    uint64_t size = 0;
    uint8_t* mapped = nullptr;  ///< non-null on the host-visible fast path
};

class DeviceMemory {
  public:
    /// Arena size: allocations larger than this get an arena of their own.
    static constexpr uint64_t kDefaultArenaBytes = 64ull << 20;

    explicit DeviceMemory(Device& device, uint64_t arena_bytes = kDefaultArenaBytes);
    ~DeviceMemory();
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;

    /// A new allocation; its id is the next index. Throws std::length_error naming the
    /// allocation when `size` is 0 or exceeds what the device can allocate. With
    /// `device_address` its buffer has VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT and lives in
    /// arenas allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT (the device must have been
    /// created with the bufferDeviceAddress feature).
    AllocationId allocate(std::string name, uint64_t size,
                          AllocationUsage usage = AllocationUsage::scratch,
                          bool device_address = false);
    /// Allocates every allocation of `graph` (same ids, names, sizes, usages, device-address
    /// usage) after any existing ones are released; used to replay a capture made on another
    /// machine.
    void recreate(const ComputeGraph& graph);
    /// Allocates, zeroed, the allocations `graph` has beyond this memory's: those a pass added
    /// for a fused kernel (FusionScratch, usage scratch). Throws std::invalid_argument naming
    /// the first missing allocation of another usage, or a scratch allocation of the graph
    /// that this memory holds under another name (the graph belongs to other memory).
    void add_missing_scratch(const ComputeGraph& graph);
    /// Releases every allocation and arena (views into them become invalid).
    void clear();

    /// The allocation table, in the form ComputeGraph::allocations uses.
    const std::vector<AllocationInfo>& allocations() const { return infos_; }
    const AllocationInfo& info(AllocationId id) const;
    const DeviceBuffer& buffer(AllocationId id) const;
    size_t allocation_count() const { return infos_.size(); }
    /// Bytes of device memory in arenas (allocated, not requested).
    uint64_t arena_bytes() const;

    /// A view over bytes [offset, offset + n elements) of an allocation. Throws
    /// std::out_of_range when it does not fit, std::invalid_argument when the offset breaks
    /// the device's storage-buffer offset alignment.
    TensorView view(AllocationId id, DType dtype, std::span<const int64_t> shape,
                    uint64_t offset = 0) const;
    TensorView view(AllocationId id, DType dtype, std::initializer_list<int64_t> shape,
                    uint64_t offset = 0) const {
        return view(id, dtype, std::span<const int64_t>(shape.begin(), shape.size()), offset);
    }
    /// The whole allocation as bytes (u8).
    TensorView whole(AllocationId id) const;
    /// Throws (naming `where`) when the view's allocation is unknown or the view leaves it,
    /// or when its offset is misaligned for a storage-buffer binding.
    void check_view(const TensorView& v, std::string_view where) const;
    /// The conditions of check_view without the message (cheap, for hot paths).
    bool view_ok(const TensorView& v) const noexcept;

    /// Writes bytes at `offset` of an allocation and waits for completion.
    void upload(AllocationId id, std::span<const uint8_t> bytes, uint64_t offset = 0);
    void upload(const TensorView& v, std::span<const uint8_t> bytes);
    template <class T>
    void upload(const TensorView& v, const std::vector<T>& values) {
        upload(v, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(values.data()),
                                           values.size() * sizeof(T)));
    }
    /// Reads bytes back (waits for completion of the copy; the caller must have waited for
    /// the GPU work that wrote them, which finish()/execute() do).
    std::vector<uint8_t> download(AllocationId id, uint64_t offset, uint64_t size);
    std::vector<uint8_t> download(const TensorView& v);
    template <class T>
    std::vector<T> download_as(const TensorView& v) {
        auto bytes = download(v);
        std::vector<T> out(bytes.size() / sizeof(T));
        std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
        return out;
    }
    /// Sets every byte of an allocation (poisoning outputs in tests).
    void fill(AllocationId id, uint8_t byte);

    Device& device() const { return *device_; }

  private:
    struct Arena {
        VkDeviceMemory memory = VK_NULL_HANDLE;
        uint64_t size = 0;
        uint64_t used = 0;
        uint8_t* mapped = nullptr;
        bool device_address = false;  ///< allocated with VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT
    };
    uint32_t pick_memory_type(uint32_t type_bits) const;
    /// length_error when `size` is 0 or more than the device allows in one allocation or has.
    void check_fits_device(const std::string& name, uint64_t size) const;
    /// Where a buffer of `req` goes: the first arena of its kind (device address or not) with
    /// room at the alignment, else a new arena; the arena and the offset in it.
    std::pair<Arena*, uint64_t> place(const VkMemoryRequirements& req, bool device_address,
                                      const std::string& name, uint64_t size);
    /// A new arena of the default size, or of the buffer's when larger (capped at the device's
    /// largest allocation), mapped when the memory is host-visible.
    Arena& add_arena(const VkMemoryRequirements& req, bool device_address, const std::string& name,
                     uint64_t size);
    void copy_via_staging(AllocationId id, uint64_t offset, uint64_t size, const uint8_t* src,
                          uint8_t* dst);

    Device* device_;
    uint64_t arena_bytes_;
    bool host_visible_ = false;  ///< the chosen memory type is host-visible + coherent
    std::vector<Arena> arenas_;
    std::vector<AllocationInfo> infos_;
    std::vector<DeviceBuffer> buffers_;
};

}  // namespace graphlens
