#include "models/fusion_model.h"

#include <algorithm>

#include "models/presentation.h"

namespace graphlens::gui {

void FusionModel::setStage(DocumentPtr document, int stage, std::optional<NodeId> only) {
    beginResetModel();
    document_ = std::move(document);
    rows_.clear();
    if (document_) {
        const size_t last =
            std::min(static_cast<size_t>(std::max(stage, 0)) + 1, document_->stage_count());
        for (size_t s = 0; s < last; ++s) {
            if (!document_->ready(s)) continue;
            for (const FusionDiagnostic& d : document_->snapshot(s).fusions) {
                const bool involved =
                    !only || (d.applied && d.fused_id == *only) ||  // near misses have no id
                    std::find(d.nodes.begin(), d.nodes.end(), *only) != d.nodes.end();
                if (involved) rows_.push_back(&d);
            }
        }
    }
    endResetModel();
}

int FusionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int FusionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FusionModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const FusionDiagnostic& d = *rows_[static_cast<size_t>(index.row())];
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
            case Pattern:
                return QString::fromStdString(d.pattern);
            case Applied:
                return d.applied ? tr("fused") : tr("near miss");
            case Nodes: {
                QStringList names;  // as the captured stage's table numbers them
                for (NodeId id : d.nodes) names << capturedDispatchName(*document_, id);
                return names.join(QStringLiteral(", "));
            }
            case Reason:
                return QString::fromStdString(d.reason);
        }
    }
    return {};
}

QVariant FusionModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Pattern:
            return tr("Pattern");
        case Applied:
            return tr("Result");
        case Nodes:
            return tr("Dispatches (captured #)");
        case Reason:
            return tr("Reason");
    }
    return {};
}

}  // namespace graphlens::gui
