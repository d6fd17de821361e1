#include "app/schedule_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>
#include <iterator>

#include "models/presentation.h"
#include "models/schedule_box_label.h"

namespace graphlens::gui {

ScheduleView::ScheduleView(SelectionState* state, QWidget* parent)
    : QAbstractScrollArea(parent), state_(state) {
    viewport()->setMouseTracking(true);
    viewport()->setBackgroundRole(QPalette::Base);
    viewport()->setAutoFillBackground(true);
    setMinimumSize(200, 120);
    connect(state_, &SelectionState::documentChanged, this, [this] {
        // A document opens at its own start and zoom, not where the last one was left.
        layout_.setScale(ScheduleLayout::kDefaultColumnWidth, layout_.boxHeight());
        horizontalScrollBar()->setValue(0);
        verticalScrollBar()->setValue(0);
    });
    connect(state_, &SelectionState::stageChanged, this, &ScheduleView::rebuild);
    connect(state_, &SelectionState::stageArrived, this, [this](int stage) {
        if (stage == state_->stage()) rebuild();
    });
    connect(state_, &SelectionState::selectionChanged, this, [this] {
        scrollToSelection();
        viewport()->update();
    });
    connect(state_, &SelectionState::filterChanged, viewport(), qOverload<>(&QWidget::update));
}

bool ScheduleView::dimmed(size_t node_index) const {
    const Snapshot* s = state_->snapshot();
    return s && !state_->nodeFilter().matches(s->graph, node_index);
}

void ScheduleView::rebuild() {
    const StageAnalysis* a = state_->analysis();
    std::vector<size_t> sizes;
    if (a) {
        sizes.reserve(a->group_nodes.size());
        for (const auto& g : a->group_nodes) sizes.push_back(g.size());
    }
    layout_.setGroups(std::move(sizes));
    // Fit the height of the tallest group into the view when it is small enough.
    const double h = std::max(60, viewport()->height() - header_ - 4);
    const double tallest = std::max<double>(1, double(layout_.maxGroupSize()));
    layout_.setScale(layout_.columnWidth(), std::clamp(h / tallest, 3.0, 40.0));
    updateScrollBars();
    scrollToSelection();
    viewport()->update();
}

void ScheduleView::updateScrollBars() {
    horizontalScrollBar()->setRange(0, std::max(0, int(layout_.width()) - viewport()->width()));
    horizontalScrollBar()->setPageStep(viewport()->width());
    verticalScrollBar()->setRange(
        0, std::max(0, int(layout_.height()) + header_ - viewport()->height()));
    verticalScrollBar()->setPageStep(viewport()->height());
}

void ScheduleView::resizeEvent(QResizeEvent* event) {
    QAbstractScrollArea::resizeEvent(event);
    header_ = headerHeight(fontMetrics(), viewport()->width());
    updateScrollBars();
}

QPointF ScheduleView::toContent(QPointF p) const {
    return {p.x() + horizontalScrollBar()->value(), p.y() + verticalScrollBar()->value() - header_};
}

void ScheduleView::zoom(double fx, double fy, double anchor_x) {
    const double content_x = anchor_x + horizontalScrollBar()->value();
    const double old_pitch = layout_.columnWidth() + layout_.gap();
    layout_.setScale(layout_.columnWidth() * fx, layout_.boxHeight() * fy);
    const double new_pitch = layout_.columnWidth() + layout_.gap();
    updateScrollBars();
    horizontalScrollBar()->setValue(int(content_x * new_pitch / old_pitch - anchor_x));
    viewport()->update();
}

void ScheduleView::fitAll() {
    layout_.setScale(layout_.columnWidthToFit(viewport()->width()), layout_.boxHeight());
    updateScrollBars();
    horizontalScrollBar()->setValue(0);
    viewport()->update();
}

void ScheduleView::wheelEvent(QWheelEvent* event) {
    if (event->modifiers() & Qt::ControlModifier) {
        const double f = std::pow(1.0015, event->angleDelta().y());
        if (event->modifiers() & Qt::ShiftModifier)
            zoom(1, f, event->position().x());
        else
            zoom(f, 1, event->position().x());
        event->accept();
        return;
    }
    if (event->modifiers() & Qt::ShiftModifier) {
        // Sideways: a schedule is long and low. (A mouse wheel turns y, a touchpad gives x.)
        const QPoint d = event->angleDelta();
        const int steps = d.x() != 0 ? d.x() : d.y();
        // One notch (120) moves an eighth of the view.
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() -
                                        steps * viewport()->width() / 960);
        event->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(event);
}

std::optional<size_t> ScheduleView::nodeAt(QPointF viewport) const {
    const StageAnalysis* a = state_->analysis();
    if (!a) return std::nullopt;
    const auto hit = layout_.hitTest(toContent(viewport));
    switch (hit.kind) {
        case ScheduleLayout::Hit::Kind::dispatch:
            return a->group_nodes[hit.group][hit.slot];
        case ScheduleLayout::Hit::Kind::barrier:
            if (a->barrier_before_group[hit.group] >= 0)
                return static_cast<size_t>(a->barrier_before_group[hit.group]);
            break;
        case ScheduleLayout::Hit::Kind::none:
            break;
    }
    return std::nullopt;
}

QPoint ScheduleView::boxCenter(size_t node_index) const {
    const StageAnalysis* a = state_->analysis();
    const QRectF r =
        layout_.boxRect(static_cast<size_t>(a->group[node_index]), a->slot_in_group[node_index]);
    return QPoint(int(r.center().x()) - horizontalScrollBar()->value(),
                  int(r.center().y()) + header_ - verticalScrollBar()->value());
}

std::optional<size_t> ScheduleView::groupHeaderAt(QPointF viewport) const {
    // The line of group numbers, just above the columns.
    if (viewport.y() < header_ - 18 || viewport.y() >= header_) return std::nullopt;
    const double x = viewport.x() + horizontalScrollBar()->value();
    const auto [first, last] = layout_.visibleGroups(x, x + 1);
    for (size_t g = first; g < last; ++g)
        if (x >= layout_.columnX(g) && x < layout_.columnX(g) + layout_.columnWidth()) return g;
    return std::nullopt;
}

QPoint ScheduleView::groupHeaderPoint(size_t group) const {
    return QPoint(
        int(layout_.columnX(group) + layout_.columnWidth() / 2) - horizontalScrollBar()->value(),
        header_ - 8);
}

QPoint ScheduleView::barrierPoint(size_t barrier_node_index) const {
    const StageAnalysis* a = state_->analysis();
    if (!a) return {-1, -1};
    for (size_t g = 0; g < a->barrier_before_group.size(); ++g)
        if (a->barrier_before_group[g] == static_cast<long>(barrier_node_index))
            return QPoint(int(std::round(layout_.barrierX(g))) - horizontalScrollBar()->value(),
                          header_ + 4);
    return {-1, -1};
}

QPainterPath ScheduleView::racePath(size_t race) const {
    const StageAnalysis* a = state_->analysis();
    const Hazard& h = a->races[race].hazard;
    return layout_.racePath(static_cast<size_t>(a->group[h.earlier]), a->slot_in_group[h.earlier],
                            static_cast<size_t>(a->group[h.later]), a->slot_in_group[h.later]);
}

QPoint ScheduleView::racePoint(size_t race) const {
    const StageAnalysis* a = state_->analysis();
    const Hazard& h = a->races[race].hazard;
    const QPointF p =
        layout_.raceHandle(static_cast<size_t>(a->group[h.earlier]), a->slot_in_group[h.earlier],
                           static_cast<size_t>(a->group[h.later]), a->slot_in_group[h.later]);
    return QPoint(int(std::round(p.x())) - horizontalScrollBar()->value(),
                  int(std::round(p.y())) + header_ - verticalScrollBar()->value());
}

std::optional<size_t> ScheduleView::raceAt(QPointF viewport) const {
    const StageAnalysis* a = state_->analysis();
    if (!a || a->races.empty()) return std::nullopt;
    const QPointF p = toContent(viewport);
    // Boxes keep their clicks: a race is found only where its line crosses empty space.
    if (layout_.hitTest(p).kind == ScheduleLayout::Hit::Kind::dispatch) return std::nullopt;
    const QRectF near(p - QPointF(4, 4), QSizeF(8, 8));
    QPainterPathStroker stroker;
    stroker.setWidth(8);
    for (size_t r = 0; r < a->races.size(); ++r) {
        const QPainterPath path = racePath(r);
        if (path.controlPointRect().adjusted(-4, -4, 4, 4).contains(p) &&
            stroker.createStroke(path).intersects(near))
            return r;
    }
    return std::nullopt;
}

void ScheduleView::scrollToSelection() {
    const StageAnalysis* a = state_->analysis();
    if (!a) return;
    std::optional<double> x;
    if (auto n = state_->selectedNodeIndex())
        x = layout_.columnX(static_cast<size_t>(a->group[*n]));
    else if (auto g = state_->selectedGroup())
        x = layout_.columnX(*g);
    else if (auto r = state_->selectedRace())
        x = layout_.columnX(static_cast<size_t>(a->group[a->races[*r].hazard.earlier]));
    else if (auto b = state_->selectedBarrierIndex())
        if (const BarrierExplanation* e = a->barrier_at(*b); e && e->group_after >= 0)
            x = layout_.barrierX(static_cast<size_t>(e->group_after));
    if (!x) return;
    const int left = horizontalScrollBar()->value();
    if (*x < left + 20 || *x > left + viewport()->width() - 40)
        horizontalScrollBar()->setValue(int(*x - viewport()->width() / 2));
}

void ScheduleView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    dragging_ = true;
    dragged_ = false;
    drag_origin_ = event->position().toPoint();
    drag_scroll_ = {horizontalScrollBar()->value(), verticalScrollBar()->value()};
}

