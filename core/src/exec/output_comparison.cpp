#include "exec/output_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "graphlens/device_memory.h"
#include "graphlens/ggml_blocks.h"

namespace graphlens {
namespace {

std::vector<WrittenView> written_views(const ComputeGraph& g) {
    std::vector<WrittenView> out;
    std::set<std::tuple<AllocationId, uint64_t, uint64_t>> seen;
    for (const Node& n : g.nodes) {
        if (!n.is_dispatch() || n.kernel >= g.kernels.size()) continue;
        const KernelInfo& k = g.kernels[n.kernel];
        for (const auto& b : n.bindings) {
            const KernelBinding* kb = k.find_binding(b.binding);
            if (kb && !access_writes(kb->access)) continue;
            const ByteRange r = b.view.range();
            if (r.empty() || !seen.insert({r.allocation, r.begin, r.end}).second) continue;
            out.push_back({r, b.view.dtype});
        }
    }
    return out;
}

// Merged write intervals per allocation.
std::map<AllocationId, std::vector<std::pair<uint64_t, uint64_t>>> write_union(
    const ComputeGraph& g) {
    std::map<AllocationId, std::vector<std::pair<uint64_t, uint64_t>>> u;
    for (const auto& v : written_views(g))
        u[v.range.allocation].push_back({v.range.begin, v.range.end});
    for (auto& [id, list] : u) {
        std::sort(list.begin(), list.end());
        std::vector<std::pair<uint64_t, uint64_t>> merged;
        for (const auto& iv : list) {
            if (!merged.empty() && iv.first <= merged.back().second)
                merged.back().second = std::max(merged.back().second, iv.second);
            else
                merged.push_back(iv);
        }
        list = std::move(merged);
    }
    return u;
}

bool covered(const std::map<AllocationId, std::vector<std::pair<uint64_t, uint64_t>>>& u,
             const ByteRange& r) {
    const auto it = u.find(r.allocation);
    if (it == u.end()) return false;
    for (const auto& [b, e] : it->second)
        if (b <= r.begin && r.end <= e) return true;
    return false;
}

double element(const uint8_t* p, DType t) {
    if (t == DType::f32) {
        float f;
        std::memcpy(&f, p, 4);
        return f;
    }
    uint16_t h;
    std::memcpy(&h, p, 2);
    return ggml::half_to_float(h);
}

}  // namespace

std::vector<WrittenView> comparable_outputs(const ComputeGraph& reference,
                                            const ComputeGraph& other) {
    const auto u = write_union(other);
    std::vector<WrittenView> out;
    for (const auto& v : written_views(reference))
        if (covered(u, v.range)) out.push_back(v);
    return out;
}

OutputSnapshot read_outputs(DeviceMemory& memory, const std::vector<WrittenView>& views) {
    OutputSnapshot s;
    s.views = views;
    for (const auto& v : views)
        s.bytes.push_back(memory.download(v.range.allocation, v.range.begin, v.range.size()));
    return s;
}

Comparison compare_outputs(const ComputeGraph& graph, const OutputSnapshot& reference,
                           const OutputSnapshot& mode, bool exact, double rel_tol, double abs_tol) {
    Comparison c;
    std::map<std::tuple<AllocationId, uint64_t, uint64_t>, size_t> ref_index;
    for (size_t i = 0; i < reference.views.size(); ++i) {
        const auto& r = reference.views[i].range;
        ref_index[{r.allocation, r.begin, r.end}] = i;
    }
    auto where = [&](const ByteRange& r, uint64_t byte) {
        const std::string name = r.allocation < graph.allocations.size()
                                     ? graph.allocations[r.allocation].name
                                     : std::to_string(r.allocation);
        return fmt::format("allocation '{}' byte {}", name, r.begin + byte);
    };
    for (size_t i = 0; i < mode.views.size() && c.match; ++i) {
        const WrittenView& v = mode.views[i];
        const auto it = ref_index.find({v.range.allocation, v.range.begin, v.range.end});
        if (it == ref_index.end()) continue;
        const auto& a = reference.bytes[it->second];
        const auto& b = mode.bytes[i];
        if (a == b) continue;
        c.bitwise = false;
        const bool floating = v.dtype == DType::f32 || v.dtype == DType::f16;
        if (exact || !floating) {
            size_t k = 0;
            while (k < a.size() && a[k] == b[k]) ++k;
            c.match = false;
            c.text =
                fmt::format("differs from serial at {} ({} bytes compared {})", where(v.range, k),
                            a.size(), exact ? "bitwise" : "as " + std::string(dtype_name(v.dtype)));
            break;
        }
        const size_t width = v.dtype == DType::f32 ? 4 : 2;
        for (size_t k = 0; k + width <= a.size(); k += width) {
            const double x = element(&a[k], v.dtype), y = element(&b[k], v.dtype);
            if (std::isnan(x) && std::isnan(y)) continue;
            const double diff = std::fabs(x - y);
            const double scale = std::max(std::fabs(x), std::fabs(y));
            const double rel = scale > 0 ? diff / scale : 0;
            if (!(diff <= abs_tol + rel_tol * scale)) {
                c.match = false;
                c.text = fmt::format(
                    "differs from serial beyond tolerance at {}: {} vs {} (rel err {:.3g})",
                    where(v.range, k), x, y, rel);
                break;
            }
            c.max_rel_err = std::max(c.max_rel_err, rel);
        }
    }
    if (c.match)
        c.text = c.bitwise ? "bitwise"
                           : fmt::format("within tolerance (max rel err {:.3g})", c.max_rel_err);
    return c;
}

}  // namespace graphlens
