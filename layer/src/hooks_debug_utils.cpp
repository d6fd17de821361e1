// VK_EXT_debug_utils: command-buffer and queue labels name the captured nodes (and select
// them with --label); object names name allocations (memory, else the buffers bound to it)
// and kernels (pipeline, else shader module). These are instance-extension functions that
// dispatch on a device object: the program reaches them through vkGetDeviceProcAddr or
// vkGetInstanceProcAddr, and the layer answers both (layer_entry.cpp) when the instance
// enabled the extension.
#include "layer/src/command_recording.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"

namespace graphlens::layer {
namespace {

std::string_view label_name(const VkDebugUtilsLabelEXT* label) {
    return label && label->pLabelName ? label->pLabelName : "";
}

template <class Cmd>
void record_label(DeviceState& d, VkCommandBuffer cb, const VkDebugUtilsLabelEXT* label) {
    record_command(d, cb, [&](CommandList& list) {
        list.has_labels = true;
        Cmd c{};
        if constexpr (!std::is_same_v<Cmd, CmdEndLabel>) {
            const std::string_view name = label_name(label);
            c.name = list.append(list.text, name.data(), name.size());
        }
        return c;
    });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdBeginDebugUtilsLabelEXT(VkCommandBuffer cb,
                                                           const VkDebugUtilsLabelEXT* label) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    if (d->dispatch.CmdBeginDebugUtilsLabelEXT) d->dispatch.CmdBeginDebugUtilsLabelEXT(cb, label);
    guarded("vkCmdBeginDebugUtilsLabelEXT", [&] { record_label<CmdBeginLabel>(*d, cb, label); });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdEndDebugUtilsLabelEXT(VkCommandBuffer cb) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    if (d->dispatch.CmdEndDebugUtilsLabelEXT) d->dispatch.CmdEndDebugUtilsLabelEXT(cb);
    guarded("vkCmdEndDebugUtilsLabelEXT", [&] { record_label<CmdEndLabel>(*d, cb, nullptr); });
}

VKAPI_ATTR void VKAPI_CALL hook_CmdInsertDebugUtilsLabelEXT(VkCommandBuffer cb,
                                                            const VkDebugUtilsLabelEXT* label) {
    DeviceState* d = device_of(cb);
    if (!d) return;
    if (d->dispatch.CmdInsertDebugUtilsLabelEXT) d->dispatch.CmdInsertDebugUtilsLabelEXT(cb, label);
    guarded("vkCmdInsertDebugUtilsLabelEXT", [&] { record_label<CmdInsertLabel>(*d, cb, label); });
}

VKAPI_ATTR void VKAPI_CALL hook_QueueBeginDebugUtilsLabelEXT(VkQueue queue,
                                                             const VkDebugUtilsLabelEXT* label) {
    auto d = find_device(queue);
    if (!d) return;
    if (d->dispatch.QueueBeginDebugUtilsLabelEXT)
        d->dispatch.QueueBeginDebugUtilsLabelEXT(queue, label);
    guarded("vkQueueBeginDebugUtilsLabelEXT", [&] {
        CaptureSession::get().on_queue_label(handle_bits(queue), QueueLabel::begin,
                                             std::string(label_name(label)));
    });
}

VKAPI_ATTR void VKAPI_CALL hook_QueueEndDebugUtilsLabelEXT(VkQueue queue) {
    auto d = find_device(queue);
    if (!d) return;
    if (d->dispatch.QueueEndDebugUtilsLabelEXT) d->dispatch.QueueEndDebugUtilsLabelEXT(queue);
    guarded("vkQueueEndDebugUtilsLabelEXT",
            [&] { CaptureSession::get().on_queue_label(handle_bits(queue), QueueLabel::end, {}); });
}

VKAPI_ATTR void VKAPI_CALL hook_QueueInsertDebugUtilsLabelEXT(VkQueue queue,
                                                              const VkDebugUtilsLabelEXT* label) {
    auto d = find_device(queue);
    if (!d) return;
    if (d->dispatch.QueueInsertDebugUtilsLabelEXT)
        d->dispatch.QueueInsertDebugUtilsLabelEXT(queue, label);
    guarded("vkQueueInsertDebugUtilsLabelEXT", [&] {
        CaptureSession::get().on_queue_label(handle_bits(queue), QueueLabel::insert,
                                             std::string(label_name(label)));
    });
}

VKAPI_ATTR VkResult VKAPI_CALL
hook_SetDebugUtilsObjectNameEXT(VkDevice device, const VkDebugUtilsObjectNameInfoEXT* info) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.SetDebugUtilsObjectNameEXT
                           ? d->dispatch.SetDebugUtilsObjectNameEXT(device, info)
                           : VK_SUCCESS;
    guarded("vkSetDebugUtilsObjectNameEXT", [&] {
        d->set_object_name(info->objectType, info->objectHandle,
                           info->pObjectName ? info->pObjectName : "");
    });
    return r;
}

}  // namespace

void add_debug_utils_hooks(HookTable& t) {
    t.device["vkCmdBeginDebugUtilsLabelEXT"] = as_void_fn(&hook_CmdBeginDebugUtilsLabelEXT);
    t.device["vkCmdEndDebugUtilsLabelEXT"] = as_void_fn(&hook_CmdEndDebugUtilsLabelEXT);
    t.device["vkCmdInsertDebugUtilsLabelEXT"] = as_void_fn(&hook_CmdInsertDebugUtilsLabelEXT);
    t.device["vkQueueBeginDebugUtilsLabelEXT"] = as_void_fn(&hook_QueueBeginDebugUtilsLabelEXT);
    t.device["vkQueueEndDebugUtilsLabelEXT"] = as_void_fn(&hook_QueueEndDebugUtilsLabelEXT);
    t.device["vkQueueInsertDebugUtilsLabelEXT"] = as_void_fn(&hook_QueueInsertDebugUtilsLabelEXT);
    t.device["vkSetDebugUtilsObjectNameEXT"] = as_void_fn(&hook_SetDebugUtilsObjectNameEXT);
}

}  // namespace graphlens::layer
