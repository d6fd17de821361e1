// Reflection of embedded SPIR-V through the spirv-cross C API.
#include "graphlens/vulkan/kernel_catalog.h"

#include <fmt/format.h>
#include <spirv_cross/spirv_cross_c.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>

#include "graphlens/vulkan/embedded_kernels.h"

namespace graphlens {

uint64_t spirv_hash(std::span<const uint32_t> spirv) {
    uint64_t h = 1469598103934665603ull;
    for (uint32_t w : spirv)
        for (int i = 0; i < 4; ++i) {
            h ^= (w >> (8 * i)) & 0xffu;
            h *= 1099511628211ull;
        }
    return h;
}

namespace {

struct ContextDeleter {
    void operator()(spvc_context_s* c) const { spvc_context_destroy(c); }
};

void check(spvc_result r, spvc_context ctx, std::string_view kernel, const char* what) {
    if (r != SPVC_SUCCESS)
        throw std::runtime_error(fmt::format("kernel '{}': SPIR-V reflection failed in {}: {}",
                                             kernel, what,
                                             spvc_context_get_last_error_string(ctx)));
}

// The push-constant block's declared size, 0 without one.
uint32_t reflect_push_constant_size(spvc_compiler comp, spvc_resources res, spvc_context ctx,
                                    std::string_view name) {
    const spvc_reflected_resource* list = nullptr;
    size_t count = 0;
    check(spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_PUSH_CONSTANT, &list,
                                                    &count),
          ctx, name, "push constants");
    if (count == 0) return 0;
    size_t size = 0;
    spvc_type type = spvc_compiler_get_type_handle(comp, list[0].base_type_id);
    check(spvc_compiler_get_declared_struct_size(comp, type, &size), ctx, name,
          "push constant size");
    return static_cast<uint32_t>(size);
}

// Descriptors other than storage buffers would need a different binding model.
void reject_other_descriptors(spvc_resources res, spvc_context ctx, std::string_view name) {
    const spvc_reflected_resource* list = nullptr;
    size_t count = 0;
    for (auto t : {SPVC_RESOURCE_TYPE_UNIFORM_BUFFER, SPVC_RESOURCE_TYPE_STORAGE_IMAGE,
                   SPVC_RESOURCE_TYPE_SAMPLED_IMAGE, SPVC_RESOURCE_TYPE_SEPARATE_IMAGE}) {
        check(spvc_resources_get_resource_list_for_type(res, t, &list, &count), ctx, name,
              "resources");
        if (count > 0)
            throw std::runtime_error(
                fmt::format("kernel '{}': resource '{}' is not a storage buffer; GraphLens kernels "
                            "bind storage buffers only",
                            name, list[0].name));
    }
}

// readonly/writeonly on a block land either on the variable or on every member.
bool block_decorated(spvc_compiler comp, const spvc_reflected_resource& r, SpvDecoration dec) {
    if (spvc_compiler_has_decoration(comp, r.id, dec)) return true;
    spvc_type type = spvc_compiler_get_type_handle(comp, r.base_type_id);
    const unsigned members = spvc_type_get_num_member_types(type);
    if (members == 0) return false;
    for (unsigned m = 0; m < members; ++m)
        if (!spvc_compiler_has_member_decoration(comp, r.base_type_id, m, dec)) return false;
    return true;
}

// One storage buffer of set 0: its binding, name and access.
KernelBinding reflect_storage_buffer(spvc_compiler comp, const spvc_reflected_resource& r,
                                     std::string_view name) {
    const unsigned set = spvc_compiler_get_decoration(comp, r.id, SpvDecorationDescriptorSet);
    if (set != 0)
        throw std::runtime_error(
            fmt::format("kernel '{}': buffer '{}' is in descriptor set {}; only set 0 is supported",
                        name, r.name, set));
    KernelBinding b;
    b.binding = spvc_compiler_get_decoration(comp, r.id, SpvDecorationBinding);
    b.name = r.name;
    const bool non_writable = block_decorated(comp, r, SpvDecorationNonWritable);
    const bool non_readable = block_decorated(comp, r, SpvDecorationNonReadable);
    if (non_writable && non_readable)
        throw std::runtime_error(
            fmt::format("kernel '{}': binding {} ('{}') is both readonly and writeonly", name,
                        b.binding, b.name));
    b.access = non_writable   ? BindingAccess::read
               : non_readable ? BindingAccess::write
                              : BindingAccess::read_write;
    return b;
}

// The storage buffers sorted by binding, each binding declared once.
std::vector<KernelBinding> reflect_storage_buffers(spvc_compiler comp, spvc_resources res,
                                                   spvc_context ctx, std::string_view name) {
    const spvc_reflected_resource* list = nullptr;
    size_t count = 0;
    check(spvc_resources_get_resource_list_for_type(res, SPVC_RESOURCE_TYPE_STORAGE_BUFFER, &list,
                                                    &count),
          ctx, name, "storage buffers");
    std::vector<KernelBinding> bindings;
    for (size_t i = 0; i < count; ++i)
        bindings.push_back(reflect_storage_buffer(comp, list[i], name));
    std::sort(bindings.begin(), bindings.end(),
              [](const KernelBinding& a, const KernelBinding& b) { return a.binding < b.binding; });
    for (size_t i = 1; i < bindings.size(); ++i)
        if (bindings[i].binding == bindings[i - 1].binding)
            throw std::runtime_error(
                fmt::format("kernel '{}': binding {} declared twice", name, bindings[i].binding));
    return bindings;
}

}  // namespace

