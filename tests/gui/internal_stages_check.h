#pragma once
// What the GUI's "Stages inside" table and the CLI's `passes --show-stages` must show of a
// node: the core's internal_stages(), row by row and line by line. Shared by the model test on
// a hand-built graph and the verdict test on a captured preset.
#include <fmt/format.h>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

#include "graphlens/graph/internal_stages.h"
#include "models/internal_stages_model.h"
#include "models/presentation.h"

namespace graphlens::gui::testing {

/// Empty when the model's rows are the core's stages of graph.nodes[node], in order: per stage
/// its ordering row (counter's bytes), its reads and its writes; then its hazards. Else the
/// first difference.
inline QString differenceFromTheCore(const InternalStagesModel& model, const ComputeGraph& graph,
                                     size_t node) {
    const NodeInternalStages core = internal_stages(graph, node);
    struct Expected {
        InternalStagesModel::RowKind kind;
        QString what, bytes;
    };
    std::vector<Expected> rows;
    auto binding = [](const BindingRef& b) { return QStringLiteral("binding %1").arg(b.binding); };
    for (const InternalStage& s : core.stages) {
        rows.push_back(
            {InternalStagesModel::RowKind::stage,
             QString::fromStdString(describe_stage_order(s.declared)),
             s.counter ? QStringLiteral("counter ") + formatRange(graph, *s.counter) : QString()});
        for (const StageAccess& a : s.reads)
            rows.push_back({InternalStagesModel::RowKind::read,
                            QStringLiteral("reads ") + binding(a.binding),
                            formatRange(graph, a.bytes)});
        for (const StageAccess& a : s.writes)
            rows.push_back({InternalStagesModel::RowKind::write,
                            QStringLiteral("writes ") + binding(a.binding),
                            formatRange(graph, a.bytes)});
    }
    for (const StageHazard& h : core.hazards)
        rows.push_back({InternalStagesModel::RowKind::hazard,
                        hazardName(h.kind) + QStringLiteral(" kept by the counter"),
                        formatRange(graph, h.bytes)});
    if (model.rowCount() != int(rows.size()))
        return QStringLiteral("%1 rows, the core gives %2").arg(model.rowCount()).arg(rows.size());
    for (int r = 0; r < model.rowCount(); ++r) {
        const Expected& e = rows[size_t(r)];
        const auto kind = InternalStagesModel::RowKind(
            model.index(r, 0).data(InternalStagesModel::RowKindRole).toInt());
        const QString what = model.index(r, InternalStagesModel::What).data().toString();
        const QString bytes = model.index(r, InternalStagesModel::Bytes).data().toString();
        if (kind != e.kind || what != e.what || bytes != e.bytes)
            return QStringLiteral("row %1: '%2' '%3', the core gives '%4' '%5'")
                .arg(r)
                .arg(what, bytes, e.what, e.bytes);
    }
    return {};
}

/// The lines `graphlens-cli passes --show-stages` prints under a node, from the core's
/// internal_stages() (the CLI's format, docs/user-guide.md).
inline std::vector<std::string> cliLinesFromTheCore(const ComputeGraph& graph, size_t node) {
    const NodeInternalStages core = internal_stages(graph, node);
    std::vector<std::string> out;
    for (size_t k = 0; k < core.stages.size(); ++k) {
        const InternalStage& s = core.stages[k];
        out.push_back(fmt::format(
            "stage {} '{}': {}{}", k + 1, s.declared.name, describe_stage_order(s.declared),
            s.counter ? ", counter " + describe_bytes(graph, *s.counter) : std::string()));
        for (const StageAccess& a : s.reads)
            out.push_back(fmt::format("  reads  binding {} {}", a.binding.binding,
                                      describe_bytes(graph, a.bytes)));
        for (const StageAccess& a : s.writes)
            out.push_back(fmt::format("  writes binding {} {}", a.binding.binding,
                                      describe_bytes(graph, a.bytes)));
    }
    for (const StageHazard& h : core.hazards)
        out.push_back(fmt::format("{} stage {} -> stage {}: {}", hazard_kind_name(h.kind),
                                  h.earlier_stage + 1, h.later_stage + 1,
                                  describe_bytes(graph, h.bytes)));
    return out;
}

}  // namespace graphlens::gui::testing
