#pragma once
// Saving a view as PNG or SVG (QSvgGenerator records its painting as vector graphics): the
// whole schedule and the whole dependency graph, not the part scrolled into view; any other
// widget as it is on screen.
#include <QString>

class QWidget;

namespace graphlens::gui {

/// Writes `widget` to `path`; the format follows the suffix (.png or .svg). A PNG of the
/// schedule wider than 16000 pixels is drawn zoomed out to that width. Throws
/// std::runtime_error naming the path when the file cannot be written.
void exportWidget(QWidget* widget, const QString& path, const QString& title = {});

}  // namespace graphlens::gui
