#include "capture/src/barrier_scope_json.h"

#include <array>

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
Json bits_json(uint8_t bits, const std::array<BitName, N>& names) {
    Json a = Json::array();
    for (const auto& n : names)
        if (bits & n.bit) a.push_back(n.name);
    return a;
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
    f.only({"src_stages", "dst_stages", "src_access", "dst_access", "range"});
    MemoryDependency d;
    d.src_stages = read_bits(f, "src_stages", kStages, "pipeline stages");
    d.dst_stages = read_bits(f, "dst_stages", kStages, "pipeline stages");
    d.src_access = read_bits(f, "src_access", kAccesses, "memory accesses");
    d.dst_access = read_bits(f, "dst_access", kAccesses, "memory accesses");
    if (auto r = f.find("range")) d.range = read_range(*r, p / "range", allocations);
    return d;
}
}  // namespace

Json barrier_scope_json(const BarrierScope& scope) {
    Json j = Json::object();
    j["origin"] = barrier_origin_name(scope.origin);
    Json deps = Json::array();
    for (const auto& d : scope.dependencies) {
        Json jd = Json::object();
        jd["src_stages"] = bits_json(d.src_stages, kStages);
        jd["dst_stages"] = bits_json(d.dst_stages, kStages);
        jd["src_access"] = bits_json(d.src_access, kAccesses);
        jd["dst_access"] = bits_json(d.dst_access, kAccesses);
        if (d.range) {
            Json r = Json::object();
            r["allocation"] = d.range->allocation;
            r["begin"] = d.range->begin;
            r["end"] = d.range->end;
            jd["range"] = std::move(r);
        }
        deps.push_back(std::move(jd));
    }
    j["dependencies"] = std::move(deps);
    if (!scope.note.empty()) j["note"] = scope.note;
    return j;
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
