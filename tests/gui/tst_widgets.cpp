// The application's widgets, offscreen: open the sample, step passes, select a node and see
// every view follow, click a barrier and see why it is there, bad files, timing chart,
// exports, and the screenshots used by docs/user-guide.md.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QDir>
#include <QImage>
#include <QLineEdit>
#include <QListView>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <set>

#include "app/conflict_inspector_view.h"
#include "app/dependency_graph_view.h"
#include "app/export_view.h"
#include "app/main_window.h"
#include "app/memory_map_view.h"
#include "app/node_table_view.h"
#include "app/pass_stepper_view.h"
#include "app/schedule_view.h"
#include "app/timing_view.h"
#include "app/view_export.h"
#include "graphlens/capture_file.h"
#include "graphlens/device.h"
#include "graphlens/device_memory.h"
#include "graphlens/model_config.h"
#include "graphlens/synthetic_graphs.h"
#include "graphlens/transformer_builder.h"
#include "models/stage_list_model.h"
#include "test_graphs.h"

using namespace graphlens;
using namespace graphlens::gui;
using namespace graphlens::gui::testing;

namespace {

RunResult twoModeRun() {
    RunResult run;
    run.device = "test device";
    run.workload = "two chains";
    for (const char* name : {"serial", "elided"}) {
        ModeResult m;
        m.mode = name;
        m.gpu_ns = TimingSummary::from_samples({1000, 1100, 1200});
        m.encode_ns = TimingSummary::from_samples({200, 210, 220});
        m.wall_ns = TimingSummary::from_samples({3000, 3100, 3200});
        m.comparison = "bitwise";
        run.modes.push_back(m);
    }
    return run;
}

// Distinct colours in an image: a blank or single-colour screenshot has very few.
int colourCount(const QImage& image) {
    std::set<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3) colours.insert(image.pixel(x, y));
    return int(colours.size());
}

}  // namespace

class TestWidgets : public QObject {
    Q_OBJECT
  private:
    std::unique_ptr<MainWindow> window_;
    QTemporaryDir dir_;

    MainWindow& w() { return *window_; }
    const StageAnalysis& analysis() { return *w().state()->analysis(); }

    // Opens and waits until every stage is there (the window shows the captured stage first).
    void waitForDocument(const std::function<void()>& open, int timeout_ms = 20000) {
        QSignalSpy complete(&w(), &MainWindow::documentComplete);
        open();
        QVERIFY(complete.wait(timeout_ms));
    }

    // The pass stepper's comparison of the current pair of stages has reached its lists.
    void waitForComparison() {
        QTRY_VERIFY_WITH_TIMEOUT(w().passStepper()->comparisonShown(), 20000);
    }

    QString writeCapture(const QString& name, std::optional<RunResult> run) {
        CaptureDocument doc;
        doc.graph = twoChains();
        doc.run = std::move(run);
        const QString path = dir_.filePath(name);
        save_capture(doc, path.toStdString());
        return path;
    }

    // Index of the stage with this name, -1 when there is none.
    int stageNamed(const QString& name) {
        const auto& stages = w().state()->document()->stages;
        for (size_t i = 0; i < stages.size(); ++i)
            if (QString::fromStdString(stages[i].name) == name) return int(i);
        return -1;
    }

    static size_t countRows(const StageCompareModel& model, NodeChange change) {
        size_t n = 0;
        for (int r = 0; r < model.rowCount(); ++r)
            n += model.index(r).data(StageCompareModel::ChangeRole).toInt() == int(change);
        return n;
    }

    // The first barrier of the current stage that hazards force.
    size_t forcedBarrier() {
        for (const BarrierExplanation& b : analysis().barriers)
            if (!b.forcing.empty()) return b.node_index;
        qFatal("the sample has no forced barrier");
    }