KernelInfo reflect_kernel(std::string_view name, std::span<const uint32_t> spirv) {
    spvc_context raw = nullptr;
    if (spvc_context_create(&raw) != SPVC_SUCCESS)
        throw std::runtime_error("spirv-cross: cannot create context");
    std::unique_ptr<spvc_context_s, ContextDeleter> ctx(raw);
    spvc_parsed_ir ir = nullptr;
    check(spvc_context_parse_spirv(raw, spirv.data(), spirv.size(), &ir), raw, name, "parse");
    spvc_compiler comp = nullptr;
    // TAKE_OWNERSHIP: the IR belongs to the compiler (and to the context).
    check(spvc_context_create_compiler(raw, SPVC_BACKEND_NONE, ir, SPVC_CAPTURE_MODE_TAKE_OWNERSHIP,
                                       &comp),
          raw, name, "create_compiler");

    KernelInfo info;
    info.name = std::string(name);
    info.spirv_hash = spirv_hash(spirv);

    const spvc_entry_point* eps = nullptr;
    size_t n_eps = 0;
    check(spvc_compiler_get_entry_points(comp, &eps, &n_eps), raw, name, "entry points");
    if (n_eps == 0)
        throw std::runtime_error(fmt::format("kernel '{}': SPIR-V has no entry point", name));
    info.entry_point = eps[0].name;
    for (uint32_t d = 0; d < 3; ++d)
        info.local_size[d] =
            spvc_compiler_get_execution_mode_argument_by_index(comp, SpvExecutionModeLocalSize, d);

    spvc_resources res = nullptr;
    check(spvc_compiler_create_shader_resources(comp, &res), raw, name, "resources");
    info.push_constant_size = reflect_push_constant_size(comp, res, raw, name);
    reject_other_descriptors(res, raw, name);
    info.bindings = reflect_storage_buffers(comp, res, raw, name);
    return info;
}

namespace {

// Why two reflections cannot share a pipeline layout and a recorded dispatch; empty if they can.
std::string interface_difference(const KernelInfo& a, const KernelInfo& b) {
    if (a.entry_point != b.entry_point) return "entry point";
    if (a.local_size != b.local_size) return "local size";
    if (a.push_constant_size != b.push_constant_size) return "push-constant size";
    if (a.bindings.size() != b.bindings.size()) return "number of bindings";
    for (size_t i = 0; i < a.bindings.size(); ++i)
        if (a.bindings[i].binding != b.bindings[i].binding ||
            a.bindings[i].access != b.bindings[i].access)
            return fmt::format("binding {} ({} against {})", a.bindings[i].binding,
                               binding_access_name(a.bindings[i].access),
                               binding_access_name(b.bindings[i].access));
    return {};
}

}  // namespace

