#include "exec/src/output_comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "graphlens/graph/half_float.h"
#include "graphlens/vulkan/device_memory.h"

namespace graphlens {
namespace {

// One elementary piece of an allocation with the node that wrote it last.
struct FinalWrite {
    uint64_t end = 0;
    size_t node = 0;  // index into ComputeGraph::nodes
    DType dtype = DType::u8;
};
// Per allocation: piece begin -> final write, for the whole graph in its order.
using FinalWrites = std::map<AllocationId, std::map<uint64_t, FinalWrite>>;

// Paints [b, e) with `w`, splitting the pieces it partly covers.
void paint(std::map<uint64_t, FinalWrite>& pieces, uint64_t b, uint64_t e, FinalWrite w) {
    auto it = pieces.lower_bound(b);
    if (it != pieces.begin()) {
        auto prev = std::prev(it);
        if (prev->second.end > b) {  // split the piece that starts before b
            FinalWrite tail = prev->second;
            prev->second.end = b;
            it = pieces.emplace(b, tail).first;
        }
    }
    while (it != pieces.end() && it->first < e) {
        if (it->second.end > e) {  // keep the part after e
            FinalWrite tail = it->second;
            pieces.emplace(e, tail);
        }
        it = pieces.erase(it);
    }
    w.end = e;
    pieces.emplace(b, w);
}

FinalWrites final_writes(const ComputeGraph& g) {
    FinalWrites out;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& n = g.nodes[i];
        if (!n.is_dispatch() || n.kernel >= g.kernels.size()) continue;
        const KernelInfo& k = g.kernels[n.kernel];
        for (const auto& b : n.bindings) {
            const KernelBinding* kb = k.find_binding(b.binding);
            if (kb && !access_writes(kb->access)) continue;
            const ByteRange r = b.view.range();
            if (r.empty()) continue;
            paint(out[r.allocation], r.begin, r.end, {r.end, i, b.view.dtype});
        }
    }
    return out;
}

bool contains(const std::vector<NodeId>& ids, NodeId id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

double element(const uint8_t* p, DType t) {
    if (t == DType::f32) {
        float f;
        std::memcpy(&f, p, 4);
        return f;
    }
    uint16_t h;
    std::memcpy(&h, p, 2);
    return half_to_float(h);
}

size_t dtype_width(DType t) {
    return t == DType::f32 ? 4 : 2;
}

std::string allocation_name(const ComputeGraph& graph, AllocationId id) {
    return id < graph.allocations.size() ? graph.allocations[id].name : std::to_string(id);
}

// The dispatch of `graph` (serial order) that writes `byte` of `allocation` last, if any.
std::optional<NodeId> last_writer_of(const ComputeGraph& graph, AllocationId allocation,
                                     uint64_t byte) {
    for (size_t i = graph.nodes.size(); i-- > 0;) {
        const Node& n = graph.nodes[i];
        if (!n.is_dispatch()) continue;
        for (const ByteRange& w : n.writes)
            if (w.allocation == allocation && w.begin <= byte && byte < w.end) return n.id;
    }
    return std::nullopt;
}

// The mismatch with the dispatch that writes its byte last in `graph`'s order.
OutputMismatch with_last_writer(const ComputeGraph& graph, AllocationId allocation,
                                OutputMismatch m) {
    m.last_writer = last_writer_of(graph, allocation, m.byte);
    if (m.last_writer)
        for (const Node& n : graph.nodes)
            if (n.is_dispatch() && n.id == *m.last_writer)
                m.last_writer_label = std::string(n.label);
    return m;
}

// The first difference of a float piece, at element offset k of the piece.
OutputMismatch difference_at(const ComputeGraph& graph, const WrittenView& v, size_t k,
                             const std::vector<uint8_t>& expected,
                             const std::vector<uint8_t>& actual) {
    return with_last_writer(graph, v.range.allocation,
                            {allocation_name(graph, v.range.allocation),
                             v.range.begin + k,
                             fmt::format("{}", element(&expected[k], v.dtype)),
                             fmt::format("{}", element(&actual[k], v.dtype)),
                             std::nullopt,
                             {}});
}

// The first difference of a piece compared byte by byte.
OutputMismatch byte_difference_at(const ComputeGraph& graph, const WrittenView& v, size_t k,
                                  const std::vector<uint8_t>& expected,
                                  const std::vector<uint8_t>& actual) {
    return with_last_writer(graph, v.range.allocation,
                            {allocation_name(graph, v.range.allocation),
                             v.range.begin + k,
                             fmt::format("0x{:02x}", expected[k]),
                             fmt::format("0x{:02x}", actual[k]),
                             std::nullopt,
                             {}});
}

std::string location(const ComputeGraph& graph, const ByteRange& r, uint64_t byte) {
    const std::string name = r.allocation < graph.allocations.size()
                                 ? graph.allocations[r.allocation].name
                                 : std::to_string(r.allocation);
    return fmt::format("allocation '{}' byte {}", name, r.begin + byte);
}

using PieceIndex = std::map<std::pair<AllocationId, uint64_t>, size_t>;  // (allocation, begin)

PieceIndex index_pieces(const OutputSnapshot& snapshot) {
    PieceIndex index;
    for (size_t i = 0; i < snapshot.views.size(); ++i) {
        const auto& r = snapshot.views[i].range;
        index[{r.allocation, r.begin}] = i;
    }
    return index;
}

// The reference's bytes of `range`, from the reference piece holding it; nullopt when none does.
std::optional<std::vector<uint8_t>> reference_bytes(const OutputSnapshot& reference,
                                                    const PieceIndex& index,
                                                    const ByteRange& range) {
    auto it = index.upper_bound({range.allocation, range.begin});
    if (it == index.begin()) return std::nullopt;
    const ByteRange& outer = reference.views[(--it)->second].range;
    if (outer.allocation != range.allocation || outer.begin > range.begin || outer.end < range.end)
        return std::nullopt;
    const auto& whole = reference.bytes[it->second];
    const size_t skip = range.begin - outer.begin;
    return std::vector<uint8_t>(whole.begin() + static_cast<std::ptrdiff_t>(skip),
                                whole.begin() + static_cast<std::ptrdiff_t>(skip + range.size()));
}

// A piece compared exactly (bitwise, or a non-float piece byte by byte): its first difference.
void record_first_difference(const ComputeGraph& graph, const WrittenView& v,
                             const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                             bool exact, Comparison& c) {
    const bool floating = v.dtype == DType::f32 || v.dtype == DType::f16;
    size_t k = 0;
    while (k < a.size() && a[k] == b[k]) ++k;
    c.match = false;
    c.first_difference = floating ? difference_at(graph, v, k - k % dtype_width(v.dtype), a, b)
                                  : byte_difference_at(graph, v, k, a, b);
    c.text =
        fmt::format("differs from serial at {} ({} bytes compared {})", location(graph, v.range, k),
                    a.size(), exact ? "bitwise" : "as " + std::string(dtype_name(v.dtype)));
}

// The root mean square of a float piece's finite elements (0 when it has none).
double piece_rms(const std::vector<uint8_t>& bytes, DType dtype) {
    const size_t width = dtype_width(dtype);
    double sum_sq = 0;
    size_t counted = 0;
    for (size_t k = 0; k + width <= bytes.size(); k += width) {
        const double x = element(&bytes[k], dtype);
        if (std::isfinite(x)) sum_sq += x * x, ++counted;
    }
    return counted ? std::sqrt(sum_sq / static_cast<double>(counted)) : 0.0;
}

// A float piece compared element by element within tolerance: the largest relative error, or
// the first element beyond it. An element's error is judged against the larger of its own
// magnitude and the piece's RMS: a near-zero result of a long sum over large inputs (gemma's
// scaled embeddings) carries the rounding of those inputs, which a purely per-element relative
// test would call a difference; a wrong or stale value is off by about the RMS and still fails.
void compare_within_tolerance(const ComputeGraph& graph, const WrittenView& v,
                              const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                              double rel_tol, double abs_tol, Comparison& c) {
    const size_t width = dtype_width(v.dtype);
    const double rms = piece_rms(a, v.dtype);
    for (size_t k = 0; k + width <= a.size(); k += width) {
        const double x = element(&a[k], v.dtype), y = element(&b[k], v.dtype);
        if (std::isnan(x) && std::isnan(y)) continue;
        const double diff = std::fabs(x - y);
        const double scale = std::max({std::fabs(x), std::fabs(y), rms});
        const double rel = scale > 0 ? diff / scale : 0;
        if (!(diff <= abs_tol + rel_tol * scale)) {
            c.match = false;
            c.first_difference = difference_at(graph, v, k, a, b);
            c.text = fmt::format(
                "differs from serial beyond tolerance at {}: {} vs {} (error {:.3g} of "
                "max(|value|, piece RMS {:.3g}))",
                location(graph, v.range, k), x, y, rel, rms);
            return;
        }
        c.max_rel_err = std::max(c.max_rel_err, rel);
    }
}

}  // namespace

std::vector<WrittenView> comparable_outputs(const ComputeGraph& reference,
                                            const ComputeGraph& other) {
    const FinalWrites ref = final_writes(reference);
    const FinalWrites oth = final_writes(other);
    // Original dispatches that `other` absorbed into a fused dispatch.
    std::set<NodeId> absorbed;
    for (const Node& n : other.nodes)
        if (n.is_dispatch() && n.origin.size() > 1)
            absorbed.insert(n.origin.begin(), n.origin.end());
    // Pieces in the order their writers ran, so the first difference reported is the one the
    // earliest dispatch left behind.
    std::vector<std::pair<size_t, WrittenView>> out;
    for (const auto& [alloc, pieces] : ref) {
        const auto o = oth.find(alloc);
        for (const auto& [begin, w] : pieces) {
            const NodeId writer = reference.nodes[w.node].id;
            if (!absorbed.count(writer)) {
                out.push_back({w.node, {{alloc, begin, w.end}, w.dtype}});
                continue;
            }
            // Keep the parts whose last writer in `other` is the fused dispatch standing for
            // `writer`; the rest of the piece is a dead intermediate.
            if (o == oth.end()) continue;
            auto it = o->second.upper_bound(begin);
            if (it != o->second.begin()) --it;
            for (; it != o->second.end() && it->first < w.end; ++it) {
                const uint64_t b = std::max(begin, it->first), e = std::min(w.end, it->second.end);
                if (b < e && contains(other.nodes[it->second.node].origin, writer))
                    out.push_back({w.node, {{alloc, b, e}, w.dtype}});
            }
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<WrittenView> views;
    views.reserve(out.size());
    for (auto& [node, v] : out) views.push_back(v);
    return views;
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
    const PieceIndex ref_index = index_pieces(reference);
    for (size_t i = 0; i < mode.views.size() && c.match; ++i) {
        const WrittenView& v = mode.views[i];
        const std::optional<std::vector<uint8_t>> a =
            reference_bytes(reference, ref_index, v.range);
        if (!a) {
            c.match = false;
            c.text =
                fmt::format("{} was not part of the serial reference", location(graph, v.range, 0));
            break;
        }
        const auto& b = mode.bytes[i];
        if (*a == b) continue;
        c.bitwise = false;
        const bool floating = v.dtype == DType::f32 || v.dtype == DType::f16;
        if (exact || !floating) {
            record_first_difference(graph, v, *a, b, exact, c);
            break;
        }
        compare_within_tolerance(graph, v, *a, b, rel_tol, abs_tol, c);
    }
    if (c.match)
        c.text = c.bitwise ? "bitwise"
                           : fmt::format("within tolerance (max rel err {:.3g})", c.max_rel_err);
    return c;
}

}  // namespace graphlens
