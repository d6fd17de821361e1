#include "app/memory_map_view.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QPainter>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
#include <set>

#include "models/presentation.h"

namespace graphlens::gui {

namespace {
constexpr int kRowH = 36, kBarH = 24, kNameW = 190, kRightPad = 80, kTop = 24;
}

MemoryMapCanvas::MemoryMapCanvas(SelectionState* state, QWidget* parent)
    : QWidget(parent), state_(state) {
    connect(state_, &SelectionState::selectionChanged, this, &MemoryMapCanvas::refresh);
    connect(state_, &SelectionState::stageChanged, this, &MemoryMapCanvas::refresh);
    connect(state_, &SelectionState::stageArrived, this, [this](int stage) {
        if (stage == state_->stage()) refresh();
    });
}

void MemoryMapCanvas::setShowAll(bool all) {
    show_all_ = all;
    refresh();
}

void MemoryMapCanvas::setZoomed(bool zoomed) {
    zoomed_ = zoomed;
    refresh();
}

void MemoryMapCanvas::refresh() {
    rows_.clear();
    spans_.clear();
    axis_labels_.clear();
    hazards_.clear();
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    if (s && a) {
        // The bytes the selection touches per allocation: [lowest begin, highest end).
        std::map<AllocationId, std::pair<uint64_t, uint64_t>> touched;
        for (size_t n : state_->selectedNodeIndices())
            for (const auto* list : {&s->graph->nodes[n].reads, &s->graph->nodes[n].writes})
                for (const ByteRange& r : *list) {
                    auto [it, fresh] = touched.try_emplace(r.allocation, r.begin, r.end);
                    if (!fresh) {
                        it->second.first = std::min(it->second.first, r.begin);
                        it->second.second = std::max(it->second.second, r.end);
                    }
                }
        for (const AllocationInfo& info : s->graph->allocations) {
            const auto it = touched.find(info.id);
            if (!show_all_ && it == touched.end()) continue;
            rows_.push_back(info.id);
            std::pair<uint64_t, uint64_t> span{0, std::max<uint64_t>(1, info.size)};
            std::pair<uint64_t, uint64_t> labelled{0, info.size};
            if (zoomed_ && it != touched.end() && it->second.second > it->second.first) {
                labelled = it->second;
                // A margin of a twentieth of the touched bytes on each side, inside the
                // allocation, so intervals that end at the span's edge stay visible as such.
                const uint64_t pad = (it->second.second - it->second.first) / 20;
                span = {it->second.first - std::min(pad, it->second.first),
                        std::min(span.second, it->second.second + pad)};
            }
            spans_.push_back(span);
            axis_labels_.push_back(labelled);
        }
        if (auto n = state_->selectedNodeIndex()) {
            hazards_ = a->hazards_in[*n];
            hazards_.insert(hazards_.end(), a->hazards_out[*n].begin(), a->hazards_out[*n].end());
        } else if (auto b = state_->selectedBarrierIndex()) {
            hazards_ = a->barrier_at(*b)->forcing;
        } else if (auto g = state_->selectedGroup()) {
            auto [in, out] = a->group_hazards(*g);
            hazards_ = std::move(in);
            hazards_.insert(hazards_.end(), out.begin(), out.end());
        } else if (auto r = state_->selectedRace()) {
            hazards_ = {a->races[*r].hazard_position};
        }
    }
    setMinimumHeight(int(rows_.size()) * kRowH + kTop + 6);
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
    const double barW = std::max(50, width() - kNameW - kRightPad);
    std::map<AllocationId, int> row_of;
    for (size_t i = 0; i < rows_.size(); ++i) row_of[rows_[i]] = int(i);
    paintTitle(p, *s);
    for (size_t i = 0; i < rows_.size(); ++i) paintRow(p, s->graph->allocations[rows_[i]], i, barW);
    paintAccesses(p, *s, row_of, barW);
    paintHazardOutlines(p, row_of, barW);
}

// A byte range of row `row` on screen (clipped to the row's span), in the upper or lower
// half of the bar.
QRectF MemoryMapCanvas::spanRect(const ByteRange& r, int row, bool upper, double barW) const {
    const auto [lo, hi] = spans_[size_t(row)];
    const double scale = barW / double(hi - lo);
    const double b = double(std::clamp(r.begin, lo, hi) - lo);
    const double e = double(std::clamp(r.end, lo, hi) - lo);
    const double y = kTop + row * kRowH + (upper ? 2 : kBarH / 2);
    return QRectF(kNameW + b * scale, y, std::max(2.0, (e - b) * scale), kBarH / 2.0 - 3);
}

void MemoryMapCanvas::paintTitle(QPainter& p, const Snapshot& s) const {
    const auto primary = state_->selectedNodeIndex();
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(4, 2, width() - 8, 18), Qt::AlignLeft | Qt::AlignVCenter,
               tr("Reads (upper, blue) and writes (lower, vermillion) of %1; hazard bytes outlined")
                   .arg(primary                   ? nodeTitle(s.graph, *primary)
                        : state_->selectedGroup() ? tr("group %1").arg(*state_->selectedGroup())
                        : state_->selectedRace()  ? tr("the race's two commands")
                                                  : tr("the groups around the barrier")));
}

