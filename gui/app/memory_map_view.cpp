#include "app/memory_map_view.h"

#include <QCheckBox>
#include <QPainter>
#include <QScrollArea>
#include <QVBoxLayout>
#include <map>
#include <set>

#include "models/presentation.h"

namespace graphlens::gui {

namespace {
constexpr int kRowH = 26, kNameW = 190, kRightPad = 90;
}

MemoryMapCanvas::MemoryMapCanvas(SelectionState* state, QWidget* parent)
    : QWidget(parent), state_(state) {
    connect(state_, &SelectionState::selectionChanged, this, &MemoryMapCanvas::refresh);
    connect(state_, &SelectionState::documentChanged, this, &MemoryMapCanvas::refresh);
    connect(state_, &SelectionState::stageChanged, this, &MemoryMapCanvas::refresh);
    connect(state_, &SelectionState::stageArrived, this, [this](int stage) {
        if (stage == state_->stage()) refresh();
    });
}

void MemoryMapCanvas::setShowAll(bool all) {
    show_all_ = all;
    refresh();
}

void MemoryMapCanvas::refresh() {
    rows_.clear();
    const Snapshot* s = state_->snapshot();
    if (s) {
        std::set<AllocationId> touched;
        for (size_t n : state_->selectedNodeIndices())
            for (const auto* list : {&s->graph.nodes[n].reads, &s->graph.nodes[n].writes})
                for (const ByteRange& r : *list) touched.insert(r.allocation);
        for (const AllocationInfo& a : s->graph.allocations)
            if (show_all_ || touched.count(a.id)) rows_.push_back(a.id);
    }
    setMinimumHeight(int(rows_.size()) * kRowH + 30);
    update();
}

void MemoryMapCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const Snapshot* s = state_->snapshot();
    if (!s) return;
    if (rows_.empty()) {
        p.drawText(rect(), Qt::AlignCenter,
                   tr("Select a dispatch or a barrier to see the bytes it touches"));
        return;
    }
    const std::vector<size_t> nodes = state_->selectedNodeIndices();
    const auto primary = state_->selectedNodeIndex();
    const double barW = std::max(50, width() - kNameW - kRightPad);
    std::map<AllocationId, int> row_of;
    for (size_t i = 0; i < rows_.size(); ++i) row_of[rows_[i]] = int(i);
    auto span = [&](const ByteRange& r, int row, bool upper) {
        const double size = double(std::max<uint64_t>(1, s->graph.allocations[r.allocation].size));
        const double x0 = kNameW + barW * double(r.begin) / size;
        const double x1 = kNameW + barW * double(r.end) / size;
        const double y = 24 + row * kRowH + (upper ? 2 : kRowH / 2);
        return QRectF(x0, y, std::max(2.0, x1 - x0), kRowH / 2.0 - 3);
    };
    p.setPen(palette().color(QPalette::Text));
    p.drawText(
        QRect(4, 2, width() - 8, 18), Qt::AlignLeft | Qt::AlignVCenter,
        tr("Reads (upper, blue) and writes (lower, vermillion) of %1")
            .arg(primary ? nodeTitle(s->graph, *primary) : tr("the groups around the barrier")));
    for (size_t i = 0; i < rows_.size(); ++i) {
        const AllocationInfo& a = s->graph.allocations[rows_[i]];
        const int y = 24 + int(i) * kRowH;
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(4, y, kNameW - 8, kRowH), Qt::AlignVCenter | Qt::AlignLeft,
                   p.fontMetrics().elidedText(QString::fromStdString(a.name), Qt::ElideMiddle,
                                              kNameW - 8));
        p.drawText(QRect(kNameW + int(barW) + 6, y, kRightPad - 8, kRowH),
                   Qt::AlignVCenter | Qt::AlignLeft, formatBytes(a.size));
        p.fillRect(QRectF(kNameW, y + 1, barW, kRowH - 2),
                   palette().color(QPalette::AlternateBase));
        p.setPen(QColor(0, 0, 0, 60));
        p.drawRect(QRectF(kNameW, y + 1, barW, kRowH - 2));
    }
    for (size_t n : nodes) {
        const Node& node = s->graph.nodes[n];
        const int alpha = !primary || *primary == n ? 255 : 140;
        QColor rc = readColor(), wc = writeColor();
        rc.setAlpha(alpha);
        wc.setAlpha(alpha);
        for (const ByteRange& r : node.reads)
            if (auto it = row_of.find(r.allocation); it != row_of.end())
                p.fillRect(span(r, it->second, true), rc);
        for (const ByteRange& r : node.writes)
            if (auto it = row_of.find(r.allocation); it != row_of.end())
                p.fillRect(span(r, it->second, false), wc);
    }
    // Hazards of the selected dispatch, outlined where they overlap.
    if (primary) {
        const StageAnalysis* an = state_->analysis();
        p.setBrush(Qt::NoBrush);
        for (const auto* list : {&an->hazards_in[*primary], &an->hazards_out[*primary]})
            for (size_t h : *list) {
                const Hazard& hz = an->hazards[h];
                if (auto it = row_of.find(hz.overlap.allocation); it != row_of.end()) {
                    QRectF r = span(hz.overlap, it->second, true);
                    r.setBottom(r.top() + kRowH - 4);
                    p.setPen(QPen(hazardColor(hz.kind), 2, Qt::DotLine));
                    p.drawRect(r);
                }
            }
    }
}

MemoryMapView::MemoryMapView(SelectionState* state, QWidget* parent) : QWidget(parent) {
    canvas_ = new MemoryMapCanvas(state);
    auto* all = new QCheckBox(tr("Show every allocation"));
    connect(all, &QCheckBox::toggled, canvas_, &MemoryMapCanvas::setShowAll);
    auto* scroll = new QScrollArea;
    scroll->setWidget(canvas_);
    scroll->setWidgetResizable(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(all);
    layout->addWidget(scroll, 1);
}

}  // namespace graphlens::gui
