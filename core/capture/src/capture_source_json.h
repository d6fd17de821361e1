#pragma once
// The "source" section of a capture (format version 2): where a program recorded by the
// capture layer comes from, which of its submissions the graph holds, and what the recorder
// could not follow.
#include "capture/src/capture_json.h"
#include "capture/src/json_fields.h"
#include "graphlens/capture/capture_file.h"

namespace graphlens::capture_detail {

/// Every field, defaults included: a source section is rare and read by people.
Json capture_source_json(const CaptureSource& source);
/// Submissions must cover nodes of `graph` in order; a note's node must be one of its
/// dispatch ids.
CaptureSource read_capture_source(const JsonRef& v, const Path& p, const ComputeGraph& graph);

}  // namespace graphlens::capture_detail
