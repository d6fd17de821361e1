#include "app/view_export.h"

#include <QFileInfo>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "app/dependency_graph_view.h"
#include "app/schedule_view.h"

namespace graphlens::gui {

namespace {

// Wider PNGs are refused by many viewers (and QImage needs width * height * 4 bytes).
constexpr int kMaxPngWidth = 16000;

// What a view draws when it is exported: the whole content of the two views that scroll
// over more than they show (every column of the schedule, every item of the dependency
// graph), the widget as it is on screen for every other view.
struct Drawing {
    QSize size;
    std::function<void(QPainter&)> paint;
};

Drawing drawingOf(QWidget* widget, int max_width) {
    if (auto* schedule = qobject_cast<ScheduleView*>(widget))
        return {schedule->wholeSize(max_width),
                [schedule, max_width](QPainter& p) { schedule->paintWhole(p, max_width); }};
    if (auto* graph = qobject_cast<DependencyGraphView*>(widget)) {
        graph->folded();  // builds the scene if it is out of date
        QGraphicsScene* scene = graph->view()->scene();
        const QRectF all = scene->itemsBoundingRect().adjusted(-10, -10, 10, 10);
        const double scale = std::min(1.0, max_width / std::max(1.0, all.width()));
        const QSize size(int(std::ceil(all.width() * scale)), int(std::ceil(all.height() * scale)));
        return {size, [scene, all, graph, size](QPainter& p) {
                    p.fillRect(QRect(QPoint(0, 0), size), graph->palette().color(QPalette::Base));
                    p.setRenderHint(QPainter::Antialiasing);
                    scene->render(&p, QRectF(QPointF(0, 0), QSizeF(size)), all);
                }};
    }
    return {widget->size(), [widget](QPainter& p) { widget->render(&p); }};
}

}  // namespace

void exportWidget(QWidget* widget, const QString& path, const QString& title) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("svg")) {
        // Vector output has no pixel limit: the schedule at the zoom it is shown with.
        const Drawing d = drawingOf(widget, std::numeric_limits<int>::max() / 4);
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(d.size);
        svg.setViewBox(QRect(QPoint(0, 0), d.size));
        svg.setTitle(title.isEmpty() ? widget->windowTitle() : title);
        svg.setDescription(QStringLiteral("GraphLens view"));
        QPainter painter;
        if (!painter.begin(&svg))
            throw std::runtime_error("cannot write SVG file " + path.toStdString());
        d.paint(painter);
        painter.end();
    } else if (suffix == QLatin1String("png")) {
        const Drawing d = drawingOf(widget, kMaxPngWidth);
        QImage image(d.size, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::white);
        {
            QPainter painter(&image);
            d.paint(painter);
        }
        if (image.isNull() || !image.save(path, "PNG"))
            throw std::runtime_error("cannot write PNG file " + path.toStdString());
    } else {
        throw std::runtime_error("unknown image format '" + suffix.toStdString() + "' of " +
                                 path.toStdString() + " (use .png or .svg)");
    }
    if (!QFileInfo::exists(path))
        throw std::runtime_error("nothing was written to " + path.toStdString());
}

}  // namespace graphlens::gui
