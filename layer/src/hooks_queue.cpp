// Queue submissions and host waits. The recordings of the submitted command buffers are
// taken before the call is passed on (another thread may reset a buffer as soon as its fence
// signals) and turned into graph nodes after it succeeded.
#include "layer/src/capture_session.h"
#include "layer/src/diagnostics.h"
#include "layer/src/hook_table.h"

namespace graphlens::layer {
namespace {

std::shared_ptr<const CommandList> list_of(DeviceState& d, VkCommandBuffer cb) {
    auto s = find_command_buffer(d, cb);
    return s ? s->list : std::make_shared<const CommandList>();
}

// The timeline values of a VkSubmitInfo (VkTimelineSemaphoreSubmitInfo in its chain); a value
// past the arrays given is 0, which a binary semaphore ignores.
const VkTimelineSemaphoreSubmitInfo* timeline_values(const VkSubmitInfo& s) {
    for (auto* p = static_cast<const VkBaseInStructure*>(s.pNext); p; p = p->pNext)
        if (p->sType == VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO)
            return reinterpret_cast<const VkTimelineSemaphoreSubmitInfo*>(p);
    return nullptr;
}

uint64_t value_at(const uint64_t* values, uint32_t count, uint32_t k) {
    return values && k < count ? values[k] : 0;
}

std::vector<SubmittedBatch> batches_of(DeviceState& d, uint32_t count, const VkSubmitInfo* infos) {
    std::vector<SubmittedBatch> out(count);
    for (uint32_t i = 0; i < count; ++i) {
        const auto& s = infos[i];
        const VkTimelineSemaphoreSubmitInfo* t = timeline_values(s);
        for (uint32_t k = 0; k < s.commandBufferCount; ++k)
            out[i].lists.push_back(list_of(d, s.pCommandBuffers[k]));
        for (uint32_t k = 0; k < s.waitSemaphoreCount; ++k)
            out[i].waits.push_back(
                {handle_bits(s.pWaitSemaphores[k]), VkPipelineStageFlags2(s.pWaitDstStageMask[k]),
                 t ? value_at(t->pWaitSemaphoreValues, t->waitSemaphoreValueCount, k) : 0});
        for (uint32_t k = 0; k < s.signalSemaphoreCount; ++k)
            out[i].signals.push_back(
                {handle_bits(s.pSignalSemaphores[k]),
                 t ? value_at(t->pSignalSemaphoreValues, t->signalSemaphoreValueCount, k) : 0});
    }
    return out;
}

std::vector<SubmittedBatch> batches_of(DeviceState& d, uint32_t count, const VkSubmitInfo2* infos) {
    std::vector<SubmittedBatch> out(count);
    for (uint32_t i = 0; i < count; ++i) {
        const auto& s = infos[i];
        for (uint32_t k = 0; k < s.commandBufferInfoCount; ++k)
            out[i].lists.push_back(list_of(d, s.pCommandBufferInfos[k].commandBuffer));
        for (uint32_t k = 0; k < s.waitSemaphoreInfoCount; ++k)
            out[i].waits.push_back({handle_bits(s.pWaitSemaphoreInfos[k].semaphore),
                                    s.pWaitSemaphoreInfos[k].stageMask,
                                    s.pWaitSemaphoreInfos[k].value});
        for (uint32_t k = 0; k < s.signalSemaphoreInfoCount; ++k)
            out[i].signals.push_back({handle_bits(s.pSignalSemaphoreInfos[k].semaphore),
                                      s.pSignalSemaphoreInfos[k].value});
    }
    return out;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_QueueSubmit(VkQueue queue, uint32_t count,
                                                const VkSubmitInfo* infos, VkFence fence) {
    auto d = find_device(queue);
    if (!d) return VK_ERROR_DEVICE_LOST;
    auto& session = CaptureSession::get();
    if (!session.recording()) return d->dispatch.QueueSubmit(queue, count, infos, fence);
    std::vector<SubmittedBatch> batches;
    guarded("vkQueueSubmit", [&] {
        batches = batches_of(*d, count, infos);
        session.before_submit(*d, queue, batches);
    });
    const VkResult r = d->dispatch.QueueSubmit(queue, count, infos, fence);
    if (r == VK_SUCCESS)
        guarded("vkQueueSubmit", [&] {
            session.on_submit(*d, handle_bits(queue), std::move(batches), handle_bits(fence));
        });
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_QueueSubmit2(VkQueue queue, uint32_t count,
                                                 const VkSubmitInfo2* infos, VkFence fence) {
    auto d = find_device(queue);
    if (!d) return VK_ERROR_DEVICE_LOST;
    auto next = d->dispatch.QueueSubmit2 ? d->dispatch.QueueSubmit2 : d->dispatch.QueueSubmit2KHR;
    auto& session = CaptureSession::get();
    if (!session.recording()) return next(queue, count, infos, fence);
    std::vector<SubmittedBatch> batches;
    guarded("vkQueueSubmit2", [&] {
        batches = batches_of(*d, count, infos);
        session.before_submit(*d, queue, batches);
    });
    const VkResult r = next(queue, count, infos, fence);
    if (r == VK_SUCCESS)
        guarded("vkQueueSubmit2", [&] {
            session.on_submit(*d, handle_bits(queue), std::move(batches), handle_bits(fence));
        });
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_QueueWaitIdle(VkQueue queue) {
    auto d = find_device(queue);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.QueueWaitIdle(queue);
    if (r == VK_SUCCESS)
        guarded("vkQueueWaitIdle",
                [&] { CaptureSession::get().on_queue_idle(handle_bits(queue)); });
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_DeviceWaitIdle(VkDevice device) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.DeviceWaitIdle(device);
    if (r == VK_SUCCESS)
        guarded("vkDeviceWaitIdle", [&] { CaptureSession::get().on_device_idle(*d); });
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL hook_WaitForFences(VkDevice device, uint32_t count,
                                                  const VkFence* fences, VkBool32 wait_all,
                                                  uint64_t timeout) {
    auto d = find_device(device);
    if (!d) return VK_ERROR_DEVICE_LOST;
    const VkResult r = d->dispatch.WaitForFences(device, count, fences, wait_all, timeout);
    // With waitAll false and several fences, which one signalled is unknown: no order is
    // assumed.
    if (r == VK_SUCCESS && (wait_all || count == 1))
        guarded("vkWaitForFences", [&] {
            std::vector<uint64_t> waited;
            for (uint32_t i = 0; i < count; ++i) waited.push_back(handle_bits(fences[i]));
            CaptureSession::get().on_fences_waited(waited);
        });
    return r;
}

}  // namespace

void add_queue_hooks(HookTable& t) {
    t.device["vkQueueSubmit"] = as_void_fn(&hook_QueueSubmit);
    t.device["vkQueueSubmit2"] = as_void_fn(&hook_QueueSubmit2);
    t.device["vkQueueSubmit2KHR"] = as_void_fn(&hook_QueueSubmit2);
    t.device["vkQueueWaitIdle"] = as_void_fn(&hook_QueueWaitIdle);
    t.device["vkDeviceWaitIdle"] = as_void_fn(&hook_DeviceWaitIdle);
    t.device["vkWaitForFences"] = as_void_fn(&hook_WaitForFences);
}

}  // namespace graphlens::layer
