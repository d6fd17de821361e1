// ForeignProgram's construction: pipelines from the recorded SPIR-V and pipeline parameters,
// descriptor sets written once per dispatch, transfer commands resolved to buffers.
#include "graphlens/vulkan/foreign_program.h"
#include "vulkan/src/foreign_program_parts.h"
#include "vulkan/src/replayed_pipeline_flags.h"
#include "vulkan/src/vk_struct.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"

namespace graphlens {
namespace {

std::string node_name(size_t index, const Node& n) {
    return fmt::format("node {} (dispatch id {}, '{}')", index, n.id, std::string_view(n.label));
}

std::string kernel_name(KernelId id, const KernelInfo& k) {
    return fmt::format("kernel {} '{}'", id, k.name);
}

VkDescriptorType descriptor_type(const KernelInfo& k, KernelId id, const KernelBinding& b) {
    switch (b.descriptor) {
        case DescriptorKind::storage_buffer:
            return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        case DescriptorKind::uniform_buffer:
            return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
        case DescriptorKind::other:
            break;
    }
    throw std::runtime_error(
        fmt::format("{}: binding (set {}, binding {}) is not a buffer (an image, sampler or texel "
                    "buffer): replay binds storage and uniform buffers only",
                    kernel_name(id, k), b.set, b.binding));
}

std::pair<uint32_t, uint32_t> subgroup_size_range(const Device& device) {
    VkPhysicalDeviceSubgroupSizeControlProperties sp =
        vk_struct<VkPhysicalDeviceSubgroupSizeControlProperties>(
            VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES);
    VkPhysicalDeviceProperties2 p =
        vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    p.pNext = &sp;
    vkGetPhysicalDeviceProperties2(device.physical_device(), &p);
    return {sp.minSubgroupSize, sp.maxSubgroupSize};
}

// A driver handed invalid SPIR-V may crash instead of failing: spirv-val sees it first. What
// spirv-val does not know is left to the driver, with a note saying so.
void check_spirv(const KernelInfo& k, const std::string& what, uint32_t api_version,
                 std::vector<std::string>& notes) {
    const SpirvVerdict verdict = validate_spirv(k.spirv, api_version);
    if (verdict.unknown_to_validator)
        notes.push_back(
            fmt::format("{}: not checked by spirv-val, which does not know what it "
                        "uses ({}); this device's driver judges it",
                        what, verdict.error));
    else if (!verdict.error.empty())
        throw std::runtime_error(
            fmt::format("{}: its SPIR-V does not validate: {}", what, verdict.error));
}

void create_shader_module(VkDevice dev, const KernelInfo& k, const std::string& what,
                          VkShaderModule& module) {
    VkShaderModuleCreateInfo mi =
        vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
    mi.codeSize = k.spirv.size() * sizeof(uint32_t);
    mi.pCode = k.spirv.data();
    vk_check(vkCreateShaderModule(dev, &mi, nullptr, &module),
             (what + ": vkCreateShaderModule").c_str());
}

// One layout per descriptor set up to the highest the kernel binds, appended as each is made
// so that the pipeline's release destroys those made before a failure.
void create_set_layouts(VkDevice dev, const KernelInfo& k, KernelId id, const std::string& what,
                        std::vector<VkDescriptorSetLayout>& set_layouts) {
    uint32_t sets = 0;
    for (const auto& b : k.bindings) sets = std::max(sets, b.set + 1);
    for (uint32_t s = 0; s < sets; ++s) {
        std::vector<VkDescriptorSetLayoutBinding> lbs;
        for (const auto& b : k.bindings) {
            if (b.set != s) continue;
            VkDescriptorSetLayoutBinding lb{};
            lb.binding = b.binding;
            lb.descriptorType = descriptor_type(k, id, b);
            lb.descriptorCount = 1;
            lb.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
            lbs.push_back(lb);
        }
        VkDescriptorSetLayoutCreateInfo li = vk_struct<VkDescriptorSetLayoutCreateInfo>(
            VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
        li.bindingCount = static_cast<uint32_t>(lbs.size());
        li.pBindings = lbs.data();
        VkDescriptorSetLayout layout = VK_NULL_HANDLE;
        vk_check(vkCreateDescriptorSetLayout(dev, &li, nullptr, &layout),
                 (what + ": vkCreateDescriptorSetLayout").c_str());
        set_layouts.push_back(layout);
    }
}

// The block's reflected size, or more where the program pushed more bytes, in whole words.
uint32_t push_constant_bytes(const ComputeGraph& graph, KernelId id, const KernelInfo& k) {
    uint32_t size = k.push_constant_size;
    for (const Node& n : graph.nodes)
        if (n.is_dispatch() && n.kernel == id)
            size = std::max(size, static_cast<uint32_t>(n.push_constants.size()));
    return (size + 3) & ~3u;
}

void create_pipeline_layout(VkDevice dev, const std::vector<VkDescriptorSetLayout>& set_layouts,
                            uint32_t push_constant_size, const std::string& what,
                            VkPipelineLayout& layout) {
    VkPushConstantRange pc{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_constant_size};
    VkPipelineLayoutCreateInfo pli =
        vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
    pli.setLayoutCount = static_cast<uint32_t>(set_layouts.size());
    pli.pSetLayouts = set_layouts.data();
    pli.pushConstantRangeCount = push_constant_size > 0 ? 1 : 0;
    pli.pPushConstantRanges = &pc;
    vk_check(vkCreatePipelineLayout(dev, &pli, nullptr, &layout),
             (what + ": vkCreatePipelineLayout").c_str());
}

// The kernel's specialization constants, packed one after another.
struct Specialization {
    std::vector<VkSpecializationMapEntry> entries;
    std::vector<uint8_t> data;
};

Specialization specialization_of(const KernelInfo& k) {
    Specialization s;
    for (const auto& c : k.specialization) {
        s.entries.push_back({c.id, static_cast<uint32_t>(s.data.size()), c.bytes.size()});
        s.data.insert(s.data.end(), c.bytes.begin(), c.bytes.end());
    }
    return s;
}

// The compute pipeline as recorded: entry point, specialization, required subgroup size and
// the pipeline flags a replay can pass on (a note names the others).
void create_compute_pipeline(const Device& device, const KernelInfo& k, const std::string& what,
                             VkShaderModule module, VkPipelineLayout layout,
                             std::vector<std::string>& notes, VkPipeline& pipeline) {
    const Specialization sp = specialization_of(k);
    VkSpecializationInfo spec{static_cast<uint32_t>(sp.entries.size()), sp.entries.data(),
                              sp.data.size(), sp.data.data()};
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo subgroup =
        vk_struct<VkPipelineShaderStageRequiredSubgroupSizeCreateInfo>(
            VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO);
    VkComputePipelineCreateInfo ci =
        vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
    ci.stage = vk_struct<VkPipelineShaderStageCreateInfo>(
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
    ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    ci.stage.module = module;
    ci.stage.pName = k.entry_point.c_str();
    ci.stage.pSpecializationInfo = sp.entries.empty() ? nullptr : &spec;
    if (k.required_subgroup_size) {
        const auto [lo, hi] = subgroup_size_range(device);
        if (k.required_subgroup_size < lo || k.required_subgroup_size > hi)
            throw std::runtime_error(
                fmt::format("{}: requires subgroups of {}, device '{}' has sizes {} to {}", what,
                            k.required_subgroup_size, device.facts().name, lo, hi));
        subgroup.requiredSubgroupSize = k.required_subgroup_size;
        ci.stage.pNext = &subgroup;
    }
    const ReplayedPipelineFlags flags =
        replayed_pipeline_flags(k.pipeline_flags, device.pipeline_statistics());
    ci.flags = flags.flags;
    for (const std::string& why : flags.dropped)
        notes.push_back(fmt::format("{}: pipeline flag {}", what, why));
    ci.layout = layout;
    vk_check(vkCreateComputePipelines(device.handle(), VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline),
             (what + ": vkCreateComputePipelines").c_str());
}

// A dispatch whose workgroup counts the recorder could not read would run as no work at
// all, in every mode alike, so the comparison could not notice: the replay refuses it.
void refuse_unknown_workgroups(const ComputeGraph& graph) {
    if (graph.unknown_workgroups.empty()) return;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node& n = graph.nodes[i];
        const auto it = graph.unknown_workgroups.find(n.id);
        if (!n.is_dispatch() || it == graph.unknown_workgroups.end()) continue;
        const size_t others = graph.unknown_workgroups.size() - 1;
        const std::string kernel =
            n.kernel < graph.kernels.size() ? graph.kernels[n.kernel].name : "?";
        throw std::runtime_error(fmt::format(
            "{}, kernel '{}': its workgroup counts are unknown ({}), so the capture cannot be "
            "replayed{}",
            node_name(i, n), kernel, it->second,
            others ? fmt::format(" ({} more such dispatch{})", others, others == 1 ? "" : "es")
                   : ""));
    }
}

}  // namespace

bool is_foreign_graph(const ComputeGraph& graph) {
    return std::any_of(graph.kernels.begin(), graph.kernels.end(), [](const KernelInfo& k) {
        return !k.spirv.empty() || k.stage != kStageCompute;
    });
}

ForeignProgram::ForeignProgram(Device& device, DeviceMemory& memory, const ComputeGraph& graph)
    : device_(device), memory_(memory), graph_(graph) {
    refuse_unknown_workgroups(graph);
    pipelines_.resize(graph.kernels.size());
    try {
        for (KernelId id = 0; id < graph.kernels.size(); ++id) {
            const KernelInfo& k = graph.kernels[id];
            if (k.stage != kStageCompute) continue;
            if (k.spirv.empty())
                throw std::runtime_error(fmt::format(
                    "{}: the capture holds no SPIR-V for it (a kernel of GraphLens's own build "
                    "in a recorded program's capture cannot be replayed)",
                    kernel_name(id, k)));
            build_pipeline(id);
        }
        create_descriptor_pool();
        for (size_t i = 0; i < graph.nodes.size(); ++i) {
            const Node& n = graph.nodes[i];
            if (!n.is_dispatch()) continue;
            if (n.kernel >= graph.kernels.size())
                throw std::runtime_error(
                    fmt::format("{}: kernel {} does not exist", node_name(i, n), n.kernel));
            if (graph.kernels[n.kernel].stage == kStageCompute) {
                prepare_dispatch(i, n);
            } else {
                has_transfers_ = true;
                prepare_transfer(i, n);
            }
        }
    } catch (...) {
        release();
        throw;
    }
}

ForeignProgram::~ForeignProgram() {
    release();
}

void ForeignProgram::release() {
    VkDevice dev = device_.handle();
    auto destroy = [dev, pool = pool_, pipelines = std::move(pipelines_)] {
        if (pool) vkDestroyDescriptorPool(dev, pool, nullptr);
        for (const auto& p : pipelines) {
            if (!p) continue;
            vkDestroyPipeline(dev, p->pipeline, nullptr);
            vkDestroyPipelineLayout(dev, p->layout, nullptr);
            for (VkDescriptorSetLayout l : p->set_layouts)
                vkDestroyDescriptorSetLayout(dev, l, nullptr);
            vkDestroyShaderModule(dev, p->module, nullptr);
        }
    };
    // A cancelled replay's abandoned submissions may still bind these: destroyed after them.
    auto shared = std::make_shared<decltype(destroy)>(std::move(destroy));
    if (!device_.retired_work().defer([shared] { (*shared)(); })) (*shared)();
    pool_ = VK_NULL_HANDLE;
    pipelines_.clear();
    commands_.clear();
}

void ForeignProgram::build_pipeline(KernelId id) {
    const KernelInfo& k = graph_.kernels[id];
    const std::string what = kernel_name(id, k);
    check_spirv(k, what, device_.facts().api_version, notes_);
    if (spirv_uses_atomics(k.spirv)) atomic_kernels_.push_back(k.name);
    VkDevice dev = device_.handle();
    // Owned by pipelines_ before anything is made, so release() destroys what a failure left.
    auto p = std::make_unique<Pipeline>();
    Pipeline& pipe = *p;
    pipelines_[id] = std::move(p);

    create_shader_module(dev, k, what, pipe.module);
    create_set_layouts(dev, k, id, what, pipe.set_layouts);
    pipe.push_constant_size = push_constant_bytes(graph_, id, k);
    create_pipeline_layout(dev, pipe.set_layouts, pipe.push_constant_size, what, pipe.layout);
    create_compute_pipeline(device_, k, what, pipe.module, pipe.layout, notes_, pipe.pipeline);
}

void ForeignProgram::create_descriptor_pool() {
    uint32_t sets = 0, storage = 0, uniform = 0;
    for (const Node& n : graph_.nodes) {
        if (!n.is_dispatch() || n.kernel >= graph_.kernels.size() || !pipelines_[n.kernel])
            continue;
        sets += static_cast<uint32_t>(pipelines_[n.kernel]->set_layouts.size());
        for (const auto& b : graph_.kernels[n.kernel].bindings)
            (b.descriptor == DescriptorKind::uniform_buffer ? uniform : storage) += 1;
    }
    const VkDescriptorPoolSize sizes[] = {
        {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(storage, 1u)},
        {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, std::max(uniform, 1u)}};
    VkDescriptorPoolCreateInfo pi =
        vk_struct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
    pi.maxSets = std::max(sets, 1u);
    pi.poolSizeCount = 2;
    pi.pPoolSizes = sizes;
    vk_check(vkCreateDescriptorPool(device_.handle(), &pi, nullptr, &pool_),
             "vkCreateDescriptorPool (the recorded program's descriptor sets)");
}

void ForeignProgram::prepare_dispatch(size_t index, const Node& n) {
    const KernelInfo& k = graph_.kernels[n.kernel];
    const Pipeline& pipe = *pipelines_[n.kernel];
    const std::string what = node_name(index, n);
    if (!n.ranges_known)
        throw std::runtime_error(fmt::format(
            "{}: the recorder could not say what {} binds (the capture's notes say why), so it "
            "cannot be replayed",
            what, k.name));
    // Descriptor sets left unwritten would make the kernel read and write whatever the driver
    // finds there. The layer states an indirect dispatch (its arguments are a read no binding
    // covers) and a dispatch of a kernel with descriptor arrays by their ranges, without bindings.
    if (n.bindings.empty() && !k.bindings.empty())
        throw std::runtime_error(fmt::format(
            "{}: the capture states no buffers bound to {}, which declares {} binding(s) (an "
            "indirect dispatch, or a kernel with descriptor arrays, is recorded by its byte ranges "
            "only), so it cannot be replayed",
            what, k.name, k.bindings.size()));
    auto c = std::make_unique<Command>();
    c->pipeline = &pipe;
    c->push_constants.assign(n.push_constants.begin(), n.push_constants.end());
    c->workgroups = n.workgroups;
    c->label = std::string(n.label);
    c->sets.resize(pipe.set_layouts.size());
    if (!c->sets.empty()) {
        VkDescriptorSetAllocateInfo ai =
            vk_struct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
        ai.descriptorPool = pool_;
        ai.descriptorSetCount = static_cast<uint32_t>(c->sets.size());
        ai.pSetLayouts = pipe.set_layouts.data();
        vk_check(vkAllocateDescriptorSets(device_.handle(), &ai, c->sets.data()),
                 (what + ": vkAllocateDescriptorSets").c_str());
    }
    const auto& facts = device_.facts();
    std::vector<VkDescriptorBufferInfo> infos(n.bindings.size());
    std::vector<VkWriteDescriptorSet> writes;
    for (size_t b = 0; b < n.bindings.size(); ++b) {
        const BoundView& bv = static_cast<const Node&>(n).bindings[b];
        const KernelBinding* kb = k.find_binding(bv.set, bv.binding);
        if (!kb || bv.set >= c->sets.size())
            throw std::runtime_error(
                fmt::format("{}: binds (set {}, binding {}), which {} does "
                            "not declare",
                            what, bv.set, bv.binding, k.name));
        const TensorView& v = bv.view;
        if (v.allocation >= memory_.allocation_count() ||
            v.offset + v.size > memory_.info(v.allocation).size)
            throw std::runtime_error(
                fmt::format("{}: binding (set {}, binding {}) leaves "
                            "allocation {}",
                            what, bv.set, bv.binding, v.allocation));
        if (facts.storage_offset_alignment && v.offset % facts.storage_offset_alignment != 0 &&
            kb->descriptor == DescriptorKind::storage_buffer)
            throw std::runtime_error(fmt::format(
                "{}: binding (set {}, binding {}) at offset {} of allocation {} '{}' breaks "
                "device '{}''s storage-buffer offset alignment {}",
                what, bv.set, bv.binding, v.offset, v.allocation, memory_.info(v.allocation).name,
                facts.name, facts.storage_offset_alignment));
        infos[b] = {memory_.buffer(v.allocation).buffer, v.offset, v.size};
        VkWriteDescriptorSet w =
            vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
        w.dstSet = c->sets[bv.set];
        w.dstBinding = bv.binding;
        w.descriptorCount = 1;
        w.descriptorType = descriptor_type(k, n.kernel, *kb);
        w.pBufferInfo = &infos[b];
        writes.push_back(w);
    }
    vkUpdateDescriptorSets(device_.handle(), static_cast<uint32_t>(writes.size()), writes.data(), 0,
                           nullptr);
    commands_.emplace(n.id, std::move(c));
}

void ForeignProgram::prepare_transfer(size_t index, const Node& n) {
    const KernelInfo& k = graph_.kernels[n.kernel];
    const std::string what = node_name(index, n);
    if (!n.ranges_known)
        throw std::runtime_error(
            fmt::format("{}: the recorder could not say what {} touches, so it cannot be replayed",
                        what, k.name));
    const Node& cn = n;
    auto c = std::make_unique<Command>();
    c->label = std::string(n.label);
    auto buffer = [&](AllocationId a) { return memory_.buffer(a).buffer; };
    if (k.name == "vkCmdCopyBuffer" || k.name == "vkCmdCopyBuffer2") {
        c->kind = Command::Kind::copy;
        if (cn.reads.size() != cn.writes.size())
            throw std::runtime_error(
                fmt::format("{}: a copy with {} source and {} destination ranges", what,
                            cn.reads.size(), cn.writes.size()));
        for (size_t r = 0; r < cn.reads.size(); ++r) {
            const ByteRange& src = cn.reads[r];
            const ByteRange& dst = cn.writes[r];
            if (src.size() != dst.size())
                throw std::runtime_error(
                    fmt::format("{}: copy region {} reads {} bytes but writes {}", what, r,
                                src.size(), dst.size()));
            c->regions.push_back({buffer(src.allocation), buffer(dst.allocation),
                                  VkBufferCopy{src.begin, dst.begin, src.size()}});
        }
    } else if (k.name == "vkCmdFillBuffer" || k.name == "vkCmdUpdateBuffer") {
        if (cn.writes.size() != 1)
            throw std::runtime_error(
                fmt::format("{}: {} with {} ranges, expected 1", what, k.name, cn.writes.size()));
        const ByteRange& dst = cn.writes[0];
        c->regions.push_back(
            {VK_NULL_HANDLE, buffer(dst.allocation), VkBufferCopy{0, dst.begin, dst.size()}});
        if (k.name == "vkCmdFillBuffer") {
            c->kind = Command::Kind::fill;
            if (cn.push_constants.size() == 4) {
                std::memcpy(&c->fill_value, cn.push_constants.data(), 4);
            } else {
                const std::string note =
                    "vkCmdFillBuffer's value is not in the capture (recorded by a layer that "
                    "did not keep it): the replay fills 0";
                if (std::find(notes_.begin(), notes_.end(), note) == notes_.end())
                    notes_.push_back(note);
            }
        } else {
            c->kind = Command::Kind::update;
            if (cn.push_constants.size() != dst.size())
                throw std::runtime_error(fmt::format(
                    "{}: vkCmdUpdateBuffer's {} bytes are not in the capture (the layer keeps "
                    "up to 4096)",
                    what, dst.size()));
            c->update_data.assign(cn.push_constants.begin(), cn.push_constants.end());
        }
    } else {
        throw std::runtime_error(
            fmt::format("{}: '{}' is a command replay does not know", what, k.name));
    }
    commands_.emplace(n.id, std::move(c));
}

}  // namespace graphlens
