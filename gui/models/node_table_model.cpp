#include "models/node_table_model.h"

#include "models/node_filter.h"
#include "models/presentation.h"

namespace graphlens::gui {

void NodeTableModel::setStage(DocumentPtr document, int stage) {
    beginResetModel();
    document_ = std::move(document);
    stage_ = stage;
    endResetModel();
}

void NodeTableModel::setRun(const std::optional<RunResult>& run) {
    // No timings before or after: nothing changes, and announcing a change of every row
    // costs the filter proxy a pass over a 100k-dispatch stage.
    if (gpu_ns_.empty() && (!run || run->per_dispatch.empty())) return;
    gpu_ns_.clear();
    if (run)
        for (const DispatchTiming& t : run->per_dispatch) gpu_ns_[t.node] = t.end_ns - t.start_ns;
    if (rowCount() > 0) emit dataChanged(index(0, GpuTime), index(rowCount() - 1, GpuTime));
}

const ComputeGraph* NodeTableModel::graph() const {
    if (!document_ || stage_ < 0 || !document_->ready(static_cast<size_t>(stage_))) return nullptr;
    return &*document_->snapshot(static_cast<size_t>(stage_)).graph;
}

bool NodeTableModel::isBarrierRow(int row) const {
    const ComputeGraph* g = graph();
    return g && g->nodes[static_cast<size_t>(row)].is_barrier();
}

bool NodeTableModel::rowMatches(int row, const NodeFilter& filter) const {
    const ComputeGraph* g = graph();
    return g && filter.matches(*g, static_cast<size_t>(row));
}

int NodeTableModel::rowCount(const QModelIndex& parent) const {
    const ComputeGraph* g = graph();
    return parent.isValid() || !g ? 0 : static_cast<int>(g->nodes.size());
}

int NodeTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QModelIndex NodeTableModel::indexOfNode(size_t node_index, int column) const {
    return index(static_cast<int>(node_index), column);
}

QVariant NodeTableModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ComputeGraph& g = *graph();
    const size_t row = static_cast<size_t>(index.row());
    const Node& n = g.nodes[row];
    if (role == NodeIndexRole) return qulonglong(row);
    if (role == IsBarrierRole) return n.is_barrier();
    if (role == FilterTextRole) return NodeFilter::searchText(g, n);
    if (n.is_barrier()) return barrierData(row, index.column(), role);
    if (role == Qt::DisplayRole || role == SortRole)
        return dispatchValue(row, index.column(), role == SortRole);
    if (role == Qt::DecorationRole && index.column() == Op) return opColor(n.op);
    if (role == Qt::ForegroundRole && index.column() == Races) return raceColor();
    if (role == Qt::ToolTipRole && (index.column() == Reads || index.column() == Writes))
        return data(index, Qt::DisplayRole)
            .toString()
            .replace(QStringLiteral("; "), QStringLiteral("\n"));
    return {};
}

// A barrier's row: its index, its label with the core's verdict and its scope as tooltip.
QVariant NodeTableModel::barrierData(size_t row, int column, int role) const {
    const StageAnalysis& a = document_->analysis(static_cast<size_t>(stage_));
    if (role == Qt::DisplayRole) {
        switch (column) {
            case Index:
                return qulonglong(row);
            case Label: {
                const BarrierExplanation* b = a.barrier_at(row);
                QStringList notes;
                if (b && b->redundant()) notes << tr("redundant");
                if (b && b->partial) notes << tr("partial scope");
                return notes.isEmpty()
                           ? tr("── barrier ──")
                           : tr("── barrier (%1) ──").arg(notes.join(QStringLiteral(", ")));
            }
            case Op:
                return QStringLiteral("barrier");
            default:
                return {};
        }
    }
    if (role == SortRole) return column == Index ? QVariant(qulonglong(row)) : QVariant(QString());
    if (role == Qt::ForegroundRole && column == Label) {
        const BarrierExplanation* b = a.barrier_at(row);
        return b && b->redundant() ? redundantBarrierColor() : barrierColor();
    }
    if (role == Qt::ToolTipRole && column == Label) {
        const BarrierExplanation* b = a.barrier_at(row);
        if (b && !b->scope.empty()) return QString::fromStdString(b->scope);
    }
    return {};
}

// A dispatch's cell as shown, or as sorted (`sort`: numbers where the text is a number).
QVariant NodeTableModel::dispatchValue(size_t row, int column, bool sort) const {
    const ComputeGraph& g = *graph();
    const Node& n = g.nodes[row];
    const StageAnalysis& a = document_->analysis(static_cast<size_t>(stage_));
    switch (column) {
        case Index:
            return qulonglong(row);
        case Label:
            return QString::fromStdString(n.label);
        case Op:
            return opName(n.op);
        case Kernel:
            return n.kernel < g.kernels.size() ? QString::fromStdString(g.kernels[n.kernel].name)
                                               : QString();
        case Workgroups:
            if (sort) return qulonglong(n.workgroups[0]) * n.workgroups[1] * n.workgroups[2];
            return QStringLiteral("%1×%2×%3")
                .arg(n.workgroups[0])
                .arg(n.workgroups[1])
                .arg(n.workgroups[2]);
        case Reads:
            return n.ranges_known ? formatRanges(g, n.reads) : tr("unknown (fence)");
        case Writes:
            return n.ranges_known ? formatRanges(g, n.writes) : tr("unknown (fence)");
        case Group:
            return a.group[row];
        case Races:
            if (sort) return qulonglong(a.races_at(row));
            return a.races_at(row) ? QVariant(qulonglong(a.races_at(row))) : QVariant();
        case GpuTime: {
            auto it = gpu_ns_.find(n.id);
            if (it == gpu_ns_.end()) return sort ? QVariant(-1.0) : QVariant();
            return sort ? QVariant(it->second) : QVariant(formatDuration(it->second));
        }
    }
    return {};
}

