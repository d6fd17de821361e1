// graphlens-open-bench: how fast a large capture becomes usable in the real main window.
//
//   QT_QPA_PLATFORM=offscreen build/tests/gui/graphlens-open-bench [capture.json]
//
// Without an argument it writes the case first: a synthetic decode graph of 100k
// dispatches (transformer_graph, 5000 layers) saved as a capture in a temporary directory.
// It opens the capture in a MainWindow, as File→Open does, and prints one line of JSON:
//   shown_ms        open request → the window shows the document (captured stage in every view)
//   responsive_ms   open request → the first tick of a 10 ms UI timer after that: the event
//                   loop runs again (the paint of the new document included)
//   complete_ms     open request → every pass stage is there
//   max_tick_gap_ms the longest the UI thread went without a tick, from the request until all
//                   stages were there (what a user clicking meanwhile would feel)
//   peak_rss_mb     the process's peak resident memory (VmHWM)
// One open per process, so the peak memory is that of this open.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

#include "app/allocator_tuning.h"
#include "app/main_window.h"
#include "graphlens/synthetic/synthetic_graphs.h"
#include "graphlens/capture/capture_file.h"

using namespace graphlens;

namespace {

double peakRssMb() {
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly)) return -1;
    for (const QByteArray& line : status.readAll().split('\n'))
        if (line.startsWith("VmHWM:"))
            return line.mid(6).trimmed().split(' ').first().toDouble() / 1024.0;
    return -1;
}

QString writeLargeCapture(const QTemporaryDir& dir) {
    TransformerGraphOptions options;
    options.layers = (100000 - kTransformerExtraDispatches + kTransformerDispatchesPerLayer - 1) /
                     kTransformerDispatchesPerLayer;
    CaptureDocument capture;
    capture.graph = transformer_graph(options);
    const QString path = dir.filePath(QStringLiteral("100k.json"));
    save_capture(capture, path.toStdString());
    return path;
}

}  // namespace

int main(int argc, char** argv) {
    gui::keep_freed_memory_for_reuse();  // as the graphlens program does
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("GraphLensBench"));
    QTemporaryDir dir;
    const QStringList args = app.arguments();
    const QString path = args.size() > 1 ? args.at(1) : writeLargeCapture(dir);

    gui::MainWindow window;
    window.resize(1500, 950);
    window.show();
    QApplication::processEvents();

    QElapsedTimer clock;
    double shown = -1, responsive = -1, complete = -1, max_gap = 0, last_tick = 0;
    QTimer ticks;
    ticks.setInterval(10);
    QObject::connect(&ticks, &QTimer::timeout, [&] {
        const double now = double(clock.nsecsElapsed()) / 1e6;
        if (complete < 0) max_gap = std::max(max_gap, now - last_tick);
        last_tick = now;
        if (shown >= 0 && responsive < 0) responsive = now;
    });
    QObject::connect(&window, &gui::MainWindow::documentShown,
                     [&] { shown = double(clock.nsecsElapsed()) / 1e6; });
    QObject::connect(&window, &gui::MainWindow::documentComplete, [&] {
        complete = double(clock.nsecsElapsed()) / 1e6;
        // Let the last tick after completion land before quitting.
        QTimer::singleShot(50, &app, &QApplication::quit);
    });
    QObject::connect(window.worker(), &gui::CoreWorker::failed,
                     [&](const QString& what, const QString& message) {
                         std::fprintf(stderr, "%s: %s\n", qPrintable(what), qPrintable(message));
                         app.exit(1);
                     });
    clock.start();
    ticks.start();
    window.openFile(path);
    const int rc = app.exec();
    if (rc != 0) return rc;
    const auto& doc = window.state()->document();
    std::printf(
        "{\"capture\": \"%s\", \"dispatches\": %zu, \"stages\": %zu, \"shown_ms\": %.0f, "
        "\"responsive_ms\": %.0f, \"complete_ms\": %.0f, \"max_tick_gap_ms\": %.0f, "
        "\"peak_rss_mb\": %.0f}\n",
        qPrintable(path), doc && doc->ready(0) ? doc->analysis(0).dispatch_count : size_t(0),
        doc ? doc->stage_count() : size_t(0), shown, responsive, complete, max_gap, peakRssMb());
    return 0;
}
