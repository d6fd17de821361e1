#include "layer/src/layer_state.h"

#include <atomic>
#include <shared_mutex>
#include <unordered_map>

namespace graphlens::layer {
namespace {

template <class T>
struct Registry {
    std::shared_mutex mutex;
    std::unordered_map<void*, std::shared_ptr<T>> by_key;
};

// Function-local statics: the registries outlive any static destructor that writes a capture
// at exit, and exist before the loader calls the layer during another object's construction.
Registry<InstanceState>& instances() {
    static auto* r = new Registry<InstanceState>;
    return *r;
}
Registry<DeviceState>& devices() {
    static auto* r = new Registry<DeviceState>;
    return *r;
}

/// Increased on every change of the device registry; a thread's cached device is used only
/// while it is unchanged.
std::atomic<uint64_t> device_epoch{1};

struct CachedDevice {
    void* key = nullptr;
    uint64_t epoch = 0;
    DeviceState* device = nullptr;
};
thread_local CachedDevice cached_device;

template <class T>
std::shared_ptr<T> find_in(Registry<T>& r, const void* dispatchable) {
    if (!dispatchable) return nullptr;
    std::shared_lock lock(r.mutex);
    auto it = r.by_key.find(dispatch_key(dispatchable));
    return it == r.by_key.end() ? nullptr : it->second;
}

}  // namespace

std::string DeviceState::object_name(VkObjectType type, uint64_t handle) const {
    std::lock_guard lock(names_mutex_);
    auto it = names_.find({type, handle});
    return it == names_.end() ? std::string() : it->second;
}

void DeviceState::set_object_name(VkObjectType type, uint64_t handle, std::string name) {
    std::lock_guard lock(names_mutex_);
    if (name.empty())
        names_.erase({type, handle});
    else
        names_[{type, handle}] = std::move(name);
}

std::shared_ptr<InstanceState> find_instance(const void* dispatchable) {
    return find_in(instances(), dispatchable);
}
void add_instance(const void* dispatchable, std::shared_ptr<InstanceState> state) {
    std::unique_lock lock(instances().mutex);
    instances().by_key[dispatch_key(dispatchable)] = std::move(state);
}
void remove_instance(const void* dispatchable) {
    std::unique_lock lock(instances().mutex);
    instances().by_key.erase(dispatch_key(dispatchable));
}
std::shared_ptr<DeviceState> find_device(const void* dispatchable) {
    return find_in(devices(), dispatchable);
}
void add_device(const void* dispatchable, std::shared_ptr<DeviceState> state) {
    std::unique_lock lock(devices().mutex);
    devices().by_key[dispatch_key(dispatchable)] = std::move(state);
    device_epoch.fetch_add(1, std::memory_order_acq_rel);
}
void remove_device(const void* dispatchable) {
    std::unique_lock lock(devices().mutex);
    devices().by_key.erase(dispatch_key(dispatchable));
    device_epoch.fetch_add(1, std::memory_order_acq_rel);
    command_buffers_changed();
}

DeviceState* device_of(const void* dispatchable) {
    if (!dispatchable) return nullptr;
    void* key = dispatch_key(dispatchable);
    const uint64_t epoch = device_epoch.load(std::memory_order_acquire);
    CachedDevice& c = cached_device;
    if (c.key == key && c.epoch == epoch) return c.device;
    std::shared_lock lock(devices().mutex);
    auto it = devices().by_key.find(key);
    c = {key, epoch, it == devices().by_key.end() ? nullptr : it->second.get()};
    return c.device;
}

std::shared_ptr<CommandBufferState> find_command_buffer(DeviceState& device, VkCommandBuffer cb) {
    return device.command_buffers.find(handle_bits(cb));
}

}  // namespace graphlens::layer
