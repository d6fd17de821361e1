#pragma once
// The contents of a recorded program's buffers at the start of its captured range (`graphlens-cli
// record --data`), stored beside the capture as `<capture>.data`, so that a replay computes
// what the program computed. docs/capture-format.md ("Buffer contents") gives the layout:
//
//   "GLDATA01"                      8 bytes, the magic
//   entry count                     u32
//   per entry: allocation           u32 (an allocation id of the capture)
//              offset, size         u64, u64 (bytes of that allocation)
//              the bytes            size bytes
//
// little endian, entries in any order, their ranges inside their allocations and disjoint.
#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"

namespace graphlens {

struct BufferDataEntry {
    AllocationId allocation = 0;
    uint64_t offset = 0;
    std::vector<uint8_t> bytes;
};

struct BufferData {
    std::vector<BufferDataEntry> entries;
    uint64_t total_bytes() const;
};

/// Limits: a data file larger than this is refused by the reader (and never written by the
/// layer, which stops at GRAPHLENS_CAPTURE_DATA_LIMIT, default 4 GiB).
inline constexpr uint64_t kMaxBufferDataBytes = 64ull << 30;
inline constexpr uint32_t kMaxBufferDataEntries = 1u << 20;

/// `capture` with ".data" appended: where `record --data` writes the contents and `run` looks.
std::filesystem::path buffer_data_path(const std::filesystem::path& capture);

/// Writes `data` to `path` (via a temporary file renamed into place); throws
/// std::runtime_error naming the file on an I/O error.
void save_buffer_data(const BufferData& data, const std::filesystem::path& path);
/// The same into memory (the layer streams entries itself; tests build files from it).
std::vector<uint8_t> serialize_buffer_data(const BufferData& data);

/// Reads and checks a data file against the capture's graph. Throws std::runtime_error with
/// the file, the byte offset and what is wrong: a bad magic, a truncated entry ("truncated at
/// byte 4120: entry 2 (allocation 1 'kv') needs 65536 bytes, 1000 remain"), an unknown
/// allocation, a range outside its allocation, overlapping entries, trailing bytes.
BufferData load_buffer_data(const std::filesystem::path& path, const ComputeGraph& graph);
BufferData parse_buffer_data(std::span<const uint8_t> bytes, const ComputeGraph& graph,
                             const std::string& name);

}  // namespace graphlens
