#include "models/node_filter.h"

#include "models/presentation.h"

#include <string_view>

namespace graphlens::gui {

namespace {

// Whether `lower` (lower case) occurs in `text`, ignoring ASCII case.
bool contains_ascii_ci(std::string_view text, std::string_view lower) {
    if (lower.size() > text.size()) return false;
    const auto fold = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    for (size_t i = 0; i + lower.size() <= text.size(); ++i) {
        size_t k = 0;
        while (k < lower.size() && fold(text[i + k]) == lower[k]) ++k;
        if (k == lower.size()) return true;
    }
    return false;
}

}  // namespace

NodeFilter::NodeFilter(const QString& text)
    : words_(text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    for (const QString& w : words_) lower_words_.push_back(w.toLower().toStdString());
}

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
    if (n.is_barrier()) return false;
    // The same answer as matchesText(searchText(...)): a word holds no space, so it occurs in
    // the joined text exactly when it occurs in one of the names joined.
    const std::string_view op = op_kind_name(n.op);
    const std::string* kernel =
        n.kernel < graph.kernels.size() ? &graph.kernels[n.kernel].name : nullptr;
    for (const std::string& w : lower_words_) {
        bool found = contains_ascii_ci(n.label, w) || contains_ascii_ci(op, w) ||
                     (kernel && contains_ascii_ci(*kernel, w));
        for (const auto* list : {&n.reads, &n.writes})
            for (size_t r = 0; !found && r < list->size(); ++r)
                if ((*list)[r].allocation < graph.allocations.size())
                    found = contains_ascii_ci(graph.allocations[(*list)[r].allocation].name, w);
        if (!found) return false;
    }
    return true;
}

}  // namespace graphlens::gui
