#include "models/timing_model.h"

#include "models/presentation.h"

namespace graphlens::gui {

void TimingModel::setRuns(std::optional<RunResult> run, std::optional<RunResult> second) {
    beginResetModel();
    run_ = std::move(run);
    second_ = std::move(second);
    endResetModel();
}

const ModeResult* TimingModel::secondMode(int row) const {
    if (!second_ || !run_) return nullptr;
    const std::string& name = run_->modes[static_cast<size_t>(row)].mode;
    for (const ModeResult& m : second_->modes)
        if (m.mode == name) return &m;
    return nullptr;
}

int TimingModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() || !run_ ? 0 : static_cast<int>(run_->modes.size());
}

int TimingModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TimingModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const ModeResult& m = run_->modes[static_cast<size_t>(index.row())];
    const ModeResult* other = secondMode(index.row());
    if (role == NanosecondsRole) {
        switch (index.column()) {
            case Gpu:
                return m.gpu_ns.median;
            case Encode:
                return m.encode_ns.median;
            case Wall:
                return m.wall_ns.median;
            case SecondGpu:
                return other ? QVariant(other->gpu_ns.median) : QVariant();
            case Delta:
                return other ? QVariant(other->gpu_ns.median - m.gpu_ns.median) : QVariant();
            default:
                return {};
        }
    }
    if (role == Qt::DisplayRole) {
        if (!m.error.empty() && index.column() >= Gpu && index.column() <= Wall)
            return index.column() == Gpu ? tr("failed") : QVariant();
        switch (index.column()) {
            case Mode:
                return QString::fromStdString(m.mode);
            case Gpu:
                return formatDuration(m.gpu_ns.median);
            case GpuSpread:
                return QStringLiteral("%1 – %2").arg(formatDuration(m.gpu_ns.min),
                                                     formatDuration(m.gpu_ns.max));
            case Encode:
                return formatDuration(m.encode_ns.median);
            case Wall:
                return formatDuration(m.wall_ns.median);
            case Dispatches:
                return qulonglong(m.dispatches);
            case Barriers:
                return qulonglong(m.barriers);
            case CommandBuffers:
                return qulonglong(m.command_buffers);
            case Outputs:
                if (!m.error.empty()) return QString::fromStdString(m.error);
                return m.outputs_match
                           ? QString::fromStdString(m.comparison)
                           : tr("MISMATCH: %1").arg(QString::fromStdString(m.comparison));
            case SecondGpu:
                return other ? formatDuration(other->gpu_ns.median) : QVariant();
            case Delta: {
                if (!other || m.gpu_ns.median <= 0) return {};
                const double pct =
                    100.0 * (other->gpu_ns.median - m.gpu_ns.median) / m.gpu_ns.median;
                return QStringLiteral("%1%2%").arg(pct >= 0 ? "+" : "").arg(pct, 0, 'f', 1);
            }
        }
    }
    // The whole text: a comparison or error is longer than any column at a usable width.
    if (role == Qt::ToolTipRole && index.column() == Outputs) {
        const QString text = QString::fromStdString(m.error.empty() ? m.comparison : m.error);
        const QString where = describeMismatch(m);
        return where.isEmpty() ? text : text + QStringLiteral("\n\n") + where;
    }
    if (role == Qt::ForegroundRole && index.column() == Outputs &&
        (!m.outputs_match || !m.error.empty()))
        return QColor(0xD5, 0x5E, 0x00);
    return {};
}

QVariant TimingModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
        case Mode:
            return tr("Mode");
        case Gpu:
            return tr("GPU (median)");
        case GpuSpread:
            return tr("GPU spread");
        case Encode:
            return tr("CPU encode");
        case Wall:
            return tr("Wall");
        case Dispatches:
            return tr("Dispatches");
        case Barriers:
            return tr("Barriers");
        case CommandBuffers:
            return tr("Cmd buffers");
        case Outputs:
            return tr("Outputs vs serial");
        case SecondGpu:
            return tr("GPU (second run)");
        case Delta:
            return tr("Δ GPU");
    }
    return {};
}

QString describeMismatch(const ModeResult& mode) {
    if (!mode.mismatch) return {};
    const OutputMismatch& m = *mode.mismatch;
    QString line = QObject::tr("%1: %2 byte %3 is %4 in serial, %5 in %1")
                       .arg(QString::fromStdString(mode.mode), QString::fromStdString(m.allocation))
                       .arg(m.byte)
                       .arg(QString::fromStdString(m.expected), QString::fromStdString(m.actual));
    if (m.last_writer)
        line += QObject::tr("; last written by dispatch #%1 %2")
                    .arg(*m.last_writer)
                    .arg(QString::fromStdString(m.last_writer_label));
    return line;
}

}  // namespace graphlens::gui
