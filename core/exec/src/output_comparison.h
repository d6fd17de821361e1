#pragma once
// The bytes a graph leaves behind and their comparison between two execution modes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/results/run_result.h"

namespace graphlens {

class DeviceMemory;

/// One range a dispatch writes, with the dtype of the binding that writes it.
struct WrittenView {
    ByteRange range;
    DType dtype = DType::u8;
};

/// The bytes whose final values two schedules of one graph must agree on, as pieces with the
/// dtype of the binding that last wrote them. A byte is compared by its LAST writer in
/// `reference`: it is left out only when that writer was absorbed into a fused dispatch of
/// `other` that no longer writes the byte (a dead intermediate: fused kernels keep it in
/// registers). Every other written byte is compared, including bytes that `other` leaves to a
/// different last writer, so a reorder that breaks write-after-write order is caught.
std::vector<WrittenView> comparable_outputs(const ComputeGraph& reference,
                                            const ComputeGraph& other);

struct OutputSnapshot {
    std::vector<WrittenView> views;
    std::vector<std::vector<uint8_t>> bytes;  ///< one per view
};

OutputSnapshot read_outputs(DeviceMemory& memory, const std::vector<WrittenView>& views);

struct Comparison {
    bool match = true;
    bool bitwise = true;
    double max_rel_err = 0;
    std::string text;  ///< "bitwise", "within tolerance (...)", or the first difference
    /// The first difference, with the dispatch of `graph` (in its order: the serial one)
    /// that writes its byte last.
    std::optional<OutputMismatch> first_difference;
};

/// Compares `mode` with `reference` over the pieces of `mode`; each must lie inside one piece
/// of `reference` (true when both come from comparable_outputs of the same reference graph). exact:
/// any differing byte is a mismatch; else f32/f16 within tolerance.
Comparison compare_outputs(const ComputeGraph& graph, const OutputSnapshot& reference,
                           const OutputSnapshot& mode, bool exact, double rel_tol, double abs_tol);

}  // namespace graphlens
