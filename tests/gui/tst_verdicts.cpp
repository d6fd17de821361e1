// The GUI's barrier verdicts are the core's: for every built-in preset (decode and prefill)
// and every stage the GUI shows, each barrier's needed/redundant verdict and the hazards that
// force it equal graphlens::explain_barriers on the same stage, barrier by barrier, and the
// report (graphlens-cli report) lists exactly the barriers the GUI calls redundant. The
// internal stages of a decode step's nodes are the core's, in the GUI's table and in the CLI's
// `passes --show-stages`.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "graphlens/capture/capture_file.h"
#include "graphlens/capture/report.h"
#include "graphlens/graph/schedule_analysis.h"
#include "graphlens/model/model_config.h"
#include "graphlens/model/transformer_builder.h"
#include "graphlens/ops/fusion_recipes.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/device_memory.h"
#include "internal_stages_check.h"
#include "models/document.h"
#include "models/internal_stages_model.h"
#include "models/schedule_box_label.h"

using namespace graphlens;
using namespace graphlens::gui;

namespace {

// The options the GUI's worker opens a capture with (gui/app/core_worker.cpp).
PassOptions guiPassOptions() {
    PassOptions options;
    options.recipes = ops::fusion_recipes();
    return options;
}

// Every stage of the document as the worker builds it, stage by stage.
DocumentPtr openAsTheGuiDoes(const ComputeGraph& captured) {
    DocumentPtr last;
    build_document(captured, guiPassOptions(), "test", "test", std::nullopt, [&](DocumentPtr d) {
        last = std::move(d);
        return true;
    });
    return last;
}

// What the GUI says of one barrier, and what the core says, in comparable terms.
struct Verdict {
    bool needed = false;
    std::vector<Hazard> hazards;
    bool operator==(const Verdict&) const = default;
};

QString describe(const Document& doc, size_t stage, size_t barrier, const Verdict& gui,
                 const Verdict& core) {
    return QStringLiteral(
               "stage '%1', barrier at node %2: GUI says %3 with %4 hazard(s), the "
               "core %5 with %6")
        .arg(QString::fromStdString(doc.stages[stage].name))
        .arg(barrier)
        .arg(gui.needed ? "needed" : "redundant")
        .arg(gui.hazards.size())
        .arg(core.needed ? "needed" : "redundant")
        .arg(core.hazards.size());
}

}  // namespace

