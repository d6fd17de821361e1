#include "models/stage_compare_model.h"

#include <QColor>
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "models/presentation.h"

namespace graphlens::gui {

namespace {

// Representative original id of a dispatch: its smallest origin id (stable across fusion).
NodeId key_of(const Node& n) {
    NodeId k = n.id;
    for (NodeId o : n.origin) k = std::min(k, o);
    return k;
}

// Group of each original id in a stage (fused nodes give all their origins one group).
std::unordered_map<NodeId, int> groups_by_origin(const Document& doc, int stage) {
    std::unordered_map<NodeId, int> out;
    const ComputeGraph& g = doc.snapshot(static_cast<size_t>(stage)).graph;
    const StageAnalysis& a = doc.analysis(static_cast<size_t>(stage));
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (!g.nodes[i].is_dispatch()) continue;
        out[g.nodes[i].id] = a.group[i];
        for (NodeId o : g.nodes[i].origin) out[o] = a.group[i];
    }
    return out;
}

}  // namespace

std::vector<NodeChange> compare_stages(const Document& doc, int before, int after) {
    const ComputeGraph& gb = doc.snapshot(static_cast<size_t>(before)).graph;
    const ComputeGraph& ga = doc.snapshot(static_cast<size_t>(after)).graph;
    std::vector<NodeChange> out(ga.nodes.size(), NodeChange::none);

    // Fusion, seen from `after`: a dispatch whose origin set differs from every dispatch of
    // `before` is fused (after > before) or absorbed (after < before).
    std::unordered_map<NodeId, size_t> origin_size_before;
    for (const Node& n : gb.nodes)
        if (n.is_dispatch())
            for (NodeId o : n.origin) origin_size_before[o] = n.origin.size();

    // Moved: relative order of the dispatches both stages share (by key), compared through
    // the longest run that keeps its order; what falls outside moved.
    std::unordered_map<NodeId, size_t> pos_before;
    size_t p = 0;
    for (const Node& n : gb.nodes)
        if (n.is_dispatch()) pos_before[key_of(n)] = p++;
    std::vector<std::pair<size_t, size_t>> seq;  // (position before, node index after)
    for (size_t i = 0; i < ga.nodes.size(); ++i) {
        const Node& n = ga.nodes[i];
        if (!n.is_dispatch()) continue;
        auto it = origin_size_before.find(key_of(n));
        if (it == origin_size_before.end() || it->second != n.origin.size()) {
            out[i] = NodeChange::fused;
            continue;
        }
        if (auto pb = pos_before.find(key_of(n)); pb != pos_before.end())
            seq.emplace_back(pb->second, i);
    }
    // Longest increasing subsequence (patience sorting) of the before-positions.
    std::vector<size_t> tails, tail_at, prev(seq.size(), SIZE_MAX);
    for (size_t k = 0; k < seq.size(); ++k) {
        auto it = std::lower_bound(tails.begin(), tails.end(), seq[k].first);
        const size_t len = static_cast<size_t>(it - tails.begin());
        if (it == tails.end()) {
            tails.push_back(seq[k].first);
            tail_at.push_back(k);
        } else {
            *it = seq[k].first;
            tail_at[len] = k;
        }
        prev[k] = len > 0 ? tail_at[len - 1] : SIZE_MAX;
    }
    std::unordered_set<size_t> kept;
    for (size_t k = tail_at.empty() ? SIZE_MAX : tail_at.back(); k != SIZE_MAX; k = prev[k])
        kept.insert(k);
    for (size_t k = 0; k < seq.size(); ++k)
        if (!kept.count(k)) out[seq[k].second] = NodeChange::moved;

    // Barriers: compare the groups of the dispatches on either side in the other stage.
    const auto other_groups = groups_by_origin(doc, before);
    const bool forward = after > before;
    for (size_t i = 0; i < ga.nodes.size(); ++i) {
        if (!ga.nodes[i].is_barrier()) continue;
        long prev_d = -1, next_d = -1;
        for (long j = static_cast<long>(i) - 1; j >= 0; --j)
            if (ga.nodes[static_cast<size_t>(j)].is_dispatch()) {
                prev_d = j;
                break;
            }
        for (size_t j = i + 1; j < ga.nodes.size(); ++j)
            if (ga.nodes[j].is_dispatch()) {
                next_d = static_cast<long>(j);
                break;
            }
        if (prev_d < 0 || next_d < 0) continue;
        auto g1 = other_groups.find(key_of(ga.nodes[static_cast<size_t>(prev_d)]));
        auto g2 = other_groups.find(key_of(ga.nodes[static_cast<size_t>(next_d)]));
        if (g1 != other_groups.end() && g2 != other_groups.end() && g1->second == g2->second)
            out[i] = forward ? NodeChange::barrier_added : NodeChange::barrier_removed;
    }
    return out;
}

