#pragma once
// The text inside a dispatch's box in the schedule view.
#include <QString>

#include <cstddef>

#include "graphlens/graph/compute_graph.h"

namespace graphlens::gui {

/// The op inside its layer ("attn_q" of "blk.3.attn_q": the column header already places the
/// box), led by the number of stages the dispatch orders inside itself when it has any
/// ("[2] attn"), in front where eliding keeps it. The count is the stages internal_stages()
/// lists, so the box and the conflict inspector's "Stages inside this dispatch" table agree.
QString scheduleBoxLabel(const ComputeGraph& graph, size_t node);

}  // namespace graphlens::gui
