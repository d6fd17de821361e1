#include "models/stage_list_model.h"

#include "models/presentation.h"

namespace graphlens::gui {

void StageListModel::setDocument(DocumentPtr document) {
    beginResetModel();
    document_ = std::move(document);
    counts_.clear();
    if (document_)
        for (const Snapshot& s : document_->stages)
            counts_.push_back({s.graph.dispatch_count(), s.graph.barrier_count()});
    endResetModel();
}

int StageListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !document_ ? 0 : static_cast<int>(document_->stages.size());
}

int StageListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StageListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Snapshot& s = document_->stages[static_cast<size_t>(index.row())];
    const StageAnalysis& a = document_->analyses[static_cast<size_t>(index.row())];
    // Counted from the graph itself so a stage with unfilled stats still shows the truth.
    const Counts& counts = counts_[static_cast<size_t>(index.row())];
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
            case Stage:
                return QString::fromStdString(s.stage);
            case Dispatches:
                return counts.dispatches;
            case Barriers:
                return counts.barriers;
            case Redundant:
                return qulonglong(a.redundant_barriers());
            case Groups:
                return qulonglong(a.group_nodes.size());
            case LowerBound:
                return qulonglong(a.barrier_lower_bound);
            case Hazards:
                return qulonglong(a.hazards.size());
            case Reordered:
                return qulonglong(s.reordered);
            case PassTime:
                return QStringLiteral("%1 ms").arg(s.pass_ms, 0, 'f', 2);
        }
    } else if (role == Qt::ToolTipRole) {
        QStringList lines;
        for (const auto& d : s.diagnostics) lines << QString::fromStdString(d);
        if (!a.unsynchronised.empty())
            lines << QStringLiteral("%1 hazards inside one group (no barrier orders them)")
                         .arg(a.unsynchronised.size());
        return lines.join(QLatin1Char('\n'));
    } else if (role == Qt::TextAlignmentRole && index.column() != Stage) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QVariant StageListModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Stage:
            return tr("Stage");
        case Dispatches:
            return tr("Dispatches");
        case Barriers:
            return tr("Barriers");
        case Redundant:
            return tr("Redundant");
        case Groups:
            return tr("Groups");
        case LowerBound:
            return tr("Lower bound");
        case Hazards:
            return tr("Hazards");
        case Reordered:
            return tr("Reordered");
        case PassTime:
            return tr("Pass time");
    }
    return {};
}

}  // namespace graphlens::gui
