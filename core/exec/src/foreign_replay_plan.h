#pragma once
// How each ForeignMode runs a recorded graph: which graph (the capture, or a reorder of it),
// which barriers, and how its nodes split into command buffers and submissions.
#include <cstddef>
#include <vector>

#include "graphlens/exec/foreign_replay.h"

namespace graphlens {

enum class ForeignBarriers : uint8_t {
    recorded,            ///< the program's barrier nodes with their scopes
    recorded_no_submit,  ///< the same, except those standing for a submission boundary (the
                         ///< boundary itself orders)
    planned,             ///< the plan's barrier nodes, each a full barrier
    every_command,       ///< a full barrier between every two commands
    recompute,           ///< a full barrier where byte ranges conflict with the open group
    none,                ///< none in a buffer (per-op-submit: the waits order)
};

/// Nodes [first, last) of the plan's graph in one command buffer.
struct ForeignSegment {
    size_t first = 0, last = 0;
    bool timestamps = true;
};

/// How a plan's segments become command buffers and submissions.
enum class ForeignSubmission : uint8_t {
    /// each segment a primary buffer of its own (ForeignPlan::wait_between says how they are
    /// submitted)
    buffers,
    /// the segments recorded at once by `threads` threads into secondary buffers, run in order
    /// by one primary buffer, which records a full barrier between two where the plan has one
    parallel,
    /// one segment; a timed loop records step i + 1 while step i runs
    ahead,
};

struct ForeignPlan {
    ForeignMode mode = ForeignMode::as_recorded;
    ComputeGraph graph;
    ForeignBarriers barriers = ForeignBarriers::recorded;
    std::vector<ForeignSegment> segments;
    /// Each buffer is waited for before the next is recorded (GPU time: the sum of the
    /// buffers'); else all are submitted as they are recorded and a full barrier ends each
    /// one but the last (GPU time: first start to last end).
    bool wait_between = false;
    ForeignSubmission submission = ForeignSubmission::buffers;
    size_t threads = 1;  ///< parallel: recording threads, the caller's included
};

ForeignPlan plan_foreign_mode(const ComputeGraph& captured, ForeignMode mode,
                              const ForeignRunOptions& options);

}  // namespace graphlens
