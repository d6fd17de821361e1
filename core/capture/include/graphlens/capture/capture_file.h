#pragma once
// Capture files: a ComputeGraph with the device it was recorded on, optionally the pass
// pipeline's snapshots and the timings of a run, as one versioned JSON document.
// The format is specified field by field in docs/capture-format.md (JSON Schema:
// docs/capture-format.schema.json), so other engines can write captures GraphLens loads.
//
// Guarantees:
//  - save → load → save is byte-identical (the writer is deterministic and the loader keeps
//    every field the writer emits);
//  - the loader validates everything (types, ids, ranges inside allocations, counts and sizes
//    bounded, known version, reads/writes consistent with bindings) and either returns a
//    complete document or throws CaptureError; it never returns a partial graph and never
//    crashes on hostile input (it is fuzzed: tests/fuzz/).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/results/run_result.h"
#include "graphlens/graph/snapshot.h"

namespace graphlens {

/// The format version this build writes. Version 2 adds what recorded programs need (their
/// kernels' SPIR-V, descriptor sets, barrier scopes, transfer commands, the capture's
/// source); version 1 files still load.
inline constexpr uint32_t kCaptureFormatVersion = 2;
inline constexpr uint32_t kOldestCaptureFormatVersion = 1;
/// Value of the top-level "format" field, so a capture is recognisable without its name.
inline constexpr std::string_view kCaptureFormatName = "graphlens-capture";

/// Facts about the device a capture was recorded (or run) on, as stored in the file. Plain
/// values (no Vulkan types; the vulkan layer's DeviceFacts converts to it with
/// graphlens::capture_device_from in graphlens/exec/capture_device.h); every field may stay
/// empty/zero (foreign engines, CPU-only captures).
struct CaptureDevice {
    std::string name;         ///< VkPhysicalDeviceProperties::deviceName
    std::string driver;       ///< driver name and version, e.g. "NVIDIA 580.159" or "Mesa 22.3.6"
    std::string api_version;  ///< Vulkan API version, e.g. "1.3.255"
    std::string type;         ///< "discrete", "integrated", "virtual", "cpu", "other" or empty
    uint32_t vendor_id = 0;
    uint32_t device_id = 0;
    double timestamp_period_ns = 0;     ///< nanoseconds per timestamp tick
    uint32_t timestamp_valid_bits = 0;  ///< of the compute queue family
    uint32_t subgroup_size = 0;
    std::vector<std::string> extensions;  ///< the relevant enabled extensions, sorted
    friend bool operator==(const CaptureDevice&, const CaptureDevice&) = default;
};

/// One queue submission of a recorded program, in the order the program submitted them.
/// Its commands are nodes [first_node, end_node) of the capture's graph.
struct CaptureSubmission {
    uint32_t index = 0;  ///< the program's queue submission index (0 = its first vkQueueSubmit)
    uint32_t queue_family = 0;
    uint32_t queue_index = 0;
    uint64_t first_node = 0;
    uint64_t end_node = 0;
    /// How the program ordered it after the previous one: "host wait", "semaphore", or
    /// "none" (nothing orders the two: a hazard between them is a race).
    std::string sync;
    friend bool operator==(const CaptureSubmission&, const CaptureSubmission&) = default;
};

/// Something the recorder could not follow, once per kind and place: the capture says it
/// instead of guessing (a node whose ranges are unknown names why here).
struct CaptureNote {
    std::optional<NodeId> node;  ///< the dispatch it concerns, if one
    std::string text;
    friend bool operator==(const CaptureNote&, const CaptureNote&) = default;
};

/// Where a capture recorded through the capture layer (`graphlens-cli record`) comes from.
/// Absent for GraphLens's own captures.
struct CaptureSource {
    std::string program;  ///< the executable as started
    std::vector<std::string> arguments;
    std::string working_directory;
    /// Which work was captured, in the terms the user gave: "first submission with a
    /// dispatch", "submits 2..3", "label decode", "dispatches 100..199".
    std::string range;
    std::string layer_version;                     ///< the capture layer that recorded it
    std::vector<std::string> instance_extensions;  ///< enabled by the program, sorted
    std::vector<std::string> device_extensions;    ///< enabled by the program, sorted
    std::vector<std::string> features;             ///< enabled device features by name, sorted
    std::vector<CaptureSubmission> submissions;
    std::vector<CaptureNote> notes;
    friend bool operator==(const CaptureSource&, const CaptureSource&) = default;
};

struct CaptureDocument {
    uint32_t format_version = kCaptureFormatVersion;
    std::string generator;  ///< who wrote it, e.g. "graphlens 0.1.0"; free text
    CaptureDevice device;
    /// The graph as captured (or as a foreign engine states it). graph.metadata holds the
    /// workload facts ("model", "phase", ...).
    ComputeGraph graph;
    /// The pass pipeline's stages in order (first usually "captured"); empty = not stored.
    /// A snapshot's graph shares allocations/kernels/metadata with `graph` unless it differs
    /// (fusion adds kernels): the file stores them only where they differ.
    std::vector<Snapshot> snapshots;
    /// Timings of a run in one or more execution modes; absent = never run.
    std::optional<RunResult> run;
    /// Set for a program recorded by the capture layer.
    std::optional<CaptureSource> source;
};

/// Why a capture could not be loaded (or saved). `json_path` is a JSON Pointer (RFC 6901)
/// into the document, e.g. "/nodes/12/reads/0/end" ("" = the whole document); `expected`
/// says what the loader wanted there, e.g. "an unsigned integer <= 4096 (the size of
/// allocation 'kv')". what() is one line: "[file: ]<path>: expected <expected>[ (got ...)]".
class CaptureError : public std::runtime_error {
  public:
    CaptureError(std::string json_path, std::string expected, std::string got = {},
                 std::string file = {});
    const std::string& json_path() const { return json_path_; }
    const std::string& expected() const { return expected_; }
    const std::string& got() const { return got_; }    ///< what was found, may be empty
    const std::string& file() const { return file_; }  ///< empty when loaded from a string

