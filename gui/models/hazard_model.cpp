#include "models/hazard_model.h"

#include <algorithm>

#include "models/presentation.h"

namespace graphlens::gui {

void HazardModel::setRows(DocumentPtr document, int stage, std::vector<Row> rows) {
    beginResetModel();
    document_ = std::move(document);
    stage_ = stage;
    rows_ = std::move(rows);
    endResetModel();
}

void HazardModel::showNode(DocumentPtr document, int stage, size_t node_index) {
    const StageAnalysis& a = document->analysis(static_cast<size_t>(stage));
    std::vector<Row> rows;
    if (node_index < a.hazards_in.size()) {
        for (size_t h : a.hazards_in[node_index]) rows.push_back({h, Direction::in});
        for (size_t h : a.hazards_out[node_index]) rows.push_back({h, Direction::out});
    }
    setRows(std::move(document), stage, std::move(rows));
}

void HazardModel::showBarrier(DocumentPtr document, int stage, size_t barrier_node_index) {
    const StageAnalysis& a = document->analysis(static_cast<size_t>(stage));
    std::vector<Row> rows;
    if (const BarrierExplanation* b = a.barrier_at(barrier_node_index))
        for (size_t h : b->forcing) rows.push_back({h, Direction::forcing});
    setRows(std::move(document), stage, std::move(rows));
}

void HazardModel::showRace(DocumentPtr document, int stage, size_t race) {
    const StageAnalysis& a = document->analysis(static_cast<size_t>(stage));
    std::vector<Row> rows;
    if (race < a.races.size()) rows.push_back({a.races[race].hazard_position, Direction::race});
    setRows(std::move(document), stage, std::move(rows));
}

void HazardModel::clear() {
    setRows(nullptr, 0, {});
}

int HazardModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int HazardModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QString HazardModel::relation(Direction direction) {
    switch (direction) {
        case Direction::in:
            return tr("waits for");
        case Direction::out:
            return tr("waited on by");
        case Direction::forcing:
            return tr("forces barrier");
        case Direction::unsynchronised:
            return tr("UNSYNCHRONISED");
        case Direction::race:
            return tr("RACE");
    }
    return {};
}

QVariant HazardModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = rows_[static_cast<size_t>(index.row())];
    const StageAnalysis& a = document_->analysis(static_cast<size_t>(stage_));
    const ComputeGraph& g = document_->snapshot(static_cast<size_t>(stage_)).graph;
    const Hazard& h = a.hazards[row.hazard];
    // Whether no barrier orders this hazard: the core's verdict, looked up, never derived.
    const std::optional<size_t> race = a.race_of_hazard(row.hazard);
    if (role == OtherNodeRole)
        return qulonglong(row.direction == Direction::in ? h.earlier : h.later);
    if (role == HazardIndexRole) return qulonglong(row.hazard);
    if (role == IsRaceRole) return race.has_value();
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
            case Relation:
                if (race && row.direction != Direction::race &&
                    row.direction != Direction::unsynchronised)
                    return relation(row.direction) + tr("\n(race)");
                return relation(row.direction);
            case Kind:
                return hazardName(h.kind);
            case Earlier:
                return nodeTitle(g, h.earlier);
            case Later:
                return nodeTitle(g, h.later);
            case Range:
                // Two lines, so the bytes fit a narrow dock without eliding or scrolling.
                return allocationName(g, h.overlap()) + QLatin1Char('\n') +
                       formatInterval(h.overlap());
            case Bytes:
                return qulonglong(h.overlap().size());
        }
    }
    if (role == Qt::DecorationRole && index.column() == Kind) return hazardColor(h.kind);
    if (role == Qt::DecorationRole && index.column() == Relation && race) return raceColor();
    if (role == Qt::ToolTipRole) {
        if (race) return QString::fromStdString(a.races[*race].explanation);
        const QString verb = h.kind == HazardKind::raw   ? tr("reads bytes written by")
                             : h.kind == HazardKind::war ? tr("overwrites bytes read by")
                                                         : tr("overwrites bytes written by");
        return QStringLiteral("%1 %2 %3: %4")
            .arg(nodeTitle(g, h.later), verb, nodeTitle(g, h.earlier), formatRange(g, h.overlap()));
    }
    return {};
}

QVariant HazardModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Relation:
            return tr("Relation");
        case Kind:
            return tr("Kind");
        case Earlier:
            return tr("Earlier");
        case Later:
            return tr("Later");
        case Range:
            return tr("Overlapping bytes");
        case Bytes:
            return tr("Bytes");
    }
    return {};
}

}  // namespace graphlens::gui
