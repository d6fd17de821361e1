#include "models/presentation.h"

#include <QAbstractItemModel>
#include <algorithm>
#include <map>
#include <set>

#include "graphlens/graph/op_family.h"
#include "graphlens/graph/palette.h"
#include "models/document.h"

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

QString allocationName(const ComputeGraph& graph, const ByteRange& r) {
    return r.allocation < graph.allocations.size()
               ? QString::fromStdString(graph.allocations[r.allocation].name)
               : QStringLiteral("alloc%1").arg(r.allocation);
}

QString formatInterval(const ByteRange& r) {
    return QStringLiteral("[0x%1, 0x%2) %3")
        .arg(r.begin, 0, 16)
        .arg(r.end, 0, 16)
        .arg(formatBytes(r.size()));
}

QString formatRange(const ComputeGraph& graph, const ByteRange& r) {
    return allocationName(graph, r) + QLatin1Char(' ') + formatInterval(r);
}

QString formatRanges(const ComputeGraph& graph, const std::vector<ByteRange>& ranges) {
    QStringList parts;
    for (const ByteRange& r : ranges) parts << formatRange(graph, r);
    return parts.join(QStringLiteral("; "));
}

QString formatDuration(double ns) {
    if (ns >= 1e10) return QStringLiteral("%1 s").arg(ns / 1e9, 0, 'f', 2);
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

QString capturedDispatchName(const Document& document, NodeId id) {
    if (document.ready(0)) {
        const auto& index_of_id = document.analysis(0).index_of_id;
        if (auto it = index_of_id.find(id); it != index_of_id.end())
            return nodeTitle(document.snapshot(0).graph, it->second);
    }
    return QObject::tr("dispatch id %1").arg(id);
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

QColor toQColor(Rgb c) {
    return QColor(c.r, c.g, c.b);
}

}  // namespace

QColor opColor(OpKind op) {
    return toQColor(op_family_colour(op_family(op)));
}

QString opFamily(OpKind op) {
    const std::string_view name = op_family_name(op_family(op));
    return QString::fromUtf8(name.data(), qsizetype(name.size()));
}

QColor hazardColor(HazardKind kind) {
    return toQColor(hazard_colour(kind));
}

QColor readColor() {
    return QColor(0x56, 0xB4, 0xE9);
}
QColor writeColor() {
    return QColor(0xD5, 0x5E, 0x00);
}
QColor barrierColor() {
    return toQColor(barrier_colour());
}
QColor redundantBarrierColor() {
    return toQColor(redundant_barrier_colour());
}
QColor raceColor() {
    return toQColor(race_colour());
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