KernelCatalog KernelCatalog::from_modules(std::span<const EmbeddedKernel> modules) {
    KernelCatalog c;
    struct Twin {
        std::string module;  // <kernel>__tc<tag>
        std::span<const uint32_t> spirv, reflect;
    };
    std::vector<Twin> twins;
    auto twin = [&](std::string_view module) -> Twin& {
        for (auto& t : twins)
            if (t.module == module) return t;
        return twins.emplace_back(Twin{std::string(module), {}, {}});
    };
    for (const auto& k : modules) {
        std::span<const uint32_t> words(k.words, k.word_count);
        const std::string_view name = k.name;
        if (name.find(kTensorCoreSuffix) == std::string_view::npos)
            c.entries_.push_back({reflect_kernel(name, words), words, {}});
        else if (name.ends_with(kTensorCoreReflectSuffix))
            twin(name.substr(0, name.size() - kTensorCoreReflectSuffix.size())).reflect = words;
        else
            twin(name).spirv = words;
    }
    std::sort(c.entries_.begin(), c.entries_.end(),
              [](const Entry& a, const Entry& b) { return a.info.name < b.info.name; });
    for (const Twin& t : twins) {
        if (t.spirv.empty() || t.reflect.empty())
            throw std::runtime_error(
                fmt::format("tensor-core kernel '{}': {} is not embedded", t.module,
                            t.spirv.empty() ? "the module itself" : "its reflection twin"));
        const size_t at = t.module.find(kTensorCoreSuffix);
        const std::string base = t.module.substr(0, at);
        std::string tag = t.module.substr(at + kTensorCoreSuffix.size());
        auto it =
            std::lower_bound(c.entries_.begin(), c.entries_.end(), base,
                             [](const Entry& e, const std::string& n) { return e.info.name < n; });
        if (it == c.entries_.end() || it->info.name != base)
            throw std::runtime_error(fmt::format(
                "tensor-core kernel '{}': no kernel '{}' to stand in for", t.module, base));
        KernelInfo info = reflect_kernel(t.module, t.reflect);
        if (const std::string why = interface_difference(it->info, info); !why.empty())
            throw std::runtime_error(
                fmt::format("tensor-core kernel '{}': its interface differs from '{}' in {}",
                            t.module, base, why));
        info.spirv_hash = spirv_hash(t.spirv);
        it->tc.push_back({std::move(tag), t.spirv, std::move(info)});
    }
    for (Entry& e : c.entries_)
        std::sort(e.tc.begin(), e.tc.end(),
                  [](const TensorCoreTwin& a, const TensorCoreTwin& b) { return a.tag < b.tag; });
    return c;
}

const KernelCatalog& KernelCatalog::embedded() {
    static const KernelCatalog catalog = from_modules(embedded_kernels());
    return catalog;
}

const TensorCoreTwin* KernelCatalog::tensor_core_twin(std::string_view name,
                                                      std::string_view tag) const {
    const Entry* e = lookup(name);
    if (!e) return nullptr;
    const TensorCoreTwin* fallback = nullptr;
    for (const auto& t : e->tc) {
        if (t.tag == tag) return &t;
        if (t.tag.empty()) fallback = &t;
    }
    return fallback;
}

std::vector<std::string> KernelCatalog::tensor_core_kernels() const {
    std::vector<std::string> out;
    for (const auto& e : entries_)
        if (!e.tc.empty() && e.tc.front().tag.empty()) out.push_back(e.info.name);
    return out;
}

std::vector<std::string> KernelCatalog::tensor_core_tags() const {
    std::vector<std::string> out;
    for (const auto& e : entries_)
        for (const auto& t : e.tc)
            if (!t.tag.empty() && std::find(out.begin(), out.end(), t.tag) == out.end())
                out.push_back(t.tag);
    std::sort(out.begin(), out.end());
    return out;
}

const KernelCatalog::Entry* KernelCatalog::lookup(std::string_view name) const {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                               [](const Entry& e, std::string_view n) { return e.info.name < n; });
    return it != entries_.end() && it->info.name == name ? &*it : nullptr;
}

const KernelInfo* KernelCatalog::find(std::string_view name) const {
    const Entry* e = lookup(name);
    return e ? &e->info : nullptr;
}

const KernelInfo& KernelCatalog::get(std::string_view name) const {
    if (const KernelInfo* k = find(name)) return *k;
    throw std::out_of_range(
        fmt::format("unknown kernel '{}' (not among the {} embedded kernels)", name, size()));
}

std::span<const uint32_t> KernelCatalog::spirv(std::string_view name) const {
    const Entry* e = lookup(name);
    if (!e) throw std::out_of_range(fmt::format("unknown kernel '{}'", name));
    return e->spirv;
}

std::vector<std::string> KernelCatalog::names() const {
    std::vector<std::string> out;
    for (const auto& e : entries_) out.push_back(e.info.name);
    return out;
}

bool spirv_uses_integer_dot_product(std::span<const uint32_t> spirv) {
    // OpCapability (opcode 17) with DotProductInputAll (6016) .. DotProduct (6019); the
    // capabilities come first in a module, before any OpFunction (54).
    for (size_t i = 5; i < spirv.size();) {  // after the 5-word header
        const uint32_t words = spirv[i] >> 16, opcode = spirv[i] & 0xFFFFu;
        if (words == 0 || opcode == 54) break;
        if (opcode == 17 && i + 1 < spirv.size() && spirv[i + 1] >= 6016 && spirv[i + 1] <= 6019)
            return true;
        i += words;
    }
    return false;
}

}  // namespace graphlens