// The allocation's name, size and empty bar, with its byte axis below.
void MemoryMapCanvas::paintRow(QPainter& p, const AllocationInfo& a, size_t row,
                               double barW) const {
    const int y = kTop + int(row) * kRowH;
    p.setPen(palette().color(QPalette::Text));
    p.drawText(
        QRect(4, y, kNameW - 8, kBarH), Qt::AlignVCenter | Qt::AlignLeft,
        p.fontMetrics().elidedText(QString::fromStdString(a.name), Qt::ElideMiddle, kNameW - 8));
    p.drawText(QRect(kNameW + int(barW) + 6, y, kRightPad - 8, kBarH),
               Qt::AlignVCenter | Qt::AlignLeft, formatBytes(a.size));
    p.fillRect(QRectF(kNameW, y + 1, barW, kBarH - 2), palette().color(QPalette::AlternateBase));
    p.setPen(QColor(0, 0, 0, 60));
    p.drawRect(QRectF(kNameW, y + 1, barW, kBarH - 2));
    paintAxisLabels(p, row, barW);
}

// The byte axis: real offsets (the first byte touched and the end of the last, or the
// allocation's ends), each under the place it names; the margin around a zoomed span is no
// offset of anything and gets no label.
void MemoryMapCanvas::paintAxisLabels(QPainter& p, size_t row, double barW) const {
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    p.save();
    p.setFont(small);
    p.setPen(palette().color(QPalette::PlaceholderText));
    const auto [lo, hi] = spans_[row];
    const auto [first, end] = axis_labels_[row];
    const auto x_of = [&](uint64_t offset) {
        return kNameW + barW * double(offset - lo) / double(std::max<uint64_t>(1, hi - lo));
    };
    const QString first_text = QStringLiteral("0x%1").arg(first, 0, 16);
    const QString end_text = QStringLiteral("0x%1").arg(end, 0, 16);
    const QFontMetricsF fm(small);
    const double label_y = kTop + int(row) * kRowH + kBarH - 1;
    const double label_h = kRowH - kBarH;
    p.drawText(QRectF(x_of(first), label_y, fm.horizontalAdvance(first_text) + 2, label_h),
               Qt::AlignLeft | Qt::AlignTop, first_text);
    const double end_w = fm.horizontalAdvance(end_text) + 2;
    p.drawText(QRectF(x_of(end) - end_w, label_y, end_w, label_h), Qt::AlignRight | Qt::AlignTop,
               end_text);
    p.restore();
}

// What the selected commands read (upper half) and write (lower half); the primary selection
// opaque, the others of a group or barrier lighter.
void MemoryMapCanvas::paintAccesses(QPainter& p, const Snapshot& s,
                                    const std::map<AllocationId, int>& row_of, double barW) const {
    const auto primary = state_->selectedNodeIndex();
    for (size_t n : state_->selectedNodeIndices()) {
        const Node& node = s.graph->nodes[n];
        const int alpha = !primary || *primary == n ? 255 : 140;
        QColor rc = readColor(), wc = writeColor();
        rc.setAlpha(alpha);
        wc.setAlpha(alpha);
        for (const ByteRange& r : node.reads)
            if (auto it = row_of.find(r.allocation); it != row_of.end())
                p.fillRect(spanRect(r, it->second, true, barW), rc);
        for (const ByteRange& r : node.writes)
            if (auto it = row_of.find(r.allocation); it != row_of.end())
                p.fillRect(spanRect(r, it->second, false, barW), wc);
    }
}

// The overlapping bytes of the hazards, across both halves of the row.
void MemoryMapCanvas::paintHazardOutlines(QPainter& p, const std::map<AllocationId, int>& row_of,
                                          double barW) const {
    const StageAnalysis* an = state_->analysis();
    p.setBrush(Qt::NoBrush);
    for (size_t h : hazards_) {
        const Hazard& hz = an->hazards[h];
        if (auto it = row_of.find(hz.overlap().allocation); it != row_of.end()) {
            QRectF r = spanRect(hz.overlap(), it->second, true, barW);
            r.setBottom(r.top() + kBarH - 4);
            p.setPen(QPen(hazardColor(hz.kind), 2, Qt::DotLine));
            p.drawRect(r);
        }
    }
}

MemoryMapView::MemoryMapView(SelectionState* state, QWidget* parent) : QWidget(parent) {
    canvas_ = new MemoryMapCanvas(state);
    auto* all = new QCheckBox(tr("Show every allocation"));
    connect(all, &QCheckBox::toggled, canvas_, &MemoryMapCanvas::setShowAll);
    auto* zoom = new QCheckBox(tr("Zoom to the bytes touched"));
    zoom->setChecked(true);
    connect(zoom, &QCheckBox::toggled, canvas_, &MemoryMapCanvas::setZoomed);
    auto* options = new QHBoxLayout;
    options->addWidget(all);
    options->addWidget(zoom);
    options->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(canvas_);
    scroll->setWidgetResizable(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(options);
    layout->addWidget(scroll, 1);
}

}  // namespace graphlens::gui
