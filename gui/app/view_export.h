#pragma once
// Saving any widget as PNG (a grab of its pixels) or SVG (QSvgGenerator records its painting
// as vector graphics).
#include <QString>

class QWidget;

namespace graphlens::gui {

/// Writes `widget` to `path`; the format follows the suffix (.png or .svg). Throws
/// std::runtime_error naming the path when the file cannot be written.
void exportWidget(QWidget* widget, const QString& path, const QString& title = {});

}  // namespace graphlens::gui
