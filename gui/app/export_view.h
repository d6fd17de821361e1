#pragma once
// View 8: export the document (capture file, reports, DOT, Chrome trace) and any view as
// PNG or SVG.
#include <QMap>
#include <QWidget>

#include <optional>

#include "app/core_worker.h"
#include "graphlens/results/run_result.h"
#include "models/selection_state.h"

class QComboBox;
class QLabel;

namespace graphlens::gui {

class ExportView : public QWidget {
    Q_OBJECT
  public:
    ExportView(SelectionState* state, CoreWorker* worker, QWidget* parent = nullptr);
    /// Views that can be saved as images, by name.
    void addView(const QString& name, QWidget* view);
    /// Document formats: "capture", "html", "md", "csv", "json", "dot", "trace".
    static QStringList documentFormats();
    /// Writes the document in the worker thread (exported or failed tell how it went).
    void startExport(const QString& format, const QString& path);
    /// Writes the document here, at once, with the run every view shows (current stage where a
    /// format shows one stage) in a format. Throws with a message naming the file on failure.
    void exportDocument(const QString& format, const QString& path) const;
    void exportView(const QString& name, const QString& path) const;
    QStringList viewNames() const { return views_.keys(); }
    /// Asks for a file name and exports (what the Export menu and the buttons do).
    void askAndExportDocument(const QString& format);
    void askAndExportView(const QString& suffix);

  signals:
    void exported(QString path);
    void failed(QString what, QString message);

  private:
    SelectionState* state_;
    CoreWorker* worker_;
    QMap<QString, QWidget*> views_;
    QComboBox* view_combo_;
    QLabel* status_;
};

}  // namespace graphlens::gui
