#include "app/document_export.h"

#include <QByteArray>
#include <QFile>
#include <stdexcept>

#include "graphlens/capture/capture_file.h"
#include "graphlens/capture/chrome_trace.h"
#include "graphlens/capture/report.h"
#include "models/graph_folding.h"

namespace graphlens::gui {

namespace {

CaptureDocument capture_of(const Document& doc, const std::optional<RunResult>& run) {
    // A capture file holds the pipeline's stages in order; half of them would mislead.
    if (!doc.complete())
        throw std::runtime_error("the stages of '" + doc.title +
                                 "' are still being computed: export when they are all there");
    CaptureDocument c;
    c.generator = "graphlens GUI";
    c.graph = doc.snapshot(0).graph;
    c.snapshots = doc.ready_snapshots();
    c.run = run;
    return c;
}

void write_text(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) || f.write(bytes) != bytes.size())
        throw std::runtime_error("cannot write " + path.toStdString() + ": " +
                                 f.errorString().toStdString());
}

}  // namespace

void write_document(const Document& doc, const std::optional<RunResult>& run, int stage,
                    const QString& format, const QString& path) {
    if (format == QLatin1String("capture")) {
        save_capture(capture_of(doc, run), path.toStdString());
        return;
    }
    if (auto report = report_format_from_name(format.toStdString())) {
        const ReportSummary summary = summarize_capture(capture_of(doc, run));
        write_text(path, QByteArray::fromStdString(render_report(summary, *report)));
        return;
    }
    if (format == QLatin1String("dot")) {
        if (!doc.ready(size_t(stage)))
            throw std::runtime_error("the current stage is still being computed");
        const Snapshot& s = doc.snapshot(size_t(stage));
        const StageAnalysis& a = doc.analysis(size_t(stage));
        const FoldedGraph folded = fold_graph(s.graph, a, {});
        write_text(path, folded_graph_dot(s.graph, a, folded,
                                          QString::fromStdString(doc.title + " — " + s.stage))
                             .toUtf8());
        return;
    }
    if (format == QLatin1String("trace")) {
        if (!run)
            throw std::runtime_error("the document has no run to trace: run modes first (Timing)");
        write_text(path, QByteArray::fromStdString(chrome_trace_json(*run)));
        return;
    }
    throw std::runtime_error("unknown export format '" + format.toStdString() + "'");
}

}  // namespace graphlens::gui