std::optional<bool> NodeTableModel::lessThan(int left_row, int right_row, int column) const {
    const ComputeGraph* g = graph();
    if (!g) return std::nullopt;
    const Node& l = g->nodes[static_cast<size_t>(left_row)];
    const Node& r = g->nodes[static_cast<size_t>(right_row)];
    if (column == Index) return left_row < right_row;
    if (column == Reads || column == Writes) return std::nullopt;
    // Barriers have no value in these columns: they sort first, among themselves by index.
    if (l.is_barrier() || r.is_barrier())
        return l.is_barrier() && r.is_barrier() ? left_row < right_row : l.is_barrier();
    const auto kernel = [&](const Node& n) -> std::string_view {
        return n.kernel < g->kernels.size() ? std::string_view(g->kernels[n.kernel].name)
                                            : std::string_view();
    };
    const auto wg = [](const Node& n) {
        return qulonglong(n.workgroups[0]) * n.workgroups[1] * n.workgroups[2];
    };
    const auto gpu = [&](const Node& n) {
        auto it = gpu_ns_.find(n.id);
        return it == gpu_ns_.end() ? -1.0 : it->second;
    };
    switch (column) {
        case Label:
            return std::string_view(l.label) < std::string_view(r.label);
        case Op:
            return op_kind_name(l.op) < op_kind_name(r.op);
        case Kernel:
            return kernel(l) < kernel(r);
        case Workgroups:
            return wg(l) < wg(r);
        case Group: {
            const StageAnalysis& a = document_->analysis(static_cast<size_t>(stage_));
            return a.group[size_t(left_row)] < a.group[size_t(right_row)];
        }
        case Races: {
            const StageAnalysis& a = document_->analysis(static_cast<size_t>(stage_));
            return a.races_at(size_t(left_row)) < a.races_at(size_t(right_row));
        }
        case GpuTime:
            return gpu(l) < gpu(r);
    }
    return std::nullopt;
}

QVariant NodeTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Index:
            return tr("#");
        case Label:
            return tr("Label");
        case Op:
            return tr("Op kind");
        case Kernel:
            return tr("Kernel");
        case Workgroups:
            return tr("Workgroups");
        case Reads:
            return tr("Reads");
        case Writes:
            return tr("Writes");
        case Group:
            return tr("Group");
        case Races:
            return tr("Races");
        case GpuTime:
            return tr("GPU time");
    }
    return {};
}

NodeFilterProxy::NodeFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
    setSortRole(NodeTableModel::SortRole);
}

void NodeFilterProxy::setText(const QString& text) {
    if (text == text_) return;
    text_ = text;
    filter_ = NodeFilter(text);
    invalidateFilter();
}

void NodeFilterProxy::setShowBarriers(bool show) {
    if (show == show_barriers_) return;
    show_barriers_ = show;
    invalidateFilter();
}

void NodeFilterProxy::setSourceModel(QAbstractItemModel* model) {
    nodes_ = qobject_cast<const NodeTableModel*>(model);
    QSortFilterProxyModel::setSourceModel(model);
}

void NodeFilterProxy::sort(int column, Qt::SortOrder order) {
    if (column == NodeTableModel::Index && order == Qt::AscendingOrder)
        QSortFilterProxyModel::sort(-1, order);
    else
        QSortFilterProxyModel::sort(column, order);
}

bool NodeFilterProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
    if (nodes_)
        if (auto less = nodes_->lessThan(left.row(), right.row(), left.column())) return *less;
    return QSortFilterProxyModel::lessThan(left, right);
}

bool NodeFilterProxy::filterAcceptsRow(int row, const QModelIndex& parent) const {
    if (text_.isEmpty() && show_barriers_) return true;  // every row: no per-row lookups
    if (nodes_) {
        if (nodes_->isBarrierRow(row)) return show_barriers_ && text_.isEmpty();
        return text_.isEmpty() || nodes_->rowMatches(row, filter_);
    }
    const QModelIndex i = sourceModel()->index(row, 0, parent);
    const bool barrier = i.data(NodeTableModel::IsBarrierRole).toBool();
    if (barrier) return show_barriers_ && text_.isEmpty();
    if (text_.isEmpty()) return true;
    return filter_.matchesText(i.data(NodeTableModel::FilterTextRole).toString());
}

}  // namespace graphlens::gui