void ScheduleView::mouseMoveEvent(QMouseEvent* event) {
    if (!dragging_) return;
    const QPoint d = event->position().toPoint() - drag_origin_;
    if (d.manhattanLength() > 4) dragged_ = true;
    if (dragged_) {
        horizontalScrollBar()->setValue(drag_scroll_.x() - d.x());
        verticalScrollBar()->setValue(drag_scroll_.y() - d.y());
    }
}

void ScheduleView::mouseReleaseEvent(QMouseEvent* event) {
    if (!dragging_ || event->button() != Qt::LeftButton) return;
    dragging_ = false;
    if (dragged_) return;
    if (auto g = groupHeaderAt(event->position()))
        state_->selectGroup(*g);
    else if (auto r = raceAt(event->position()))
        state_->selectRace(*r);
    else if (auto n = nodeAt(event->position()))
        state_->selectNodeIndex(*n);
    else
        state_->clearSelection();
}

QString ScheduleView::tooltipAt(QPoint viewport) const {
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    if (!s || !a) return {};
    if (auto r = raceAt(viewport))
        return tr("Race (click to inspect): %1")
            .arg(QString::fromStdString(a->races[*r].explanation));
    const auto n = nodeAt(viewport);
    if (!n) return usageHint();
    const Node& node = s->graph->nodes[*n];
    if (!node.is_barrier())
        return QStringLiteral("%1\n%2  group %3")
            .arg(nodeTitle(s->graph, *n), opName(node.op))
            .arg(a->group[*n]);
    // Every barrier of this gap (a recorded program may have several in a row), each with
    // the core's verdict and, for a recorded one, its scope.
    QStringList lines;
    const BarrierExplanation* first = a->barrier_at(*n);
    const auto [begin, end] = first && first->group_after >= 0
                                  ? a->gap_barriers[static_cast<size_t>(first->group_after)]
                                  : std::pair<size_t, size_t>{0, 0};
    for (size_t k = begin; k < end; ++k) {
        const BarrierExplanation& b = a->barriers[k];
        QString line = b.redundant()
                           ? tr("Barrier #%1: redundant (no hazard needs it)").arg(b.node_index)
                           : tr("Barrier #%1: forced by %2 hazard(s); click for details")
                                 .arg(b.node_index)
                                 .arg(b.forcing.size());
        if (!b.scope.empty())
            line += QStringLiteral("\n  ") + (b.partial ? tr("partial scope: ") : tr("scope: ")) +
                    QString::fromStdString(b.scope);
        lines << line;
    }
    return lines.join(QLatin1Char('\n'));
}

