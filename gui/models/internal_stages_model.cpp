#include "models/internal_stages_model.h"

#include "models/presentation.h"

namespace graphlens::gui {
namespace {

QString bindingText(const BindingRef& b) {
    return b.set == 0 ? QObject::tr("binding %1").arg(b.binding)
                      : QObject::tr("set %1 binding %2").arg(b.set).arg(b.binding);
}

QString stageTitle(const NodeInternalStages& s, size_t k) {
    return QStringLiteral("%1 %2").arg(k + 1).arg(
        QString::fromStdString(s.stages[k].declared.name));
}

}  // namespace

void InternalStagesModel::showNode(DocumentPtr document, int stage, size_t node_index) {
    beginResetModel();
    document_ = std::move(document);
    graph_ = nullptr;
    stages_ = {};
    rows_.clear();
    error_.clear();
    if (document_ && stage >= 0 && size_t(stage) < document_->stage_count() &&
        document_->ready(size_t(stage))) {
        graph_ = &*document_->snapshot(size_t(stage)).graph;
        try {
            stages_ = internal_stages(*graph_, node_index);
        } catch (const std::exception& e) {
            error_ = QString::fromStdString(e.what());
        }
    }
    for (size_t k = 0; k < stages_.stages.size(); ++k) {
        rows_.push_back({RowKind::stage, k, 0});
        for (size_t i = 0; i < stages_.stages[k].reads.size(); ++i)
            rows_.push_back({RowKind::read, k, i});
        for (size_t i = 0; i < stages_.stages[k].writes.size(); ++i)
            rows_.push_back({RowKind::write, k, i});
    }
    for (size_t h = 0; h < stages_.hazards.size(); ++h)
        rows_.push_back({RowKind::hazard, stages_.hazards[h].later_stage, h});
    endResetModel();
}

void InternalStagesModel::clear() {
    showNode(nullptr, 0, 0);
}

int InternalStagesModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int InternalStagesModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant InternalStagesModel::display(const Row& row, int column) const {
    if (row.kind == RowKind::hazard) {
        const StageHazard& h = stages_.hazards[row.item];
        switch (column) {
            case Stage:
                return QStringLiteral("%1 → %2").arg(h.earlier_stage + 1).arg(h.later_stage + 1);
            case What:
                return tr("%1 kept by the counter").arg(hazardName(h.kind));
            case Bytes:
                return formatRange(*graph_, h.bytes);
        }
        return {};
    }
    const InternalStage& s = stages_.stages[row.stage];
    if (column == Stage) return stageTitle(stages_, row.stage);
    if (row.kind == RowKind::stage) {
        if (column == What) return QString::fromStdString(describe_stage_order(s.declared));
        return s.counter ? tr("counter %1").arg(formatRange(*graph_, *s.counter)) : QString();
    }
    const StageAccess& a = row.kind == RowKind::read ? s.reads[row.item] : s.writes[row.item];
    if (column == What)
        return (row.kind == RowKind::read ? tr("reads %1") : tr("writes %1"))
            .arg(bindingText(a.binding));
    return formatRange(*graph_, a.bytes);
}

QVariant InternalStagesModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Row& row = rows_[static_cast<size_t>(index.row())];
    switch (role) {
        case Qt::DisplayRole:
        case Qt::ToolTipRole:
            return display(row, index.column());
        case RowKindRole:
            return static_cast<int>(row.kind);
        case StageRole:
            return static_cast<qulonglong>(row.stage);
        case ItemRole:
            return static_cast<qulonglong>(row.item);
    }
    return {};
}

QVariant InternalStagesModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Stage:
            return tr("Stage");
        case What:
            return tr("Ordering / access");
        case Bytes:
            return tr("Bytes");
    }
    return {};
}

}  // namespace graphlens::gui
