#include "models/presentation.h"

#include <QAbstractItemModel>
#include <algorithm>
#include <map>
#include <set>

namespace graphlens::gui {

QString formatBytes(uint64_t bytes) {
    static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    if (u == 0) return QStringLiteral("%1 B").arg(bytes);
    return QStringLiteral("%1 %2").arg(v, 0, 'f', v < 10 ? 2 : (v < 100 ? 1 : 0)).arg(units[u]);
}

QString formatRange(const ComputeGraph& graph, const ByteRange& r) {
    const QString name = r.allocation < graph.allocations.size()
                             ? QString::fromStdString(graph.allocations[r.allocation].name)
                             : QStringLiteral("alloc%1").arg(r.allocation);
    return QStringLiteral("%1 [0x%2, 0x%3) %4")
        .arg(name)
        .arg(r.begin, 0, 16)
        .arg(r.end, 0, 16)
        .arg(formatBytes(r.size()));
}

QString formatRanges(const ComputeGraph& graph, const std::vector<ByteRange>& ranges) {
    QStringList parts;
    for (const ByteRange& r : ranges) parts << formatRange(graph, r);
    return parts.join(QStringLiteral("; "));
}

QString formatDuration(double ns) {
    if (ns >= 1e6) return QStringLiteral("%1 ms").arg(ns / 1e6, 0, 'f', 2);
    if (ns >= 1e3) return QStringLiteral("%1 µs").arg(ns / 1e3, 0, 'f', 1);
    return QStringLiteral("%1 ns").arg(ns, 0, 'f', 0);
}

QString nodeTitle(const ComputeGraph& graph, size_t index) {
    if (index >= graph.nodes.size()) return QStringLiteral("#%1 ?").arg(index);
    const Node& n = graph.nodes[index];
    if (n.is_barrier()) return QStringLiteral("#%1 barrier").arg(index);
    return QStringLiteral("#%1 %2").arg(index).arg(QString::fromStdString(n.label));
}

QString opName(OpKind op) {
    const auto name = op_kind_name(op);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

QString hazardName(HazardKind kind) {
    const auto name = hazard_kind_name(kind);
    return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

namespace {
enum class Family { matmul, attention, norm, elementwise, activation, rope, copy, other };

Family familyOf(OpKind op) {
    switch (op) {
        case OpKind::matmul:
        case OpKind::quantized_matmul:
        case OpKind::quantized_matmul_ggml:
        case OpKind::quantized_matmul_id_ggml:
        case OpKind::act_mul_matvec:
        case OpKind::matvec_epilogue:
        case OpKind::matvec_glu:
            return Family::matmul;
        case OpKind::sdpa:
        case OpKind::flash_attn_vec:
        case OpKind::flash_attn_reduce:
        case OpKind::softmax:
        case OpKind::softcap:
        case OpKind::topk:
            return Family::attention;
        case OpKind::rms_norm:
        case OpKind::rms_norm_no_scale:
        case OpKind::rms_norm_mul:
        case OpKind::rms_norm_mul_add:
        case OpKind::add_rms_norm_mul:
            return Family::norm;
        case OpKind::add:
        case OpKind::mul:
        case OpKind::scale:
        case OpKind::multi_add:
            return Family::elementwise;
        case OpKind::gelu:
        case OpKind::silu:
        case OpKind::gelu_mul:
        case OpKind::silu_mul:
            return Family::activation;
        case OpKind::rope:
        case OpKind::rope_neox:
        case OpKind::rope_copy:
        case OpKind::rms_norm_mul_rope:
            return Family::rope;
        case OpKind::copy:
        case OpKind::get_rows:
        case OpKind::quantize_q8:
            return Family::copy;
        case OpKind::other:
            break;
    }
    return Family::other;
}
}  // namespace

QColor opColor(OpKind op) {
    // Okabe & Ito (2008): blue, vermillion, bluish green, orange, reddish purple, sky blue,
    // yellow, grey.
    switch (familyOf(op)) {
        case Family::matmul:
            return QColor(0x00, 0x72, 0xB2);
        case Family::attention:
            return QColor(0xD5, 0x5E, 0x00);
        case Family::norm:
            return QColor(0x00, 0x9E, 0x73);
        case Family::elementwise:
            return QColor(0xE6, 0x9F, 0x00);
        case Family::activation:
            return QColor(0xCC, 0x79, 0xA7);
        case Family::rope:
            return QColor(0x56, 0xB4, 0xE9);
        case Family::copy:
            return QColor(0xF0, 0xE4, 0x42);
        case Family::other:
            break;
    }
    return QColor(0x99, 0x99, 0x99);
}

QString opFamily(OpKind op) {
    switch (familyOf(op)) {
        case Family::matmul:
            return QStringLiteral("matmul");
        case Family::attention:
            return QStringLiteral("attention");
        case Family::norm:
            return QStringLiteral("norm");
        case Family::elementwise:
            return QStringLiteral("element-wise");
        case Family::activation:
            return QStringLiteral("activation");
        case Family::rope:
            return QStringLiteral("rope");
        case Family::copy:
            return QStringLiteral("copy");
        case Family::other:
            break;
    }
    return QStringLiteral("other");
}

QColor hazardColor(HazardKind kind) {
    switch (kind) {
        case HazardKind::raw:
            return QColor(0x00, 0x72, 0xB2);
        case HazardKind::war:
            return QColor(0xE6, 0x9F, 0x00);
        case HazardKind::waw:
            return QColor(0xCC, 0x79, 0xA7);
    }
    return Qt::gray;
}

QColor readColor() {
    return QColor(0x56, 0xB4, 0xE9);
}
QColor writeColor() {
    return QColor(0xD5, 0x5E, 0x00);
}
QColor barrierColor() {
    return QColor(0x20, 0x20, 0x20);
}
QColor redundantBarrierColor() {
    return QColor(0xD5, 0x5E, 0x00);
}

QString rowsAsTsv(const QAbstractItemModel& model, const QModelIndexList& indexes) {
    std::map<int, std::set<int>> cells;  // row -> columns, both in model order
    std::set<int> columns;
    for (const QModelIndex& i : indexes) {
        cells[i.row()].insert(i.column());
        columns.insert(i.column());
    }
    auto clean = [](QString s) {
        s.replace(QLatin1Char('\t'), QLatin1Char(' '));
        s.replace(QLatin1Char('\n'), QLatin1Char(' '));
        return s;
    };
    QStringList lines;
    QStringList header;
    for (int c : columns) header << clean(model.headerData(c, Qt::Horizontal).toString());
    lines << header.join(QLatin1Char('\t'));
    const QModelIndex parent = indexes.isEmpty() ? QModelIndex() : indexes.first().parent();
    for (const auto& [row, cols] : cells) {
        QStringList fields;
        for (int c : columns)
            fields << (cols.count(c) ? clean(model.index(row, c, parent).data().toString())
                                     : QString());
        lines << fields.join(QLatin1Char('\t'));
    }
    return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace graphlens::gui
