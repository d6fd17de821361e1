#include "app/view_export.h"

#include <QFileInfo>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>
#include <stdexcept>

namespace graphlens::gui {

void exportWidget(QWidget* widget, const QString& path, const QString& title) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("svg")) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(widget->size());
        svg.setViewBox(widget->rect());
        svg.setTitle(title.isEmpty() ? widget->windowTitle() : title);
        svg.setDescription(QStringLiteral("GraphLens view"));
        QPainter painter;
        if (!painter.begin(&svg))
            throw std::runtime_error("cannot write SVG file " + path.toStdString());
        widget->render(&painter);
        painter.end();
    } else if (suffix == QLatin1String("png")) {
        if (!widget->grab().save(path, "PNG"))
            throw std::runtime_error("cannot write PNG file " + path.toStdString());
    } else {
        throw std::runtime_error("unknown image format '" + suffix.toStdString() + "' of " +
                                 path.toStdString() + " (use .png or .svg)");
    }
    if (!QFileInfo::exists(path))
        throw std::runtime_error("nothing was written to " + path.toStdString());
}

}  // namespace graphlens::gui
