#include "models/node_filter.h"

#include "models/presentation.h"

namespace graphlens::gui {

NodeFilter::NodeFilter(const QString& text)
    : words_(text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {}

QString NodeFilter::searchText(const ComputeGraph& g, const Node& n) {
    if (n.is_barrier()) return QStringLiteral("barrier");
    QString text = QString::fromStdString(n.label) + QLatin1Char(' ') + opName(n.op);
    if (n.kernel < g.kernels.size())
        text += QLatin1Char(' ') + QString::fromStdString(g.kernels[n.kernel].name);
    for (const auto* list : {&n.reads, &n.writes})
        for (const ByteRange& r : *list)
            if (r.allocation < g.allocations.size())
                text += QLatin1Char(' ') + QString::fromStdString(g.allocations[r.allocation].name);
    return text;
}

bool NodeFilter::matchesText(const QString& text) const {
    for (const QString& w : words_)
        if (!text.contains(w, Qt::CaseInsensitive)) return false;
    return true;
}

bool NodeFilter::matches(const ComputeGraph& graph, size_t node_index) const {
    if (empty()) return true;
    const Node& n = graph.nodes[node_index];
    return !n.is_barrier() && matchesText(searchText(graph, n));
}

}  // namespace graphlens::gui
