#include "capture/src/barrier_scope_json.h"

#include <array>

#include "capture/src/json_text.h"

namespace graphlens::capture_detail {

namespace {
using Limits = CaptureLimits;

struct BitName {
    uint8_t bit;
    std::string_view name;
};
constexpr std::array<BitName, 3> kStages{
    {{kStageCompute, "compute"}, {kStageTransfer, "transfer"}, {kStageHost, "host"}}};
constexpr std::array<BitName, 6> kAccesses{{{kAccessShaderRead, "shader_read"},
                                            {kAccessShaderWrite, "shader_write"},
                                            {kAccessTransferRead, "transfer_read"},
                                            {kAccessTransferWrite, "transfer_write"},
                                            {kAccessHostRead, "host_read"},
                                            {kAccessHostWrite, "host_write"}}};

template <size_t N>
void append_bits(std::string& out, uint8_t bits, const std::array<BitName, N>& names) {
    out += '[';
    bool first = true;
    for (const auto& n : names) {
        if (!(bits & n.bit)) continue;
        if (!first) out += ',';
        first = false;
        append_json_string(out, n.name);
    }
    out += ']';
}

/// A set of names, each once, as bits. Absent = the empty set.
template <size_t N>
uint8_t read_bits(const Fields& f, std::string_view key, const std::array<BitName, N>& names,
                  std::string_view what) {
    auto j = f.find(key);
    if (!j) return 0;
    const Path p = f.path() / key;
    const JsonRef a = as_array(*j, p, N, what);
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + std::string(n.name);
    uint8_t bits = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const std::string_view s = as_string(a[i], p[i]);
        const auto it =
            std::find_if(names.begin(), names.end(), [&](const BitName& n) { return n.name == s; });
        if (it == names.end()) fail(p[i], std::string(what) + ": one of " + list, a[i].describe());
        if (bits & it->bit) fail(p[i], "each name once", "\"" + std::string(s) + "\" again");
        bits |= it->bit;
    }
    return bits;
}

MemoryDependency read_dependency(const JsonRef& v, const Path& p,
                                 const std::vector<AllocationInfo>& allocations) {
    Fields f(v, p, "a memory dependency");
    f.only({"src_stages", "dst_stages", "src_access", "dst_access", "range", "event_set_at"});
    MemoryDependency d;
    d.src_stages = read_bits(f, "src_stages", kStages, "pipeline stages");
    d.dst_stages = read_bits(f, "dst_stages", kStages, "pipeline stages");
    d.src_access = read_bits(f, "src_access", kAccesses, "memory accesses");
    d.dst_access = read_bits(f, "dst_access", kAccesses, "memory accesses");
    if (auto r = f.find("range")) d.range = read_range(*r, p / "range", allocations);
    // Where it lies against the wait's own position is the graph's check (validate()).
    if (auto e = f.find("event_set_at"))
        d.event_set_at = static_cast<uint32_t>(
            as_u64(*e, p / "event_set_at", Limits::max_nodes, "a node position"));
    return d;
}
}  // namespace

void append_barrier_scope_text(std::string& out, const BarrierScope& scope) {
    ObjectText o(out);
    o.string("origin", barrier_origin_name(scope.origin));
    std::string& deps = o.key("dependencies");
    deps += '[';
    bool first = true;
    for (const auto& d : scope.dependencies) {
        if (!first) deps += ',';
        first = false;
        ObjectText jd(deps);
        append_bits(jd.key("src_stages"), d.src_stages, kStages);
        append_bits(jd.key("dst_stages"), d.dst_stages, kStages);
        append_bits(jd.key("src_access"), d.src_access, kAccesses);
        append_bits(jd.key("dst_access"), d.dst_access, kAccesses);
        if (d.range) {
            ObjectText r(jd.key("range"));
            r.number("allocation", d.range->allocation);
            r.number("begin", d.range->begin);
            r.number("end", d.range->end);
        }
        if (d.event_set_at) jd.number("event_set_at", *d.event_set_at);
    }
    deps += ']';
    if (!scope.note.empty()) o.string("note", scope.note);
}

BarrierScope read_barrier_scope(const JsonRef& v, const Path& p,
                                const std::vector<AllocationInfo>& allocations) {
    Fields f(v, p, "a barrier scope {origin, dependencies, note}");
    f.only({"origin", "dependencies", "note"});
    BarrierScope s;
    if (auto o = f.find("origin"))
        s.origin = as_enum<BarrierOrigin>(*o, p / "origin", "a barrier origin", 3,
                                          barrier_origin_from_name, barrier_origin_name);
    opt_list(f, "dependencies", Limits::max_scope_dependencies, "memory dependencies",
             s.dependencies,
             [&](const JsonRef& j, const Path& pd) { return read_dependency(j, pd, allocations); });
    opt_string(f, "note", s.note);
    return s;
}

}  // namespace graphlens::capture_detail