bool ScheduleView::viewportEvent(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = tooltipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void ScheduleView::paintColumns(QPainter& p, size_t first, size_t last) const {
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    // The shared filter dims what it does not match (only the boxes on screen are tested).
    const NodeFilter& filter = state_->nodeFilter();
    const auto shown = [&](size_t n) {
        QColor c = opColor(s->graph->nodes[n].op);
        if (!filter.matches(s->graph, n)) c.setAlpha(45);
        return c;
    };
    for (size_t g = first; g < last; ++g) {
        const auto& members = a->group_nodes[g];
        if (!layout_.detailed()) {
            // Level of detail: one bar per column, height = group size.
            // Under a filter, a column shows the colour of its first match, or dims.
            size_t rep = members.front();
            if (!filter.empty())
                for (size_t m : members)
                    if (filter.matches(s->graph, m)) {
                        rep = m;
                        break;
                    }
            p.fillRect(QRectF(layout_.columnX(g), 0, layout_.columnWidth(),
                              layout_.boxHeight() * static_cast<double>(members.size())),
                       shown(rep));
            continue;
        }
        for (size_t k = 0; k < members.size(); ++k) {
            const QRectF r = layout_.boxRect(g, k).adjusted(0.5, 0.5, -0.5, -0.5);
            const QColor fill = shown(members[k]);
            p.fillRect(r, fill);
            if (layout_.columnWidth() < 40 || layout_.boxHeight() < 12) continue;
            p.setPen(fill.alpha() == 255 ? QColor(Qt::black) : QColor(0, 0, 0, 90));
            // Its end (".mul") tells boxes apart as much as its start, so a long label loses
            // its middle.
            const QString label = scheduleBoxLabel(*s->graph, members[k]);
            p.drawText(r.adjusted(2, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                       p.fontMetrics().elidedText(label, Qt::ElideMiddle, int(r.width()) - 4));
        }
    }
}

// Many groups share each pixel column: one bar per pixel, as tall as the tallest group in it,
// in the op colour of the first dispatch the filter matches there (dimmed when none does).
void ScheduleView::paintOverview(QPainter& p, size_t first, size_t last) const {
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    const NodeFilter& filter = state_->nodeFilter();
    size_t g = first;
    while (g < last) {
        const double px = std::floor(layout_.columnX(g));
        size_t tallest = 0;
        std::optional<size_t> shown;
        for (; g < last && layout_.columnX(g) < px + 1; ++g) {
            const auto& members = a->group_nodes[g];
            tallest = std::max(tallest, members.size());
            if (!shown)
                for (size_t m : members)
                    if (filter.matches(s->graph, m)) {
                        shown = m;
                        break;
                    }
        }
        QColor c = opColor(s->graph->nodes[shown.value_or(a->group_nodes[g - 1].front())].op);
        if (!shown) c.setAlpha(45);
        p.fillRect(QRectF(px, 0, 1, layout_.boxHeight() * double(tallest)), c);
    }
}

// A gap's line: solid when a full barrier is there, dotted when only recorded barriers whose
// scopes order less than a full one are; vermillion and dashed when none of them is needed.
void ScheduleView::paintBarrierLine(QPainter& p, size_t g, int sy, int height) const {
    const StageAnalysis* a = state_->analysis();
    const auto [begin, end] = a->gap_barriers[g];
    if (begin == end) return;
    bool redundant = true, partial = true;
    for (size_t k = begin; k < end; ++k) {
        redundant = redundant && a->barriers[k].redundant();
        partial = partial && a->barriers[k].partial;
    }
    const long b = a->barrier_before_group[g];
    const auto selected_barrier = state_->selectedBarrierIndex();
    const bool sel = selected_barrier && b >= 0 && *selected_barrier == size_t(b);
    const Qt::PenStyle style = partial ? Qt::DotLine : redundant ? Qt::DashLine : Qt::SolidLine;
    QPen pen(redundant ? redundantBarrierColor() : palette().color(QPalette::Text),
             sel ? 3 : (partial ? 1.5 : 1), style);
    if (sel) pen.setColor(QColor(0x00, 0x72, 0xB2));
    p.setPen(pen);
    const double bx = layout_.barrierX(g);
    p.drawLine(QPointF(bx, -header_ + sy + 2),
               QPointF(bx, std::max(layout_.height(), double(height + sy))));
}

// Each race whose span reaches the visible columns, over a white halo so that it stands out
// on boxes of any colour (the norms' boxes share its hue).
void ScheduleView::paintRaces(QPainter& p, size_t first, size_t last) {
    drawn_races_.clear();
    const StageAnalysis* a = state_->analysis();
    const auto selected = state_->selectedRace();
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setBrush(Qt::NoBrush);
    for (size_t r = 0; r < a->races.size(); ++r) {
        const Hazard& h = a->races[r].hazard;
        const auto from = static_cast<size_t>(a->group[h.earlier]);
        const auto to = static_cast<size_t>(a->group[h.later]);
        if (to < first || from >= last) continue;
        drawn_races_.push_back(r);
        const QPainterPath path = racePath(r);
        const double width = selected == r ? 4 : 2;
        p.setPen(QPen(QColor(255, 255, 255, 200), width + 2.5, Qt::SolidLine, Qt::RoundCap));
        p.drawPath(path);
        p.setPen(QPen(raceColor(), width, Qt::SolidLine, Qt::RoundCap));
        p.drawPath(path);
        for (const QPointF end : {path.pointAtPercent(0), path.pointAtPercent(1)}) {
            p.setBrush(raceColor());
            p.drawEllipse(end, width + 1, width + 1);
            p.setBrush(Qt::NoBrush);
        }
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void ScheduleView::paintSelection(QPainter& p, size_t first, size_t last) const {
    const StageAnalysis* a = state_->analysis();
    const auto selected_node = state_->selectedNodeIndex();
    p.setBrush(Qt::NoBrush);
    for (size_t n : state_->selectedNodeIndices()) {
        if (a->group[n] < 0) continue;
        const size_t g = static_cast<size_t>(a->group[n]);
        if (g < first || g >= last) continue;
        const QRectF r = layout_.detailed()
                             ? layout_.boxRect(g, a->slot_in_group[n])
                             : QRectF(layout_.columnX(g), 0, layout_.columnWidth(),
                                      layout_.boxHeight() * double(a->group_nodes[g].size()));
        const bool primary = selected_node && *selected_node == n;
        p.setPen(QPen(primary ? Qt::black : QColor(0, 0, 0, 140), primary ? 3 : 1.5));
        p.drawRect(r.adjusted(1, 1, -1, -1));
    }
}

void ScheduleView::paintEvent(QPaintEvent*) {
    QPainter p(viewport());
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    if (!s || !a) {
        drawn_races_.clear();
        const auto& doc = state_->document();
        p.drawText(viewport()->rect(), Qt::AlignCenter,
                   state_->stagePending()
                       ? tr("Stage \"%1\" is being computed…")
                             .arg(QString::fromStdString(
                                 doc->stages[static_cast<size_t>(state_->stage())].name))
                       : tr("No document"));
        return;
    }
    const int sx = horizontalScrollBar()->value(), sy = verticalScrollBar()->value();
    const auto [first, last] = layout_.visibleGroups(sx, sx + viewport()->width());
    p.translate(-sx, header_ - sy);
    paintContent(p, first, last, sy, viewport()->height());
    p.resetTransform();
    paintHeader(p, first, last, sx, viewport()->width());
}

void ScheduleView::paintContent(QPainter& p, size_t first, size_t last, int sy, int height) {
    if (layout_.overview()) {
        paintOverview(p, first, last);
    } else {
        paintColumns(p, first, last);
        // Lines closer than 3 px would paint the schedule black.
        if (layout_.columnWidth() + layout_.gap() >= 3)
            for (size_t g = std::max<size_t>(first, 1); g < last; ++g)
                paintBarrierLine(p, g, sy, height);
    }
    paintRaces(p, first, last);
    paintSelection(p, first, last);
}

QSize ScheduleView::wholeSize(int max_width) const {
    ScheduleLayout fitted = layout_;
    if (fitted.width() > max_width)
        fitted.setScale(fitted.columnWidthToFit(max_width), fitted.boxHeight());
    const int width = std::max(viewport()->width(), int(std::ceil(fitted.width())));
    return QSize(width, headerHeight(fontMetrics(), width) + int(std::ceil(fitted.height())) + 4);
}

void ScheduleView::paintWhole(QPainter& p, int max_width) {
    if (!state_->analysis()) return;
    const ScheduleLayout shown = layout_;
    const int shown_header = header_;
    if (layout_.width() > max_width)
        layout_.setScale(layout_.columnWidthToFit(max_width), layout_.boxHeight());
    const QSize size = wholeSize(max_width);
    header_ = headerHeight(fontMetrics(), size.width());
    p.fillRect(QRect(QPoint(0, 0), size), palette().color(QPalette::Base));
    p.save();
    p.translate(0, header_);
    paintContent(p, 0, layout_.groupCount(), 0, size.height() - header_);
    p.restore();
    paintHeader(p, 0, layout_.groupCount(), 0, size.width());
    layout_ = shown;
    header_ = shown_header;
}

void ScheduleView::paintHeader(QPainter& p, size_t first, size_t last, int sx, int width) const {
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    p.fillRect(QRect(0, 0, width, header_), palette().color(QPalette::Window));
    const QColor text = palette().color(QPalette::Text);
    p.setPen(text);
    // Group numbers where they fit.
    const double pitch = layout_.columnWidth() + layout_.gap();
    const size_t every = std::max<size_t>(1, size_t(std::ceil(40.0 / pitch)));
    for (size_t g = first - first % every; g < last; g += every)
        p.drawText(QPointF(layout_.columnX(g) - sx + 1, header_ - 4), QString::number(g));
    // The selected group: its number framed (drawn even where numbers are sparse).
    if (const auto sg = state_->selectedGroup(); sg && *sg >= first && *sg < last) {
        const QString number = QString::number(*sg);
        const QRectF box(
            layout_.columnX(*sg) - sx, header_ - 16,
            std::max(layout_.columnWidth(), double(p.fontMetrics().horizontalAdvance(number) + 4)),
            15);
        p.fillRect(box, palette().color(QPalette::Window));
        p.setPen(QPen(QColor(0x00, 0x72, 0xB2), 2));
        p.drawRect(box);
        p.setPen(text);
        p.drawText(box, Qt::AlignCenter, number);
    }
    paintLegend(p, width);
    const NodeFilter& filter = state_->nodeFilter();
    // The facts first; how to use the view only where it fits (it is also the tooltip of
    // the empty background), so a narrow window never cuts a number off.
    const QString facts =
        tr("%1: %2 groups, %3 barriers (%4 redundant, dashed%5), %6 race(s)%7")
            .arg(QString::fromStdString(s->stage))
            .arg(a->group_nodes.size())
            .arg(a->barriers.size())
            .arg(a->redundant_barriers())
            .arg(a->partial_barriers ? tr("; %1 partial scope, dotted").arg(a->partial_barriers)
                                     : QString())
            .arg(a->races.size())
            .arg(filter.empty() ? QString() : tr(", filter \"%1\"").arg(state_->filter()));
    const QString full = facts + QStringLiteral(" — ") + usageHint();
    const int room = width - 8;
    const QFontMetrics fm = p.fontMetrics();
    header_text_ =
        fm.horizontalAdvance(full) <= room ? full : fm.elidedText(facts, Qt::ElideMiddle, room);
    p.drawText(QRect(4, 0, room, 16), Qt::AlignLeft | Qt::AlignVCenter, header_text_);
}

QString ScheduleView::usageHint() {
    return tr(
        "click a box, a line or a group's number to inspect, drag or Shift+wheel to pan, "
        "Ctrl+wheel to zoom, Ctrl+Shift+F to see it all");
}

// The op families, then the marks that are not boxes: a race and a partial barrier; in as
// many rows as `width` needs, so a narrow view cuts none of them off.
std::vector<ScheduleView::LegendEntry> ScheduleView::legendEntries(const QFontMetrics& fm,
                                                                   int width) {
    const OpKind families[] = {OpKind::matmul, OpKind::flash_attn_vec, OpKind::rms_norm,
                               OpKind::add,    OpKind::silu,           OpKind::rope,
                               OpKind::copy,   OpKind::other};
    std::vector<LegendEntry> entries;
    for (OpKind op : families) entries.push_back({LegendEntry::Box, opFamily(op), opColor(op), {}});
    entries.push_back({LegendEntry::Race, tr("race"), raceColor(), {}});
    entries.push_back({LegendEntry::Partial, tr("partial barrier"), {}, {}});
    constexpr int kMark = 17;  // the mark and the space before its name
    constexpr int kSpacing = 6;
    QPoint at(4, 20);
    for (LegendEntry& e : entries) {
        const int w = kMark + fm.horizontalAdvance(e.name);
        if (at.x() > 4 && at.x() + w > width - 4) at = QPoint(4, at.y() + kLegendRow);
        e.at = at;
        at.rx() += w + kSpacing;
    }
    return entries;
}

int ScheduleView::headerHeight(const QFontMetrics& fm, int width) {
    const auto entries = legendEntries(fm, width);
    const int rows = 1 + (entries.back().at.y() - entries.front().at.y()) / kLegendRow;
    return kHeaderWithOneLegendRow + (rows - 1) * kLegendRow;
}

void ScheduleView::paintLegend(QPainter& p, int width) const {
    const QColor text = palette().color(QPalette::Text);
    for (const LegendEntry& e : legendEntries(p.fontMetrics(), width)) {
        const double x = e.at.x(), y = e.at.y();
        switch (e.mark) {
            case LegendEntry::Box:
                p.fillRect(QRectF(x, y, 10, 10), e.color);
                break;
            case LegendEntry::Race:
                p.setPen(QPen(e.color, 2));
                p.drawLine(QPointF(x, y + 5), QPointF(x + 14, y + 5));
                break;
            case LegendEntry::Partial:
                p.setPen(QPen(text, 1.5, Qt::DotLine));
                p.drawLine(QPointF(x + 5, y - 1), QPointF(x + 5, y + 11));
                break;
        }
        p.setPen(text);
        p.drawText(QPointF(x + 17, y + 10), e.name);
    }
}

}  // namespace graphlens::gui