class TestVerdicts : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase() { device_ = std::make_unique<Device>(); }

    void everyBarrierHasTheCoresVerdict_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<bool>("prefill");
        for (const ModelPreset& p : model_presets()) {
            QTest::newRow((p.name + " decode").c_str()) << QString::fromStdString(p.name) << false;
            QTest::newRow((p.name + " prefill").c_str()) << QString::fromStdString(p.name) << true;
        }
    }

    void everyBarrierHasTheCoresVerdict() {
        QFETCH(QString, preset);
        QFETCH(bool, prefill);
        CaptureRequest request;
        request.config = model_preset(preset.toStdString()).config;
        request.phase = prefill ? Phase::prefill : Phase::decode;
        request.tokens = prefill ? 64 : 1;
        request.kv_length = prefill ? 0 : 512;
        CaptureDocument capture;
        {
            DeviceMemory memory(*device_);  // each model's allocations gone after its capture
            capture.graph = capture_transformer(memory, request);
        }

        const DocumentPtr doc = openAsTheGuiDoes(capture.graph);
        QVERIFY(doc && doc->complete());
        std::set<std::pair<std::string, size_t>> gui_redundant;
        size_t barriers_checked = 0;
        for (size_t s = 0; s < doc->stage_count(); ++s) {
            const ComputeGraph& graph = doc->snapshot(s).graph;
            const StageAnalysis& a = doc->analysis(s);
            const std::vector<graphlens::BarrierExplanation> core = explain_barriers(graph);
            QCOMPARE(a.barriers.size(), core.size());
            for (size_t k = 0; k < core.size(); ++k) {
                const gui::BarrierExplanation& b = a.barriers[k];
                QCOMPARE(b.node_index, core[k].barrier);
                Verdict g{!b.redundant(), {}};
                for (size_t h : b.forcing) g.hazards.push_back(a.hazards.at(h));
                const Verdict c{!core[k].redundant, core[k].hazards};
                if (!(g == c)) QFAIL(qPrintable(describe(*doc, s, b.node_index, g, c)));
                if (b.redundant()) gui_redundant.insert({doc->stages[s].name, b.node_index});
                ++barriers_checked;
            }
        }
        QVERIFY(barriers_checked > 0);

        // The report covers the captured and the final stage; it must list exactly the
        // barriers the GUI dashes in those two stages.
        capture.snapshots = doc->ready_snapshots();
        ReportOptions options;
        options.max_listed = SIZE_MAX;
        const ReportSummary report = summarize_capture(capture, options);
        std::set<std::pair<std::string, size_t>> reported;
        for (const RedundantBarrier& r : report.redundant_barriers)
            reported.insert({r.stage, r.node});
        std::set<std::pair<std::string, size_t>> gui_in_report_stages;
        for (const auto& entry : gui_redundant)
            if (entry.first == "captured" || entry.first == report.final_stage)
                gui_in_report_stages.insert(entry);
        QCOMPARE(reported.size(), report.redundant_total);
        QVERIFY(reported == gui_in_report_stages);
    }

    // llama-3.2-1b decode, two layers: each node with internal stages in the final stage (the
    // attentions and the fused _anq8 projections) shows the core's stages in the GUI's table,
    // and `graphlens-cli passes --show-stages` prints the core's lines for each.
    void internalStagesAreTheCoresInTheGuiAndTheCli() {
        CaptureRequest request;
        request.config = model_preset("llama-3.2-1b").config;
        request.config.n_layer = 2;
        request.kv_length = 64;
        CaptureDocument capture;
        {
            DeviceMemory memory(*device_);
            capture.graph = capture_transformer(memory, request);
        }
        const DocumentPtr doc = openAsTheGuiDoes(capture.graph);
        QVERIFY(doc && doc->complete());
        const int last = int(doc->stage_count()) - 1;
        const ComputeGraph& graph = doc->snapshot(size_t(last)).graph;
        InternalStagesModel model;
        std::map<std::string, size_t> staged;  // label -> node index
        for (size_t i = 0; i < graph.nodes.size(); ++i) {
            // The schedule view's box says how many stages the dispatch orders inside itself,
            // as many as the core lists, and nothing for a dispatch without them.
            const QString box = scheduleBoxLabel(graph, i);
            if (!has_internal_stages(graph, i)) {
                QVERIFY2(!box.startsWith(QLatin1Char('[')), qPrintable(box));
                continue;
            }
            const QString badge =
                QStringLiteral("[%1] ").arg(internal_stages(graph, i).stages.size());
            QVERIFY2(box.startsWith(badge),
                     qPrintable(box + QStringLiteral(", expected ") + badge));
            model.showNode(doc, last, i);
            const QString difference = testing::differenceFromTheCore(model, graph, i);
            if (!difference.isEmpty())
                QFAIL(qPrintable(QStringLiteral("node %1: %2").arg(i).arg(difference)));
            QVERIFY(staged.emplace(std::string(graph.nodes[i].label), i).second);
        }
        // A layer's attention, and its two _anq8 projections (the attention output and the down
        // projection, each with the residual add and the next norm).
        QCOMPARE(staged.size(), size_t(3 * request.config.n_layer));

#ifdef GRAPHLENS_CLI
        QTemporaryDir dir;
        const QString file = dir.filePath(QStringLiteral("decode.json"));
        save_capture(capture, file.toStdString());
        QProcess cli;
        cli.start(QStringLiteral(GRAPHLENS_CLI),
                  {QStringLiteral("passes"), file, QStringLiteral("--show-stages"),
                   QStringLiteral("1000")});
        QVERIFY(cli.waitForFinished(300000));
        QCOMPARE(cli.exitCode(), 0);
        // Blocks "  #<index> <label> (<kernel>)" followed by their lines indented by four.
        std::map<std::string, std::vector<std::string>> printed;
        std::vector<std::string>* block = nullptr;
        bool in_section = false;
        for (const QString& line : QString::fromUtf8(cli.readAllStandardOutput()).split('\n')) {
            if (line.startsWith(QStringLiteral("nodes with internal stages"))) in_section = true;
            if (!in_section) continue;
            if (line.startsWith(QStringLiteral("  #"))) {
                const QString label = line.section(' ', 3, 3);
                block = &printed[label.toStdString()];
            } else if (block && line.startsWith(QStringLiteral("    "))) {
                block->push_back(line.mid(4).toStdString());
            }
        }
        QCOMPARE(printed.size(), staged.size());
        for (const auto& [label, lines] : printed) {
            const auto it = staged.find(label);
            QVERIFY2(it != staged.end(), label.c_str());
            QCOMPARE(lines, testing::cliLinesFromTheCore(graph, it->second));
        }
#endif
    }

  private:
    std::unique_ptr<Device> device_;
};

QTEST_GUILESS_MAIN(TestVerdicts)
#include "tst_verdicts.moc"
