#include "models/stage_list_model.h"

#include <QColor>
#include <utility>

#include "models/presentation.h"

namespace graphlens::gui {

void StageListModel::setDocument(DocumentPtr document) {
    beginResetModel();
    document_ = std::move(document);
    endResetModel();
}

void StageListModel::updateDocument(DocumentPtr newer) {
    if (!document_ || !newer || newer->stage_count() != document_->stage_count()) {
        setDocument(std::move(newer));
        return;
    }
    const DocumentPtr older = std::exchange(document_, std::move(newer));
    for (size_t i = 0; i < document_->stage_count(); ++i)
        if (document_->ready(i) != older->ready(i))
            emit dataChanged(index(int(i), 0), index(int(i), ColumnCount - 1));
}

int StageListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !document_ ? 0 : static_cast<int>(document_->stage_count());
}

int StageListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StageListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto row = static_cast<size_t>(index.row());
    if (!document_->ready(row)) {
        if (role == Qt::DisplayRole) {
            if (index.column() == Stage) return QString::fromStdString(document_->stages[row].name);
            if (index.column() == Dispatches) return tr("computing…");
        } else if (role == Qt::ToolTipRole) {
            return tr("This stage is still being computed in the background");
        } else if (role == Qt::ForegroundRole) {
            return QColor(Qt::gray);
        }
        return {};
    }
    const Snapshot& s = document_->snapshot(row);
    // Counted from the graph itself (in the analysis) so a stage with unfilled stats still
    // shows the truth.
    const StageAnalysis& a = document_->analysis(row);
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
            case Stage:
                return QString::fromStdString(s.stage);
            case Dispatches:
                return qulonglong(a.dispatch_count);
            case Barriers:
                return qulonglong(a.barrier_count);
            case Redundant:
                return qulonglong(a.redundant_barriers());
            case Groups:
                return qulonglong(a.group_nodes.size());
            case LowerBound:
                return qulonglong(a.barrier_lower_bound);
            case Hazards:
                return qulonglong(a.hazards.size());
            case Races:
                return qulonglong(a.races.size());
            case Reordered:
                return qulonglong(s.reordered);
            case PassTime:  // the unit is in the header: the column stays narrow
                return QString::number(s.pass_ms, 'f', 2);
        }
    } else if (role == Qt::ToolTipRole) {
        QStringList lines;
        for (const auto& d : s.diagnostics) lines << QString::fromStdString(d);
        if (!a.races.empty())
            lines << tr("%1 race(s), %2 of them inside one group")
                         .arg(a.races.size())
                         .arg(a.unsynchronised.size());
        if (index.column() == Races || !a.races.empty()) lines << raceDefinition();
        return lines.join(QLatin1Char('\n'));
    } else if (role == Qt::TextAlignmentRole && index.column() != Stage) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    return {};
}

QString StageListModel::raceDefinition() {
    return tr(
        "A race is a hazard that no barrier between its two commands orders: none is "
        "there, or a recorded barrier's scope (stages, accesses, buffer bytes) does not "
        "cover it. The GPU may then run the two commands in either order.");
}

QVariant StageListModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o == Qt::Horizontal && role == Qt::ToolTipRole && section == Races) return raceDefinition();
    if (o == Qt::Horizontal && role == Qt::ToolTipRole && section == PassTime)
        return tr("Time the pass took to make this stage, in milliseconds");
    if (o == Qt::Horizontal && role == Qt::ToolTipRole)  // the header without its line breaks
        return headerData(section, o, Qt::DisplayRole)
            .toString()
            .remove(QStringLiteral("-\n"))
            .replace(QLatin1Char('\n'), QLatin1Char(' '));
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Stage:
            return tr("Stage");
        case Dispatches:
            return tr("Dis-\npatches");
        case Barriers:
            return tr("Bar-\nriers");
        case Redundant:
            return tr("Redun-\ndant");
        case Groups:
            return tr("Groups");
        case LowerBound:
            return tr("Lower\nbound");
        case Hazards:
            return tr("Haz-\nards");
        case Races:
            return tr("Races");
        case Reordered:
            return tr("Re-\nordered");
        case PassTime:
            return tr("Pass\nms");
    }
    return {};
}

}  // namespace graphlens::gui
