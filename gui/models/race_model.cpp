#include "models/race_model.h"

#include <QColor>

#include "models/presentation.h"

namespace graphlens::gui {

void RaceModel::setStage(DocumentPtr document, int stage) {
    beginResetModel();
    document_ = std::move(document);
    stage_ = stage;
    endResetModel();
}

const StageAnalysis* RaceModel::analysis() const {
    if (!document_ || stage_ < 0 || !document_->ready(static_cast<size_t>(stage_))) return nullptr;
    return &document_->analysis(static_cast<size_t>(stage_));
}

int RaceModel::rowCount(const QModelIndex& parent) const {
    const StageAnalysis* a = analysis();
    return parent.isValid() || !a ? 0 : static_cast<int>(a->races.size());
}

int RaceModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString RaceModel::barriersText(const ComputeGraph& graph, const Race& race) {
    if (race.barriers.empty()) return tr("no barrier between");
    QStringList parts;
    for (const UncoveringBarrier& b : race.barriers)
        parts << QStringLiteral("%1: %2").arg(nodeTitle(graph, b.barrier),
                                              QString::fromStdString(b.why));
    return parts.join(QStringLiteral("; "));
}

QVariant RaceModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto row = static_cast<size_t>(index.row());
    const Race& race = analysis()->races[row];
    const Hazard& h = race.hazard;
    const ComputeGraph& g = document_->snapshot(static_cast<size_t>(stage_)).graph;
    switch (role) {
        case RaceIndexRole:
            return qulonglong(row);
        case HazardIndexRole:
            return qulonglong(race.hazard_position);
        case EarlierNodeRole:
            return qulonglong(h.earlier);
        case LaterNodeRole:
            return qulonglong(h.later);
        case Qt::ToolTipRole:
            return QString::fromStdString(race.explanation);  // the core's own sentence
        case Qt::DecorationRole:
            return index.column() == Kind ? QVariant(raceColor()) : QVariant();
        case Qt::DisplayRole:
            break;
        default:
            return {};
    }
    switch (index.column()) {
        case Kind:
            return hazardName(h.kind);
        case Earlier:
            return nodeTitle(g, h.earlier);
        case Later:
            return nodeTitle(g, h.later);
        case Range:
            return formatRange(g, h.overlap());
        case Barriers:
            return barriersText(g, race);
    }
    return {};
}

QVariant RaceModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Kind:
            return tr("Kind");
        case Earlier:
            return tr("Earlier");
        case Later:
            return tr("Later");
        case Range:
            return tr("Overlapping bytes");
        case Barriers:
            return tr("Barriers between, and why none orders them");
    }
    return {};
}

}  // namespace graphlens::gui
