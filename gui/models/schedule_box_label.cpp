#include "models/schedule_box_label.h"

#include "graphlens/graph/internal_stages.h"

namespace graphlens::gui {

QString scheduleBoxLabel(const ComputeGraph& graph, size_t node) {
    QString label = QString::fromStdString(graph.nodes[node].label);
    if (label.startsWith(QLatin1String("blk."))) label = label.section(QLatin1Char('.'), 2);
    if (!has_internal_stages(graph, node)) return label;
    // The kernel's declared stages, which internal_stages() lists one by one: counting them
    // here keeps the hazard analysis out of painting.
    const size_t stages = graph.kernels[graph.nodes[node].kernel].stages.size();
    return QStringLiteral("[%1] %2").arg(stages).arg(label);
}

}  // namespace graphlens::gui
