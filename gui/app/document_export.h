#pragma once
// Writing the document in each export format, without widgets, so the worker thread can do it
// (a capture or a report of a 100k-dispatch document is seconds of copying and writing).
#include <QString>
#include <optional>

#include "graphlens/results/run_result.h"
#include "models/document.h"

namespace graphlens::gui {

/// Writes `doc` as "capture" (every stage and `run`), "html", "md", "csv", "json" (reports),
/// "dot" (the dependency graph of stage `stage`, repeated layers folded) or "trace" (`run` as
/// a Chrome trace). Throws with a message naming the file or the reason on failure.
void write_document(const Document& doc, const std::optional<RunResult>& run, int stage,
                    const QString& format, const QString& path);

}  // namespace graphlens::gui
