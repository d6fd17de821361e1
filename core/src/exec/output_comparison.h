#pragma once
// The bytes a graph leaves behind and their comparison between two execution modes.
#include <cstdint>
#include <string>
#include <vector>

#include "graphlens/compute_graph.h"

namespace graphlens {

class DeviceMemory;

/// One range a dispatch writes, with the dtype of the binding that writes it.
struct WrittenView {
    ByteRange range;
    DType dtype = DType::u8;
};

/// Every range written by the dispatches of `reference` that `other` also writes (fusion
/// drops intermediates, which are then not compared), deduplicated.
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
};

/// Compares `mode` with `reference` over the views of `mode` (a subset of the reference's
/// views, by range). exact: any differing byte is a mismatch; else f32/f16 within tolerance.
Comparison compare_outputs(const ComputeGraph& graph, const OutputSnapshot& reference,
                           const OutputSnapshot& mode, bool exact, double rel_tol, double abs_tol);

}  // namespace graphlens
