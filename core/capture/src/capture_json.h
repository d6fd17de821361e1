#pragma once
// Private helpers shared by the capture writer and reader: the JSON type and the small
// encodings both sides must agree on (hex strings, default shapes, derived ranges).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/graph/compute_graph.h"

namespace graphlens::capture_detail {

/// Keys keep the order the writer emits them in, so files read like the documentation.
using Json = nlohmann::ordered_json;

std::string to_hex(const uint8_t* bytes, size_t n);
std::string u64_to_hex16(uint64_t v);

/// Elements of a rank-1 view of `size` bytes of `dtype` (whole blocks only): the shape the
/// loader assumes when a binding omits "shape".
int64_t default_elements(DType dtype, uint64_t size);

/// reads/writes a dispatch's bindings imply through its kernel's reflected access (an
/// undeclared binding counts as read-write, as in ComputeGraph::derive_ranges).
void derived_ranges(const KernelInfo& kernel, const std::vector<BoundView>& bindings,
                    std::vector<ByteRange>& reads, std::vector<ByteRange>& writes);

}  // namespace graphlens::capture_detail
