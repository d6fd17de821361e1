#pragma once
// How GraphLens shows its values, shared by every view, the models and the tests: byte
// ranges, durations, node titles, colours (a colour-blind-safe palette) and TSV copies.
#include <QColor>
#include <QModelIndexList>
#include <QString>

#include "graphlens/graph/compute_graph.h"
#include "graphlens/graph/hazard.h"

class QAbstractItemModel;

namespace graphlens::gui {

struct Document;

QString formatBytes(uint64_t bytes);
/// "kv_cache [0x1000, 0x2000) 4 KiB" (allocation name, hex offsets, size).
QString formatRange(const ComputeGraph& graph, const ByteRange& range);
/// The allocation's name of a range (`alloc<N>` where the graph has none).
QString allocationName(const ComputeGraph& graph, const ByteRange& range);
/// "[0x..., 0x...) size": a range without its allocation.
QString formatInterval(const ByteRange& range);
QString formatRanges(const ComputeGraph& graph, const std::vector<ByteRange>& ranges);
/// "12.3 µs", "4.56 ms", "870 ns", "12.29 s" (from ten seconds).
QString formatDuration(double ns);
/// "#12 blk.3.attn_q" for a dispatch, "#13 barrier" for a barrier.
QString nodeTitle(const ComputeGraph& graph, size_t index);
/// A dispatch of the captured stage by its id, named as that stage's node table numbers it:
/// "#2 blk.0.attn_norm.mul" (fusions, mismatches and the core's diagnostics carry ids,
/// which count dispatches only; the table's # counts barriers too). "dispatch id 7" when
/// the captured stage is not there or has no such dispatch.
QString capturedDispatchName(const Document& document, NodeId id);
QString opName(OpKind op);
QString hazardName(HazardKind kind);

/// Okabe–Ito colours (distinguishable with the common colour-vision deficiencies), one per
/// family of op kinds: matmuls, attention, norms, element-wise, activations, rope, copies.
QColor opColor(OpKind op);
/// Family name of an op kind, for legends ("matmul", "attention", ...).
QString opFamily(OpKind op);
QColor hazardColor(HazardKind kind);
QColor readColor();
QColor writeColor();
QColor barrierColor();
QColor redundantBarrierColor();
QColor raceColor();

/// The given cells as tab-separated rows (one line per row, columns in model order),
/// with a header line of the model's horizontal headers.
QString rowsAsTsv(const QAbstractItemModel& model, const QModelIndexList& indexes);

}  // namespace graphlens::gui
