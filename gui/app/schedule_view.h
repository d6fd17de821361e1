#pragma once
// View 3: the schedule as columns of concurrency groups separated by barrier lines, boxes
// coloured by op kind, races as lines joining their two boxes, a recorded barrier whose scope
// orders less than a full one dotted. Ctrl+wheel zooms (Shift+Ctrl+wheel vertically), dragging
// pans, a click selects a dispatch, a barrier or a race. Painting visits only the visible columns
// and draws whole columns as bars when boxes would be too small to see, so 100k dispatches stay
// smooth.
#include <QAbstractScrollArea>
#include <QPainterPath>

#include "models/schedule_layout.h"
#include "models/selection_state.h"

namespace graphlens::gui {

class ScheduleView : public QAbstractScrollArea {
    Q_OBJECT
  public:
    explicit ScheduleView(SelectionState* state, QWidget* parent = nullptr);
    const ScheduleLayout& layout() const { return layout_; }
    /// Zoom by a factor around a viewport x position.
    void zoom(double factor_x, double factor_y, double anchor_x = 0);
    /// Zooms out until the whole schedule fits the view's width (the overview of a large
    /// one: a bar per pixel, the tallest group under it, in the colour of its first box).
    void fitAll();
    /// The whole schedule (every column, the header above), not the viewport: for export.
    /// At the current zoom when that is at most `max_width` pixels wide, otherwise zoomed out
    /// to that width for the drawing.
    QSize wholeSize(int max_width) const;
    void paintWhole(QPainter& p, int max_width);
    /// Viewport position of a dispatch's box / of the barrier line before a group (for tests).
    QPoint boxCenter(size_t node_index) const;
    QPoint barrierPoint(size_t barrier_node_index) const;
    /// Viewport point on a race's line (index into StageAnalysis::races), outside every box.
    QPoint racePoint(size_t race) const;
    /// The races the last paint drew (those that reach the visible columns), for tests.
    const std::vector<size_t>& drawnRaces() const { return drawn_races_; }
    /// Viewport point on a group's number above its column (a click there selects the group).
    QPoint groupHeaderPoint(size_t group) const;
    /// Whether a node is drawn dimmed because the shared filter does not match it.
    bool dimmed(size_t node_index) const;
    /// The summary line the last paint drew above the columns.
    const QString& headerText() const { return header_text_; }
    static QString usageHint();
    /// One entry of the legend in the header and where it is drawn.
    struct LegendEntry {
        enum Mark { Box, Race, Partial } mark;
        QString name;
        QColor color;
        QPoint at;  ///< top left of its mark
    };
    static std::vector<LegendEntry> legendEntries(const QFontMetrics& fm, int width);
    /// The header's height over `width` pixels: the legend takes as many rows as it needs.
    static int headerHeight(const QFontMetrics& fm, int width);

  protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool viewportEvent(QEvent* event) override;

  private:
    void rebuild();
    void updateScrollBars();
    QPointF toContent(QPointF viewport) const;
    /// Node index under a viewport point (dispatch or barrier), if any.
    std::optional<size_t> nodeAt(QPointF viewport) const;
    /// Group whose number is under a viewport point, if any.
    std::optional<size_t> groupHeaderAt(QPointF viewport) const;
    /// Race whose line passes under a viewport point outside the boxes, if any.
    std::optional<size_t> raceAt(QPointF viewport) const;
    QPainterPath racePath(size_t race) const;
    QString tooltipAt(QPoint viewport) const;
    void scrollToSelection();
    void paintColumns(QPainter& p, size_t first, size_t last) const;
    void paintOverview(QPainter& p, size_t first, size_t last) const;
    void paintBarrierLine(QPainter& p, size_t group, int sy, int height) const;
    void paintRaces(QPainter& p, size_t first, size_t last);
    void paintSelection(QPainter& p, size_t first, size_t last) const;
    /// The header over `width` pixels of the view starting at content x `sx`.
    void paintHeader(QPainter& p, size_t first, size_t last, int sx, int width) const;
    /// Columns [first, last) with their lines, races and selection; `sy` the vertical scroll.
    void paintContent(QPainter& p, size_t first, size_t last, int sy, int height);
    void paintLegend(QPainter& p, int width) const;

    SelectionState* state_;
    ScheduleLayout layout_;
    std::vector<size_t> drawn_races_;
    static constexpr int kLegendRow = 14;
    static constexpr int kHeaderWithOneLegendRow = 50;  ///< summary, legend, group numbers
    int header_ = kHeaderWithOneLegendRow;              ///< for the viewport's width
    QPoint drag_origin_;
    QPoint drag_scroll_;
    bool dragging_ = false;
    bool dragged_ = false;
    mutable QString header_text_;
};

}  // namespace graphlens::gui