  private slots:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);  // QSettings go to a test location
        QApplication::setOrganizationName(QStringLiteral("GraphLensTest"));
        QSettings().clear();
        QVERIFY(dir_.isValid());
    }

    void init() {
        window_ = std::make_unique<MainWindow>();
        window_->resize(1500, 950);
        window_->show();
        waitForDocument([this] { w().openSample(); });
    }

    void cleanup() { window_.reset(); }

    void opensTheSampleWithEveryStage() {
        const DocumentPtr& doc = w().state()->document();
        QVERIFY(doc->stage_count() >= 3);
        QVERIFY(doc->complete());
        QVERIFY(QString::fromStdString(doc->title).contains(QStringLiteral("llama-3.2-1b")));
        QCOMPARE(QString::fromStdString(doc->snapshot(0).stage), QStringLiteral("captured"));
        const ComputeGraph& g = doc->snapshot(0).graph;
        QVERIFY(g.dispatch_count() > 20);
        QCOMPARE(w().nodeTable()->table()->model()->rowCount(), int(g.nodes.size()));
        QCOMPARE(w().scheduleView()->layout().groupCount(), analysis().group_nodes.size());
        QCOMPARE(w().passStepper()->stageTable()->model()->rowCount(), int(doc->stage_count()));
        QVERIFY(!w().dependencyGraph()->folded().items.empty());
        QVERIFY(w().windowTitle().contains(QStringLiteral("captured")));
    }

    // The large case, untimed (docs/user-guide.md has the open time and memory that
    // graphlens-open-bench measures): a 100k-dispatch capture is shown with its captured
    // stage while the pass stages are still computed, then every stage reaches the views.
    void opensA100kDispatchCapture() {
        TransformerGraphOptions options;
        options.layers =
            (100000 - kTransformerExtraDispatches + kTransformerDispatchesPerLayer - 1) /
            kTransformerDispatchesPerLayer;
        CaptureDocument capture;
        capture.graph = transformer_graph(options);
        const size_t nodes = capture.graph.nodes.size();
        const QString path = dir_.filePath(QStringLiteral("100k.json"));
        save_capture(capture, path.toStdString());
        capture = {};
        // What the window shows at the moment the document is shown (before any later
        // version of it can arrive).
        size_t ready_when_shown = 0;
        int rows_when_shown = -1;
        QString stepper_when_shown;
        connect(&w(), &MainWindow::documentShown, this, [&] {
            ready_when_shown = w().state()->document()->ready_count();
            rows_when_shown = w().nodeTable()->table()->model()->rowCount();
            stepper_when_shown =
                w().passStepper()->stageTable()->model()->index(1, 1).data().toString();
        });
        QSignalSpy shown(&w(), &MainWindow::documentShown);
        QSignalSpy complete(&w(), &MainWindow::documentComplete);
        w().openFile(path);
        QVERIFY(shown.wait(120000));
        // Shown with the captured stage alone: every node in the table, the later stages
        // named and "computing…" in the stepper.
        QCOMPARE(ready_when_shown, size_t(1));
        QCOMPARE(rows_when_shown, int(nodes));
        QCOMPARE(stepper_when_shown, QStringLiteral("computing…"));
        QVERIFY(w().state()->document()->snapshot(0).graph.dispatch_count() >= 100000);
        QCOMPARE(w().passStepper()->stageTable()->model()->rowCount(),
                 int(w().state()->document()->stage_count()));
        // Stepping onto the stage that comes last (the levels reorder) shows it as pending,
        // and it fills in when it arrives.
        const int levels = stageNamed(QStringLiteral("reordered (levels)"));
        QVERIFY(levels > 0);
        if (complete.count() == 0) {
            w().state()->setStage(levels);
            QVERIFY(w().state()->stagePending());
            QCOMPARE(w().nodeTable()->table()->model()->rowCount(), 0);
            QVERIFY(complete.wait(120000));
        } else {
            w().state()->setStage(levels);  // a fast machine: everything is there already
        }
        const DocumentPtr& doc = w().state()->document();
        QVERIFY(doc->complete());
        QCOMPARE(w().state()->stage(), levels);
        QCOMPARE(w().nodeTable()->table()->model()->rowCount(),
                 int(doc->snapshot(size_t(levels)).graph.nodes.size()));
        QCOMPARE(w().scheduleView()->layout().groupCount(), analysis().group_nodes.size());
    }

    void stepsThroughPassesWithKeys() {
        QTest::keyClick(&w(), Qt::Key_F8);
        QCOMPARE(w().state()->stage(), 1);
        QCOMPARE(w().passStepper()->stageTable()->currentIndex().row(), 1);
        QTest::keyClick(&w(), Qt::Key_F8);
        QTest::keyClick(&w(), Qt::Key_F8, Qt::ShiftModifier);
        QCOMPARE(w().state()->stage(), 1);
        // Both reorders are stages of their own, each with the barriers its order needs, so a
        // user can compare greedy against levels.
        const int greedy = stageNamed(QStringLiteral("reordered (greedy)"));
        const int levels = stageNamed(QStringLiteral("reordered (levels)"));
        QVERIFY(greedy > 0);
        QCOMPARE(levels, greedy + 1);
        const QAbstractItemModel* table = w().passStepper()->stageTable()->model();
        for (const int stage : {greedy, levels}) {
            const ComputeGraph& g = w().state()->document()->snapshot(size_t(stage)).graph;
            QVERIFY(g.barrier_count() > 0);
            QCOMPARE(table->index(stage, StageListModel::Barriers).data().toULongLong(),
                     qulonglong(g.barrier_count()));
        }
        // Levels puts one barrier between consecutive DAG levels: exactly the lower bound.
        QCOMPARE(table->index(levels, StageListModel::Barriers).data().toULongLong(),
                 table->index(levels, StageListModel::LowerBound).data().toULongLong());
        // Comparing each reordered stage with the stage it reordered (the fused one) marks
        // moved dispatches exactly when the pass moved some (its "Reordered" column). (With
        // today's fusions neither reorder moves a dispatch of the sample; the models test
        // checks the marks on a graph that does move.)
        for (const int reordered : {greedy, levels}) {
            w().state()->setStage(reordered);
            w().state()->setCompareStage(greedy - 1);
            waitForComparison();
            const size_t moved = countRows(w().passStepper()->rightModel(), NodeChange::moved);
            const qulonglong by_pass =
                table->index(reordered, StageListModel::Reordered).data().toULongLong();
            QCOMPARE(moved > 0, by_pass > 0);
        }
        // Comparing the two reorders with each other works too: same dispatches, other order.
        w().state()->setStage(levels);
        w().state()->setCompareStage(greedy);
        waitForComparison();
        QCOMPARE(w().passStepper()->rightModel().rowCount(),
                 int(w().state()->document()->snapshot(size_t(levels)).graph.nodes.size()));
        QCOMPARE(countRows(w().passStepper()->rightModel(), NodeChange::fused), size_t(0));
    }

    void selectingANodeMovesEveryView() {
        const size_t node = analysis().group_nodes[3].front();
        ScheduleView* schedule = w().scheduleView();
        QTest::mouseClick(schedule->viewport(), Qt::LeftButton, {}, schedule->boxCenter(node));
        QCOMPARE(w().state()->selectedNodeIndex().value_or(SIZE_MAX), node);
        const std::string& label = w().state()->snapshot()->graph.nodes[node].label;
        // Node table: the current row is that node.
        const QModelIndex current = w().nodeTable()->table()->currentIndex();
        QCOMPARE(current.data(NodeTableModel::NodeIndexRole).toULongLong(), qulonglong(node));
        // Inspector: names it and lists its hazards.
        QVERIFY(w().conflictInspector()->headline().contains(QString::fromStdString(label)));
        QCOMPARE(size_t(w().conflictInspector()->hazards().rowCount()),
                 analysis().hazards_in[node].size() + analysis().hazards_out[node].size());
        // Memory map: shows the allocations it touches.
        QVERIFY(!w().memoryMap()->canvas()->rows().empty());
        // Dependency graph: the node has an item.
        QVERIFY(w().dependencyGraph()->folded().item_of_node[node] >= 0);
        // Pass stepper: the current stage's list points at it.
        QListView* list = w().passStepper()->currentStageList();
        QCOMPARE(size_t(list->currentIndex().row()), node);
        // Back returns to no selection, Forward comes back.
        QTest::keyClick(&w(), Qt::Key_Left, Qt::AltModifier);
        QVERIFY(!w().state()->selectedNodeIndex());
        QTest::keyClick(&w(), Qt::Key_Right, Qt::AltModifier);
        QCOMPARE(w().state()->selectedNodeIndex().value_or(SIZE_MAX), node);
    }

    void clickingABarrierShowsTheHazardsThatForceIt() {
        const size_t barrier = forcedBarrier();
        ScheduleView* schedule = w().scheduleView();
        QTest::mouseClick(schedule->viewport(), Qt::LeftButton, {},
                          schedule->barrierPoint(barrier));
        QCOMPARE(w().state()->selectedBarrierIndex().value_or(SIZE_MAX), barrier);
        const BarrierExplanation* e = analysis().barrier_at(barrier);
        QCOMPARE(size_t(w().conflictInspector()->hazards().rowCount()), e->forcing.size());
        QVERIFY(w().conflictInspector()->headline().contains(QStringLiteral("needed")));
    }

    void aRedundantBarrierIsCalledRedundant() {
        waitForDocument([this] { w().openFile(writeCapture("chains.json", std::nullopt)); });
        ScheduleView* schedule = w().scheduleView();
        QTest::mouseClick(schedule->viewport(), Qt::LeftButton, {}, schedule->barrierPoint(4));
        QCOMPARE(w().state()->selectedBarrierIndex().value_or(SIZE_MAX), size_t(4));
        QCOMPARE(w().conflictInspector()->hazards().rowCount(), 0);
        QVERIFY(w().conflictInspector()->headline().contains(QStringLiteral("redundant")));
        QVERIFY(w().recentFiles().first().endsWith(QStringLiteral("chains.json")));
        // The pipeline ran on the loaded graph: the planned stage drops that barrier.
        const DocumentPtr& doc = w().state()->document();
        QVERIFY(doc->snapshot(doc->stage_count() - 1).graph.barrier_count() <
                doc->snapshot(0).graph.barrier_count());
    }

    void aBadFileReportsAndKeepsTheDocument() {
        const DocumentPtr before = w().state()->document();
        const QString bad = dir_.filePath(QStringLiteral("bad.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\"format\": \"graphlens-capture\", \"version\": 1, \"nodes\": [");
        f.close();
        w().openFile(bad);
        QTRY_VERIFY_WITH_TIMEOUT(!w().lastError().isEmpty(), 10000);
        QVERIFY(w().lastError().contains(QStringLiteral("bad.json")));
        QCOMPARE(w().state()->document(), before);
        w().openFile(dir_.filePath(QStringLiteral("missing.json")));
        QTRY_VERIFY_WITH_TIMEOUT(w().lastError().contains(QStringLiteral("missing.json")), 10000);
        QCOMPARE(w().state()->document(), before);
    }

    void filterAndCopyRowsAsTsv() {
        NodeTableView* table = w().nodeTable();
        table->filterEdit()->setText(QStringLiteral("attn_q"));
        const int rows = table->table()->model()->rowCount();
        QVERIFY(rows > 0 && rows < 20);
        QCOMPARE(w().state()->filter(), QStringLiteral("attn_q"));
        table->table()->selectAll();
        const QStringList lines = table->selectedRowsAsTsv().split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), rows + 1);
        QVERIFY(lines.first().startsWith(QStringLiteral("#\tLabel\tOp kind")));
        QVERIFY(lines.at(1).contains(QStringLiteral("attn_q")));
    }

    // A document superseded while its stages are computed never reaches the window: the
    // newer one does, with all its stages.
    void aNewerOpenDropsTheOlderOnesStages() {
        const QString first = writeCapture("first.json", std::nullopt);
        QSignalSpy shown(&w(), &MainWindow::documentShown);
        QSignalSpy complete(&w(), &MainWindow::documentComplete);
        w().openFile(first);
        w().openSample();
        QVERIFY(complete.wait(20000));
        QTest::qWait(100);  // anything still queued from the first open would land now
        QCOMPARE(shown.count(), 1);
        QCOMPARE(complete.count(), 1);
        QVERIFY(QString::fromStdString(w().state()->document()->source).contains("sample"));
        QVERIFY(w().state()->document()->complete());
    }

    void timingChartHasABarPerMode() {
        waitForDocument([this] { w().openFile(writeCapture("timed.json", twoModeRun())); });
        QCOMPARE(w().timingView()->model().rowCount(), 2);
        QCOMPARE(w().timingView()->barCount(), 2);
        w().worker()->loadSecondRun(writeCapture("second.json", twoModeRun()));
        // The table shows the second run once its queued result reached the UI thread.
        QTRY_VERIFY_WITH_TIMEOUT(
            w().timingView()->model().index(0, TimingModel::Delta).data().isValid(), 10000);
        QCOMPARE(w().timingView()->model().index(0, TimingModel::Delta).data().toString(),
                 QStringLiteral("+0.0%"));
    }

    void runsModesOnTheDeviceAndChartsABarPerMode() {
        // A tiny llama recorded on this machine's device (lavapipe in CI), saved and opened.
        CaptureDocument capture;
        {
            Device device;
            DeviceMemory memory(device);
            CaptureRequest request;
            request.config = tiny_model_config(Architecture::llama);
            request.kv_length = 8;
            capture.graph = capture_transformer(memory, request);
        }
        const QString path = dir_.filePath(QStringLiteral("tiny.json"));
        save_capture(capture, path.toStdString());
        waitForDocument([&] { w().openFile(path); });
        TimingView* timing = w().timingView();
        // Every mode the runner has, the fused ones included (lavapipe is slow: few repeats).
        const QStringList modes = CoreWorker::executionModes();
        for (const char* fused : {"fused", "greedy", "levels", "levels+split"})
            QVERIFY2(modes.contains(QLatin1String(fused)), fused);
        timing->setCheckedModes(modes);
        timing->setProfileDispatches(true);
        timing->setRepeats(2);
        QSignalSpy finished(w().worker(), &CoreWorker::runFinished);
        timing->runSelected();
        QTRY_VERIFY_WITH_TIMEOUT(finished.count() > 0 || !w().lastError().isEmpty(), 120000);
        QVERIFY2(w().lastError().isEmpty(), qPrintable(w().lastError()));
        QTRY_COMPARE(timing->model().rowCount(), int(modes.size()));
        QCOMPARE(timing->barCount(), int(modes.size()));
        // Profiled: the per-dispatch timeline has every captured dispatch.
        QCOMPARE(timing->ganttDispatches(), capture.graph.dispatch_count());
        w().showView(timing);
        QTest::qWait(30);
        QVERIFY(QDir().mkpath(QStringLiteral(GRAPHLENS_SCREENSHOT_DIR)));
        exportWidget(timing,
                     QStringLiteral(GRAPHLENS_SCREENSHOT_DIR) + QStringLiteral("/timing.png"));
        for (int r = 0; r < int(modes.size()); ++r) {
            const QString outputs =
                timing->model().index(r, TimingModel::Outputs).data().toString();
            const double gpu = timing->model()
                                   .index(r, TimingModel::Gpu)
                                   .data(TimingModel::NanosecondsRole)
                                   .toDouble();
            QVERIFY2(gpu > 0, qPrintable(modes[r] + QStringLiteral(": ") + outputs));
            // Modes that keep each dispatch's arithmetic give identical bytes; fused kernels
            // may round differently and must stay within the runner's tolerance.
            const bool fused = modes[r] != QLatin1String("per-op-submit") &&
                               modes[r] != QLatin1String("serial") &&
                               modes[r] != QLatin1String("elided");
            if (fused)
                QVERIFY2(outputs == QLatin1String("bitwise") ||
                             outputs.startsWith(QLatin1String("within tolerance")),
                         qPrintable(modes[r] + QStringLiteral(": ") + outputs));
            else
                QCOMPARE(outputs, QStringLiteral("bitwise"));
        }
    }

    void exportsEveryFormatAndEveryView() {
        waitForDocument([this] { w().openFile(writeCapture("timed.json", twoModeRun())); });
        ExportView* exp = w().exportView();
        for (const QString& format : ExportView::documentFormats()) {
            const QString path = dir_.filePath(QStringLiteral("export.") + format);
            exp->exportDocument(format, path);
            QVERIFY2(QFileInfo(path).size() > 0, qPrintable(format));
        }
        auto text = [&](const char* suffix) {
            QFile f(dir_.filePath(QStringLiteral("export.") + suffix));
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
        };
        QVERIFY(text("html").contains(QStringLiteral("<html")));
        QVERIFY(text("md").contains(QStringLiteral("|")));
        QVERIFY(text("dot").startsWith(QStringLiteral("digraph")));
        QVERIFY(text("dot").contains(QStringLiteral("RAW x [0x0, 0x40)")));
        QVERIFY(text("trace").contains(QStringLiteral("traceEvents")));
        // The capture export loads back with every stage.
        const CaptureDocument back =
            load_capture(dir_.filePath(QStringLiteral("export.capture")).toStdString());
        QCOMPARE(back.snapshots.size(), w().state()->document()->stage_count());
        for (const QString& view : exp->viewNames()) {
            for (const char* suffix : {"png", "svg"}) {
                const QString path = dir_.filePath(view + QLatin1Char('.') + suffix);
                exp->exportView(view, path);
                QVERIFY2(QFileInfo(path).size() > 100, qPrintable(path));
            }
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 exportWidget(w().scheduleView(), dir_.filePath("x.bmp")));
    }

    void screenshotsOfTheSample() {
        // The user guide's story: on "captured", a barrier forced by one RAW hazard; on
        // "fused", the norm and its mul merged and that barrier gone.
        const QString out = QStringLiteral(GRAPHLENS_SCREENSHOT_DIR);
        QVERIFY(QDir().mkpath(out));
        auto shot = [&](QWidget* widget, const QString& name) {
            w().showView(widget);
            QTest::qWait(30);
            const QString path = out + QLatin1Char('/') + name + QStringLiteral(".png");
            exportWidget(widget, path);
            const QImage image(path);
            QVERIFY2(!image.isNull() && colourCount(image) > 3, qPrintable(path));
        };
        w().state()->selectBarrier(forcedBarrier());
        shot(&w(), QStringLiteral("main-window"));
        shot(w().scheduleView(), QStringLiteral("schedule"));
        shot(w().conflictInspector(), QStringLiteral("conflict-inspector"));
        shot(w().memoryMap(), QStringLiteral("memory-map"));
        const size_t node = analysis().group_nodes[2].front();
        w().state()->selectNodeIndex(node);
        shot(w().nodeTable(), QStringLiteral("node-table"));
        w().dependencyGraph()->openRun(0);  // the first layers open, the rest stay folded
        shot(w().dependencyGraph(), QStringLiteral("dependency-graph"));
        shot(w().exportView(), QStringLiteral("export"));
        w().showView(w().nodeTable());
        w().state()->setStage(1);
        w().state()->setCompareStage(0);
        waitForComparison();
        shot(w().passStepper(), QStringLiteral("pass-stepper"));
        shot(&w(), QStringLiteral("main-window-fused"));
        QVERIFY(colourCount(QImage(out + QStringLiteral("/main-window.png"))) > 20);
    }
};

QTEST_MAIN(TestWidgets)
#include "tst_widgets.moc"