  private:
    std::string json_path_, expected_, got_, file_;
};

/// Serialises a document. Deterministic: equal documents give equal bytes. The layout is
/// indented JSON with one node / allocation / kernel per line (diff-friendly). Throws
/// CaptureError when the document cannot be represented (a non-finite timing, an id out of
/// range), so a saved file always loads.
std::string save_capture_to_string(const CaptureDocument& doc);
/// Writes save_capture_to_string(doc) to `path` (via a temporary file renamed into place).
/// Throws CaptureError (file set) on an I/O error.
void save_capture(const CaptureDocument& doc, const std::filesystem::path& path);

/// Parses and validates a capture. Accepts any bytes (fuzzer entry point): returns a complete
/// document or throws CaptureError; no other exception escapes.
CaptureDocument load_capture_from_string(std::string_view text);
/// Reads `path` and loads it; CaptureError::file() names the file.
CaptureDocument load_capture(const std::filesystem::path& path);

/// Limits the loader enforces (documented in docs/capture-format.md). Generous for real
/// models, small enough that a hostile file cannot make the loader allocate without bound.
struct CaptureLimits {
    static constexpr uint64_t max_file_bytes = 2ull << 30;  ///< 2 GiB
    static constexpr uint64_t max_allocations = 1u << 20;
    static constexpr uint64_t max_allocation_bytes = 1ull << 48;  ///< 256 TiB
    static constexpr uint64_t max_kernels = 1u << 16;
    static constexpr uint64_t max_kernel_bindings = 64;
    static constexpr uint64_t max_nodes = 1u << 24;
    static constexpr uint64_t max_node_bindings = 64;
    static constexpr uint64_t max_node_ranges = 256;  ///< reads or writes per node
    static constexpr uint64_t max_origin = 1u << 16;  ///< ids per fused node
    static constexpr uint64_t max_push_constant_bytes = 4096;
    static constexpr uint64_t max_workgroups = (1ull << 31) - 1;  ///< per dimension
    static constexpr uint64_t max_local_size = 1u << 16;          ///< per dimension
    static constexpr uint64_t max_string_bytes = 1u << 16;
    static constexpr uint64_t max_snapshots = 64;
    static constexpr uint64_t max_list_items = 1u << 24;  ///< samples, diagnostics, timings, ...
    // Format version 2: what a program recorded by the capture layer brings.
    static constexpr uint64_t max_spirv_bytes = 16u << 20;         ///< per kernel, 16 MiB
    static constexpr uint64_t max_spirv_total_bytes = 256u << 20;  ///< per capture, 256 MiB
    static constexpr uint64_t max_specialization_constants = 256;  ///< per kernel
    static constexpr uint64_t max_barrier_scopes = 1u << 24;       ///< per graph
    static constexpr uint64_t max_scope_dependencies = 256;        ///< per barrier scope
    static constexpr uint64_t max_submissions = 1u << 20;
    static constexpr uint64_t max_notes = 1u << 16;
    static constexpr uint64_t max_arguments = 4096;   ///< program arguments
    static constexpr uint64_t max_extensions = 4096;  ///< per extension / feature list
};

}  // namespace graphlens