void StageCompareModel::setStages(DocumentPtr document, int shown, int other) {
    NodeChanges changes;
    if (document && shown >= 0 && other >= 0 && document->ready(size_t(shown)) &&
        document->ready(size_t(other)))
        changes = std::make_shared<const std::vector<NodeChange>>(
            compare_stages(*document, other, shown));
    setStages(std::move(document), shown, other, std::move(changes));
}

void StageCompareModel::setStages(DocumentPtr document, int shown, int other, NodeChanges changes) {
    beginResetModel();
    document_ = std::move(document);
    shown_ = shown;
    left_ = shown < other;
    changes_ = std::move(changes);
    if (const ComputeGraph* g = graph(); changes_ && (!g || changes_->size() != g->nodes.size()))
        changes_ = nullptr;  // not a comparison of this stage
    endResetModel();
}

void StageCompareModel::setFilter(const NodeFilter& filter) {
    filter_ = filter;
    if (rowCount() > 0) emit dataChanged(index(0), index(rowCount() - 1));
}

const ComputeGraph* StageCompareModel::graph() const {
    if (!document_ || shown_ < 0 || !document_->ready(size_t(shown_))) return nullptr;
    return &*document_->snapshot(size_t(shown_)).graph;
}

int StageCompareModel::rowCount(const QModelIndex& parent) const {
    const ComputeGraph* g = graph();
    return parent.isValid() || !g ? 0 : static_cast<int>(g->nodes.size());
}

QString StageCompareModel::changeName(NodeChange c) {
    switch (c) {
        case NodeChange::none:
            return {};
        case NodeChange::moved:
            return tr("moved");
        case NodeChange::fused:
            return tr("fused");
        case NodeChange::barrier_added:
            return tr("barrier added");
        case NodeChange::barrier_removed:
            return tr("barrier removed");
    }
    return {};
}

QVariant StageCompareModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const size_t row = static_cast<size_t>(index.row());
    const ComputeGraph& g = *graph();
    const NodeChange c = changes_ ? (*changes_)[row] : NodeChange::none;
    switch (role) {
        case Qt::DisplayRole: {
            QString text = nodeTitle(g, row);
            if (c != NodeChange::none)
                text += QStringLiteral("  [%1]").arg(
                    c == NodeChange::fused && left_ ? tr("absorbed by a fusion") : changeName(c));
            return text;
        }
        case ChangeRole:
            return static_cast<int>(c);
        case NodeIndexRole:
            return qulonglong(row);
        case FilterMatchRole:
            return filter_.matches(g, row);
        case Qt::ForegroundRole:
            // The shared filter: what it does not match is greyed, like the other views dim it.
            return filter_.matches(g, row) ? QVariant() : QVariant(QColor(0, 0, 0, 90));
        case Qt::BackgroundRole:
            switch (c) {
                case NodeChange::moved:
                    return QColor(0xE6, 0x9F, 0x00, 90);
                case NodeChange::fused:
                    return QColor(0x56, 0xB4, 0xE9, 110);
                case NodeChange::barrier_added:
                    return QColor(0x00, 0x9E, 0x73, 110);
                case NodeChange::barrier_removed:
                    return QColor(0xCC, 0x79, 0xA7, 110);
                case NodeChange::none:
                    break;
            }
            return {};
        case Qt::DecorationRole:
            return g.nodes[row].is_dispatch() ? QVariant(opColor(g.nodes[row].op)) : QVariant();
    }
    return {};
}

}  // namespace graphlens::gui
