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
//   slowest_events  the five longest event deliveries on the UI thread until all stages were
//                   there (receiver class, Qt event type, ms): where a long gap comes from
// One open per process, so the peak memory is that of this open.
#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/allocator_tuning.h"
#include "app/main_window.h"
#include "graphlens/capture/capture_file.h"
#include "graphlens/synthetic/synthetic_graphs.h"

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

// Times every outermost event delivery, so a long UI stall names what caused it (a queued
// signal from the worker arrives as a MetaCall to its receiver).
class TimedApplication : public QApplication {
  public:
    using QApplication::QApplication;

    bool notify(QObject* receiver, QEvent* event) override {
        if (depth_++ > 0 || !recording) {
            const bool handled = QApplication::notify(receiver, event);
            --depth_;
            return handled;
        }
        const char* receiver_class = receiver->metaObject()->className();
        const int type = int(event->type());
        QElapsedTimer timer;
        timer.start();
        const bool handled = QApplication::notify(receiver, event);
        --depth_;
        remember({double(timer.nsecsElapsed()) / 1e6, receiver_class, type});
        return handled;
    }

    QString slowestJson() const {
        QStringList entries;
        for (const Delivery& d : slowest_)
            entries << QStringLiteral("{\"ms\": %1, \"receiver\": \"%2\", \"event\": %3}")
                           .arg(d.ms, 0, 'f', 1)
                           .arg(QString::fromStdString(d.receiver))
                           .arg(d.type);
        return QStringLiteral("[") + entries.join(QStringLiteral(", ")) + QStringLiteral("]");
    }

    bool recording = false;

  private:
    struct Delivery {
        double ms;
        std::string receiver;
        int type;
    };

    void remember(Delivery d) {
        constexpr size_t kKept = 5;
        if (slowest_.size() == kKept && d.ms <= slowest_.back().ms) return;
        slowest_.push_back(std::move(d));
        std::sort(slowest_.begin(), slowest_.end(),
                  [](const Delivery& a, const Delivery& b) { return a.ms > b.ms; });
        if (slowest_.size() > kKept) slowest_.pop_back();
    }

    int depth_ = 0;
    std::vector<Delivery> slowest_;
};

}  // namespace

int main(int argc, char** argv) {
    gui::keep_freed_memory_for_reuse();  // as the graphlens program does
    TimedApplication app(argc, argv);
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
        app.recording = false;
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
    app.recording = true;
    window.openFile(path);
    const int rc = app.exec();
    if (rc != 0) return rc;
    const auto& doc = window.state()->document();
    std::printf(
        "{\"capture\": \"%s\", \"dispatches\": %zu, \"stages\": %zu, \"shown_ms\": %.0f, "
        "\"responsive_ms\": %.0f, \"complete_ms\": %.0f, \"max_tick_gap_ms\": %.0f, "
        "\"peak_rss_mb\": %.0f, \"slowest_events\": %s}\n",
        qPrintable(path), doc && doc->ready(0) ? doc->analysis(0).dispatch_count : size_t(0),
        doc ? doc->stage_count() : size_t(0), shown, responsive, complete, max_gap, peakRssMb(),
        qPrintable(app.slowestJson()));
    return 0;
}
