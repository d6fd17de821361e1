// The gui/models library without widgets: analysis, shared selection, every item model
// (checked with QAbstractItemModelTester), the schedule geometry, layer folding, the dependency
// graph's layout and the worker's request queue.
#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QtTest>
#include <atomic>
#include <thread>

#include "graphlens/graph/palette.h"
#include "graphlens/synthetic/synthetic_graphs.h"
#include "internal_stages_check.h"
#include "models/dependency_layout.h"
#include "models/fusion_model.h"
#include "models/graph_folding.h"
#include "models/hazard_model.h"
#include "models/internal_stages_model.h"
#include "models/node_filter.h"
#include "models/node_table_model.h"
#include "models/presentation.h"
#include "models/request_queue.h"
#include "models/schedule_box_label.h"
#include "models/schedule_layout.h"
#include "models/selection_state.h"
#include "models/stage_compare_model.h"
#include "models/stage_list_model.h"
#include "models/timing_model.h"
#include "test_graphs.h"

using namespace graphlens;
using namespace graphlens::gui;
using namespace graphlens::gui::testing;

namespace {

// The same dispatches with the redundant barrier removed: 0 a | 1 b | 2 barrier | 3 c | 4 d
ComputeGraph twoChainsPlanned() {
    ComputeGraph g = twoChains();
    g.nodes.erase(g.nodes.begin() + 4);
    return g;
}

// The independent pair swapped: 0 b | 1 a | 2 barrier | 3 c | 4 d
ComputeGraph twoChainsSwapped() {
    ComputeGraph g = twoChainsPlanned();
    std::swap(g.nodes[0], g.nodes[1]);
    return g;
}

DocumentPtr sampleDocument() {
    return document({stage("captured", twoChains()), stage("barriers planned", twoChainsPlanned()),
                     stage("reordered", twoChainsSwapped())});
}

// A transformer-like graph: `layers` identical layers of norm → matmul, then an output.
ComputeGraph layeredGraph(int layers) {
    GraphBuilder b;
    const auto act = b.alloc("act", 1024), scratch = b.alloc("scratch", 1024);
    for (int l = 0; l < layers; ++l) {
        const std::string blk = "blk." + std::to_string(l) + ".";
        b.dispatch(blk + "norm", OpKind::rms_norm, {{act, 0, 256}}, {{scratch, 0, 256}});
        b.barrier();
        b.dispatch(blk + "mm", OpKind::matmul, {{scratch, 0, 256}}, {{act, 0, 256}});
        b.barrier();
    }
    b.dispatch("output", OpKind::matmul, {{act, 0, 256}}, {{scratch, 512, 768}});
    return b.graph();
}

}  // namespace

class TestModels : public QObject {
    Q_OBJECT
  private slots:
    void analysisFindsHazardsGroupsAndLevels() {
        const StageAnalysis a = analyse_stage(twoChains());
        QCOMPARE(a.group_nodes.size(), size_t(3));
        QCOMPARE(a.group[0], 0);
        QCOMPARE(a.group[1], 0);
        QCOMPARE(a.group[2], -1);
        QCOMPARE(a.hazards.size(), size_t(2));
        QCOMPARE(a.hazards[0].kind, HazardKind::raw);
        QCOMPARE(a.hazards[0].earlier, size_t(0));
        QCOMPARE(a.hazards[0].later, size_t(3));
        QCOMPARE(a.hazards[0].overlap(), (ByteRange{0, 0, 64}));
        QCOMPARE(a.level[3], 1);
        QCOMPARE(a.level[5], 1);
        QCOMPARE(a.level_count, 2);
    }

    void analysisExplainsEachBarrier() {
        const StageAnalysis a = analyse_stage(twoChains());
        QCOMPARE(a.barriers.size(), size_t(2));
        const BarrierExplanation* first = a.barrier_at(2);
        QVERIFY(first);
        QVERIFY(!first->redundant());
        QCOMPARE(first->forcing.size(), size_t(1));
        QCOMPARE(a.hazards[first->forcing[0]].later, size_t(3));
        const BarrierExplanation* second = a.barrier_at(4);
        QVERIFY(second);
        QVERIFY(second->redundant());
        QCOMPARE(a.redundant_barriers(), size_t(1));
        QVERIFY(a.unsynchronised.empty());
    }

    void analysisReportsHazardsInsideOneGroup() {
        GraphBuilder b;
        const auto x = b.alloc("x", 64);
        b.dispatch("w", OpKind::add, {}, {{x, 0, 64}});
        b.dispatch("r", OpKind::add, {{x, 32, 64}}, {});
        b.dispatch("w2", OpKind::add, {}, {{x, 0, 16}});
        const StageAnalysis a = analyse_stage(b.graph());
        // r reads what w wrote (RAW); w2 overwrites bytes w wrote (WAW); r and w2 touch
        // disjoint bytes.
        QCOMPARE(a.hazards.size(), size_t(2));
        QCOMPARE(a.unsynchronised.size(), size_t(2));
        QCOMPARE(a.hazards[0].overlap(), (ByteRange{x, 32, 64}));
        QCOMPARE(a.hazards[1].kind, HazardKind::waw);
    }

    void analysisTreatsReadWriteOfOneNodeAsNoSelfHazard() {
        GraphBuilder b;
        const auto x = b.alloc("x", 64);
        b.dispatch("inplace", OpKind::scale, {{x, 0, 64}}, {{x, 0, 64}});
        b.barrier();
        b.dispatch("reader", OpKind::add, {{x, 0, 8}}, {});
        b.dispatch("writer", OpKind::add, {}, {{x, 8, 16}});
        const StageAnalysis a = analyse_stage(b.graph());
        QCOMPARE(a.hazards.size(), size_t(2));
        QCOMPARE(a.hazards[0].earlier, size_t(0));
        QCOMPARE(a.hazards[1].kind, HazardKind::waw);
    }

    void selectionFollowsNodesAcrossStagesAndKeepsHistory() {
        SelectionState s;
        QSignalSpy changed(&s, &SelectionState::selectionChanged);
        s.setDocument(sampleDocument());
        s.selectNodeIndex(0);  // "a"
        QCOMPARE(*s.selectedNodeIndex(), size_t(0));
        s.setStage(2);  // reordered: a is now at index 1
        QCOMPARE(*s.selectedNodeIndex(), size_t(1));
        s.selectNodeIndex(2);  // a barrier
        QCOMPARE(s.selection().kind, Selection::Kind::barrier);
        QCOMPARE(s.selectedNodeIndices().size(), size_t(4));  // groups on both sides
        s.back();
        QCOMPARE(s.selection().kind, Selection::Kind::node);
        QCOMPARE(s.stage(), 2);
        s.back();
        QCOMPARE(s.stage(), 0);
        QVERIFY(s.canGoForward());
        s.forward();
        s.forward();
        QCOMPARE(s.selection().kind, Selection::Kind::barrier);
        QVERIFY(!s.canGoForward());
        QVERIFY(changed.count() >= 6);
    }

    // The pass stepper compares with the previous stage by default and keeps doing so while
    // the user steps; a stage chosen to compare with sets the distance that is kept.
    void theCompareStageFollowsTheStepping() {
        SelectionState s;
        QSignalSpy compare_changed(&s, &SelectionState::compareStageChanged);
        s.setDocument(sampleDocument());
        QVERIFY(s.stageCount() >= 3);
        // On the first stage there is no previous one: the next one, not the stage itself.
        QCOMPARE(s.stage(), 0);
        QCOMPARE(s.compareStage(), 1);
        s.nextStage();
        QCOMPARE(s.compareStage(), 0);
        s.nextStage();
        QCOMPARE(s.compareStage(), 1);
        QCOMPARE(compare_changed.last().at(0).toInt(), 1);
        s.previousStage();
        QCOMPARE(s.compareStage(), 0);
        // Two stages apart, chosen by the user: kept while stepping.
        s.setStage(2);
        s.setCompareStage(0);
        s.previousStage();
        QCOMPARE(s.stage(), 1);
        QCOMPARE(s.compareStage(), 2);  // 1 - 2 is no stage: the other way, up to the last
        // A new document starts over with the previous stage.
        s.setDocument(sampleDocument(), 2);
        QCOMPARE(s.compareStage(), 1);
    }

    // A concurrency group as a selection: its dispatches, the hazards across its edges, and
    // (like a barrier) nothing once the stage changes.
    void selectingAGroupCoversItsDispatches() {
        SelectionState s;
        s.setDocument(sampleDocument());  // captured: groups {a, b} | {c} | {d}
        s.selectGroup(0);
        QCOMPARE(s.selection().kind, Selection::Kind::group);
        QCOMPARE(*s.selectedGroup(), size_t(0));
        QCOMPARE(s.selectedNodeIndices(), (std::vector<size_t>{0, 1}));
        QVERIFY(!s.selectedNodeIndex() && !s.selectedBarrierIndex());
        const auto [in, out] = s.analysis()->group_hazards(0);
        QVERIFY(in.empty());
        QCOMPARE(out.size(), size_t(2));  // a → c, b → d
        const auto [in2, out2] = s.analysis()->group_hazards(1);
        QCOMPARE(in2.size(), size_t(1));  // c waits for a
        QVERIFY(out2.empty());
        s.setStage(1);
        QCOMPARE(s.selection().kind, Selection::Kind::none);
        s.back();
        QCOMPARE(*s.selectedGroup(), size_t(0));
    }

    void selectionFindsTheFusedNodeThatAbsorbedADispatch() {
        ComputeGraph fused = twoChainsPlanned();
        Node& c = fused.nodes[3];
        const NodeId d_id = fused.nodes[4].id;
        c.origin.push_back(d_id);
        c.id = 100;
        fused.nodes.erase(fused.nodes.begin() + 4);
        SelectionState s;
        s.setDocument(document({stage("captured", twoChains()), stage("fused", fused)}));
        s.selectNode(d_id);
        s.setStage(1);
        QCOMPARE(*s.selectedNodeIndex(), size_t(3));
    }

    // The worker's way to open a graph: a first version with the captured stage alone, then
    // one more stage per version, ending with exactly the stages of both pipelines.
    void documentArrivesStageByStage() {
        const ComputeGraph captured = layeredGraph(6);
        std::vector<DocumentPtr> versions;
        build_document(captured, PassOptions{}, "test", "layers", std::nullopt,
                       [&](DocumentPtr d) { return versions.push_back(d), true; });
        const std::vector<Snapshot> expected =
            run_passes_with_both_reorders(captured, PassOptions{});
        QCOMPARE(versions.size(), expected.size());
        for (size_t v = 0; v < versions.size(); ++v) {
            const Document& d = *versions[v];
            QCOMPARE(d.id, versions.front()->id);
            QCOMPARE(d.stage_count(), expected.size());
            QCOMPARE(d.ready_count(), v + 1);
            QVERIFY(d.ready(0));
            // Stages already there are shared by later versions, not copied.
            if (v > 0)
                for (size_t i = 0; i < d.stage_count(); ++i)
                    if (versions[v - 1]->ready(i))
                        QCOMPARE(d.stages[i].snapshot, versions[v - 1]->stages[i].snapshot);
        }
        const Document& last = *versions.back();
        QVERIFY(last.complete());
        QVERIFY_THROWS_EXCEPTION(std::logic_error, versions.front()->snapshot(1));
        for (size_t i = 0; i < expected.size(); ++i) {
            const Snapshot& s = last.snapshot(i);
            QCOMPARE(s.stage, expected[i].stage);
            QCOMPARE(s.graph->nodes.size(), expected[i].graph->nodes.size());
            for (size_t n = 0; n < s.graph->nodes.size(); ++n)
                QCOMPARE(s.graph->nodes[n].id, expected[i].graph->nodes[n].id);
            QCOMPARE(s.stats.barriers, expected[i].stats.barriers);
            QCOMPARE(s.stats.hazards, expected[i].stats.hazards);
            QCOMPARE(s.stats.dag_depth, expected[i].stats.dag_depth);
            QCOMPARE(s.reordered, expected[i].reordered);
            QCOMPARE(last.analysis(i).dispatch_count, s.graph->dispatch_count());
            QCOMPARE(last.analysis(i).barrier_count, s.graph->barrier_count());
        }
        // A superseded document stops after the version that was refused.
        size_t published = 0;
        build_document(captured, PassOptions{}, "test", "layers", std::nullopt,
                       [&](DocumentPtr) { return ++published < 2; });
        QCOMPARE(published, size_t(2));
    }

    void selectionTakesNewerVersionsOfItsDocumentOnly() {
        std::vector<DocumentPtr> versions;
        build_document(twoChains(), PassOptions{}, "test", "chains", std::nullopt,
                       [&](DocumentPtr d) { return versions.push_back(d), true; });
        SelectionState s;
        s.setDocument(versions.front());
        s.setStage(2);
        QVERIFY(s.stagePending());
        QVERIFY(!s.snapshot() && !s.analysis());
        s.selectNode(versions.front()->snapshot(0).graph->nodes[0].id);
        QSignalSpy arrived(&s, &SelectionState::stageArrived);
        QSignalSpy reset(&s, &SelectionState::documentChanged);
        QVERIFY(s.updateDocument(versions.back()));
        QCOMPARE(arrived.count(), int(versions.back()->stage_count()) - 1);
        QCOMPARE(reset.count(), 0);
        QCOMPARE(s.stage(), 2);
        QVERIFY(!s.stagePending());
        QVERIFY(s.selectedNodeIndex().has_value());  // the selection carried over
        // An older version, or a version of another document, changes nothing.
        QVERIFY(!s.updateDocument(versions.front()));
        QVERIFY(!s.updateDocument(sampleDocument()));
        QCOMPARE(s.document(), versions.back());
    }

    void stageListModelShowsStagesStillComputed() {
        std::vector<DocumentPtr> versions;
        build_document(twoChains(), PassOptions{}, "test", "chains", std::nullopt,
                       [&](DocumentPtr d) { return versions.push_back(d), true; });
        StageListModel model;
        QAbstractItemModelTester tester(&model);
        model.setDocument(versions.front());
        QCOMPARE(model.rowCount(), int(versions.front()->stage_count()));
        QCOMPARE(model.index(1, StageListModel::Stage).data().toString(), QStringLiteral("fused"));
        QCOMPARE(model.index(1, StageListModel::Dispatches).data().toString(),
                 QStringLiteral("computing…"));
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.updateDocument(versions[1]);
        QCOMPARE(changed.count(), 1);
        QCOMPARE(model.index(1, StageListModel::Dispatches).data().toULongLong(),
                 qulonglong(versions[1]->snapshot(1).graph->dispatch_count()));
    }

    void stageListModel() {
        StageListModel model;
        QAbstractItemModelTester tester(&model);
        model.setDocument(sampleDocument());
        QCOMPARE(model.rowCount(), 3);
        auto cell = [&](int row, int col) { return model.index(row, col).data(); };
        QCOMPARE(cell(0, StageListModel::Stage).toString(), QStringLiteral("captured"));
        QCOMPARE(cell(0, StageListModel::Barriers).toULongLong(), 2ull);
        QCOMPARE(cell(0, StageListModel::Redundant).toULongLong(), 1ull);
        QCOMPARE(cell(1, StageListModel::Barriers).toULongLong(), 1ull);
        QCOMPARE(cell(1, StageListModel::Redundant).toULongLong(), 0ull);
        QCOMPARE(cell(1, StageListModel::LowerBound).toULongLong(), 1ull);
        model.setDocument(nullptr);
        QCOMPARE(model.rowCount(), 0);
    }

    void nodeTableFiltersAndCopiesAsTsv() {
        NodeTableModel model;
        NodeFilterProxy proxy;
        QAbstractItemModelTester tester(&model);
        QAbstractItemModelTester proxyTester(&proxy);
        proxy.setSourceModel(&model);
        model.setStage(sampleDocument(), 0);
        QCOMPARE(model.rowCount(), 6);
        QCOMPARE(model.index(3, NodeTableModel::Reads).data().toString(),
                 QStringLiteral("x [0x0, 0x40) 64 B"));
        QCOMPARE(model.index(3, NodeTableModel::Group).data().toInt(), 1);
        QVERIFY(model.index(4, NodeTableModel::Label).data().toString().contains("redundant"));
        proxy.setText(QStringLiteral("y"));  // by allocation name: b writes y, d reads it
        QCOMPARE(proxy.rowCount(), 2);
        proxy.setText(QStringLiteral("rms_norm"));  // by op kind
        QCOMPARE(proxy.rowCount(), 1);
        QCOMPARE(proxy.index(0, NodeTableModel::Label).data().toString(), QStringLiteral("c"));
        proxy.setText({});
        proxy.setShowBarriers(false);
        QCOMPARE(proxy.rowCount(), 4);
        proxy.sort(NodeTableModel::Label, Qt::DescendingOrder);
        QCOMPARE(proxy.index(0, NodeTableModel::Label).data().toString(), QStringLiteral("d"));

        const QModelIndexList cells = {
            model.index(0, NodeTableModel::Label), model.index(0, NodeTableModel::Op),
            model.index(3, NodeTableModel::Label), model.index(3, NodeTableModel::Op)};
        QCOMPARE(rowsAsTsv(model, cells), QStringLiteral("Label\tOp kind\na\tadd\nc\trms_norm\n"));
    }

    // The one filter all views share: every word must occur in the label, op kind, kernel or
    // an allocation's name; barriers only pass the empty filter.
    void theSharedFilterMatchesLabelOpKernelAndAllocation() {
        const ComputeGraph g = twoChains();  // 0 a | 1 b | 2 barrier | 3 c | 4 barrier | 5 d
        auto matching = [&](const QString& text) {
            const NodeFilter f(text);
            QList<size_t> out;
            for (size_t n = 0; n < g.nodes.size(); ++n)
                if (f.matches(g, n)) out << n;
            return out;
        };
        QCOMPARE(matching({}), (QList<size_t>{0, 1, 2, 3, 4, 5}));
        QCOMPARE(matching(QStringLiteral("C")), (QList<size_t>{3}));         // label
        QCOMPARE(matching(QStringLiteral("rms_norm")), (QList<size_t>{3}));  // op kind
        QCOMPARE(matching(QStringLiteral("y")), (QList<size_t>{1, 5}));      // allocation
        QCOMPARE(matching(QStringLiteral("y silu")), (QList<size_t>{5}));    // words AND
        QCOMPARE(matching(QStringLiteral("k")).size(), 4);                   // kernel "k"
        QCOMPARE(matching(QStringLiteral("barrier")), QList<size_t>{});

        // The pass stepper's lists grey what the filter does not match.
        StageCompareModel model;
        QAbstractItemModelTester tester(&model);
        model.setStages(sampleDocument(), 0, 1);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        model.setFilter(NodeFilter(QStringLiteral("rms_norm")));
        QCOMPARE(changed.count(), 1);
        for (int r = 0; r < model.rowCount(); ++r) {
            const bool match = model.index(r).data(StageCompareModel::FilterMatchRole).toBool();
            QCOMPARE(match, r == 3);
            QCOMPARE(model.index(r).data(Qt::ForegroundRole).isValid(), !match);
        }
    }

    // A run made in the session replaces the document's own for every view; the node table
    // shows the per-dispatch GPU times of a profiled run by dispatch id, in any stage.
    void runsAreSharedStateAndFillTheNodeTablesGpuTimes() {
        Document doc = make_document(
            {stage("captured", twoChains()), stage("barriers planned", twoChainsPlanned())}, "test",
            "chains");
        RunResult own;
        own.modes.resize(1);
        doc.run = own;
        SelectionState state;
        QSignalSpy runs(&state, &SelectionState::runChanged);
        state.setDocument(std::make_shared<const Document>(std::move(doc)));
        QCOMPARE(runs.count(), 1);
        QVERIFY(state.run().has_value() && !state.secondRun());

        RunResult profiled;
        profiled.per_dispatch = {{0, "a", OpKind::add, 0, 1000},
                                 {5, "d", OpKind::silu, 1000, 1500}};
        for (DispatchTiming& t : profiled.per_dispatch)
            t.node = state.document()->snapshot(0).graph->nodes[t.node].id;
        state.setRun(profiled);
        state.setSecondRun(own, QStringLiteral("other.json"));
        QCOMPARE(runs.count(), 3);
        QCOMPARE(state.secondRunSource(), QStringLiteral("other.json"));

        NodeTableModel table;
        QAbstractItemModelTester tester(&table);
        table.setStage(state.document(), 1);  // d is node 4 once the redundant barrier is gone
        QSignalSpy changed(&table, &QAbstractItemModel::dataChanged);
        table.setRun(state.run());
        QCOMPARE(changed.count(), 1);
        QCOMPARE(table.index(0, NodeTableModel::GpuTime).data().toString(),
                 QStringLiteral("1.0 µs"));
        QCOMPARE(table.index(4, NodeTableModel::GpuTime).data().toString(),
                 QStringLiteral("500 ns"));
        QVERIFY(!table.index(1, NodeTableModel::GpuTime).data().isValid());
        table.setRun(std::nullopt);
        QVERIFY(!table.index(0, NodeTableModel::GpuTime).data().isValid());
    }

    void hazardModelShowsNodeAndBarrierHazards() {
        HazardModel model;
        QAbstractItemModelTester tester(&model);
        const DocumentPtr doc = sampleDocument();
        model.showNode(doc, 0, 3);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, HazardModel::Kind).data().toString(), QStringLiteral("RAW"));
        QCOMPARE(model.index(0, HazardModel::Earlier).data().toString(), QStringLiteral("#0 a"));
        QCOMPARE(model.index(0, 0).data(HazardModel::OtherNodeRole).toULongLong(), 0ull);
        model.showBarrier(doc, 0, 2);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, HazardModel::Relation).data().toString(),
                 QStringLiteral("forces barrier"));
        model.showBarrier(doc, 0, 4);
        QCOMPARE(model.rowCount(), 0);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void internalStagesModelShowsEachStageItsBytesAndTheHazardsTheCounterKeeps() {
        InternalStagesModel model;
        QAbstractItemModelTester tester(&model);
        const DocumentPtr doc = document({stage("captured", stagedDispatch())});
        model.showNode(doc, 0, 0);
        QVERIFY(model.error().isEmpty());
        // Stage 1: order, 2 reads, 1 write; stage 2: order, 1 read, 1 write; 1 hazard.
        QCOMPARE(model.rowCount(), 8);
        const QString difference = differenceFromTheCore(model, doc->snapshot(0).graph, 0);
        QVERIFY2(difference.isEmpty(), qPrintable(difference));
        QCOMPARE(model.index(4, InternalStagesModel::What).data().toString(),
                 QStringLiteral("after the last workgroup to arrive at binding 8"));
        QCOMPARE(model.index(7, InternalStagesModel::Stage).data().toString(),
                 QStringLiteral("1 → 2"));
        QCOMPARE(model.index(7, InternalStagesModel::What).data().toString(),
                 QStringLiteral("RAW kept by the counter"));
        QCOMPARE(model.index(7, InternalStagesModel::Bytes).data().toString(),
                 formatRange(doc->snapshot(0).graph, ByteRange{2, 0, 64}));
        // A node of one stage (and a barrier) shows nothing.
        ComputeGraph single = stagedDispatch();
        single.kernels[0].stages.clear();
        model.showNode(document({stage("captured", single)}), 0, 0);
        QCOMPARE(model.rowCount(), 0);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void scheduleBoxOfAStagedDispatchLeadsWithItsStageCount() {
        // "blk.0.ffn_down" of a kernel of two stages: the layer goes (the column header places
        // the box), the count of stages the core lists comes first.
        const ComputeGraph staged = stagedDispatch();
        QCOMPARE(internal_stages(staged, 0).stages.size(), size_t(2));
        QCOMPARE(scheduleBoxLabel(staged, 0), QStringLiteral("[2] ffn_down"));
        // The same dispatch of a one-stage kernel has no badge.
        ComputeGraph single = stagedDispatch();
        single.kernels[0].stages.clear();
        QCOMPARE(scheduleBoxLabel(single, 0), QStringLiteral("ffn_down"));
        // A label outside a layer stays whole.
        single.nodes[0].label = "output_norm.mul";
        QCOMPARE(scheduleBoxLabel(single, 0), QStringLiteral("output_norm.mul"));
    }

    void fusionModelListsNearMissesWithReasons() {
        Snapshot fused = stage("fused", twoChains());
        fused.fusions.push_back(
            {"rms_norm→mul", {2, 3}, false, 0, "intermediate z read by node 9"});
        fused.fusions.push_back({"add chain", {0, 1}, true, 7, ""});
        const DocumentPtr doc = document({stage("captured", twoChains()), fused});
        FusionModel model;
        QAbstractItemModelTester tester(&model);
        model.setStage(doc, 0);
        QCOMPARE(model.rowCount(), 0);
        model.setStage(doc, 1);
        QCOMPARE(model.rowCount(), 2);
        model.setStage(doc, 1, NodeId(3));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, FusionModel::Reason).data().toString(),
                 QStringLiteral("intermediate z read by node 9"));
        // Its dispatches (ids 2 and 3) as the captured stage's table numbers them: barriers
        // count there, so c is #3 and d is #5.
        QCOMPARE(model.index(0, FusionModel::Nodes).data().toString(),
                 QStringLiteral("#3 c, #5 d"));
        QCOMPARE(model.index(0, FusionModel::Applied).data().toString(),
                 QStringLiteral("near miss"));
        // A near miss has no fused dispatch (its fused_id is 0): dispatch 0 is not in it.
        model.setStage(doc, 1, NodeId(0));
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, FusionModel::Applied).data().toString(), QStringLiteral("fused"));
    }

    void timingModelShowsDeltasAgainstASecondRun() {
        auto mode = [](std::string name, std::vector<double> gpu) {
            ModeResult m;
            m.mode = std::move(name);
            m.gpu_ns = TimingSummary::from_samples(std::move(gpu));
            m.comparison = "bitwise";
            return m;
        };
        RunResult first, second;
        first.modes = {mode("serial", {1000, 1200, 1100}), mode("elided", {800, 900, 1000})};
        second.modes = {mode("elided", {450, 450, 450})};
        TimingModel model;
        QAbstractItemModelTester tester(&model);
        model.setRuns(first, second);
        QCOMPARE(model.rowCount(), 2);
        QCOMPARE(model.index(0, TimingModel::Gpu).data(TimingModel::NanosecondsRole).toDouble(),
                 1100.0);
        QCOMPARE(model.index(0, TimingModel::GpuSpread).data().toString(),
                 QStringLiteral("1.0 µs – 1.2 µs"));
        QVERIFY(!model.index(0, TimingModel::Delta).data().isValid());
        QCOMPARE(model.index(1, TimingModel::Delta).data().toString(), QStringLiteral("-50.0%"));
        model.setRuns(std::nullopt);
        QCOMPARE(model.rowCount(), 0);
    }

    void stageCompareMarksMovedNodesAndBarrierChanges() {
        const DocumentPtr doc = sampleDocument();
        StageCompareModel left, right;
        QAbstractItemModelTester t1(&left), t2(&right);
        left.setStages(doc, 0, 1);
        right.setStages(doc, 1, 0);
        auto change = [](const StageCompareModel& m, int row) {
            return static_cast<NodeChange>(
                m.index(row).data(StageCompareModel::ChangeRole).toInt());
        };
        QCOMPARE(change(left, 4), NodeChange::barrier_removed);
        QCOMPARE(change(left, 2), NodeChange::none);
        for (int r = 0; r < right.rowCount(); ++r) QCOMPARE(change(right, r), NodeChange::none);

        StageCompareModel reordered;
        reordered.setStages(doc, 2, 1);
        const int moved = int(change(reordered, 0) == NodeChange::moved) +
                          int(change(reordered, 1) == NodeChange::moved);
        QCOMPARE(moved, 1);
        QCOMPARE(change(reordered, 3), NodeChange::none);

        // Going from one group (no barriers) to planned barriers marks the barrier as added.
        ComputeGraph none = twoChainsPlanned().without_barriers();
        const DocumentPtr planned =
            document({stage("captured", none), stage("barriers planned", twoChainsPlanned())});
        StageCompareModel added;
        added.setStages(planned, 1, 0);
        QCOMPARE(change(added, 2), NodeChange::barrier_added);
    }

    void scheduleLayoutMapsPixelsToBoxesAndBarriers() {
        ScheduleLayout layout;
        layout.setGroups({2, 1, 3});
        layout.setScale(20, 10);
        QCOMPARE(layout.height(), 30.0);
        const QRectF box = layout.boxRect(2, 1);
        auto hit = layout.hitTest(box.center());
        QCOMPARE(hit.kind, ScheduleLayout::Hit::Kind::dispatch);
        QCOMPARE(hit.group, size_t(2));
        QCOMPARE(hit.slot, size_t(1));
        hit = layout.hitTest({layout.barrierX(1), 5});
        QCOMPARE(hit.kind, ScheduleLayout::Hit::Kind::barrier);
        QCOMPARE(hit.group, size_t(1));
        // Below the last box of a short column there is nothing.
        hit = layout.hitTest(layout.boxRect(1, 2).center());
        QCOMPARE(hit.kind, ScheduleLayout::Hit::Kind::none);
        // Only the columns on screen are visited.
        auto [first, last] = layout.visibleGroups(layout.columnX(1) + 1, layout.columnX(1) + 5);
        QVERIFY(first <= 1 && last >= 2 && last - first <= 3);
        QVERIFY(layout.detailed());
        layout.setScale(0.5, 0.5);
        QVERIFY(!layout.detailed());
        QVERIFY(layout.width() < 10);
    }

    void scheduleLayoutStaysCheapAtAHundredThousandGroups() {
        ScheduleLayout layout;
        layout.setGroups(std::vector<size_t>(100000, 3));
        layout.setScale(10, 10);
        auto [first, last] = layout.visibleGroups(500000, 501000);
        QVERIFY(last - first < 120);
        QVERIFY(first > 30000);
    }

    void foldingFoldsRepeatedLayersAndOpensOnDemand() {
        const ComputeGraph g = layeredGraph(6);
        const StageAnalysis a = analyse_stage(g);
        const auto runs = repeated_layer_runs(g);
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0], (std::pair<int, int>{0, 6}));
        const FoldedGraph folded = fold_graph(g, a, {});
        QCOMPARE(folded.items.size(), size_t(2));  // the ×6 block and "output"
        QVERIFY(folded.items[0].folded);
        QVERIFY(folded.items[0].label.contains(QStringLiteral("×6")));
        QCOMPARE(folded.items[0].nodes.size(), size_t(12));
        QCOMPARE(folded.edges.size(), size_t(1));
        QCOMPARE(folded.items[1].level, 1);
        // Opening shows the first layer and folds the other five.
        const FoldedGraph open = fold_graph(g, a, {0});
        QCOMPARE(open.items.size(), size_t(4));
        QCOMPARE(open.levels, 4);  // norm → mm → ×5 → output
        QVERIFY(open.items[0].label.contains(QStringLiteral("×5")));
        // Opening every layer but the last leaves nothing to fold.
        const FoldedGraph all = fold_graph(g, a, {0, 1, 2, 3, 4});
        QCOMPARE(all.items.size(), size_t(13));
        QCOMPARE(all.levels, 13);  // a chain: norm → mm → norm → ... → output
    }

    // Graphviz places every item of a folded graph (folded runs included) without overlap, and
    // each edge runs from its item's border to its other item's border.
    void dependencyLayoutPlacesFoldedItemsApartWithEdgesOnTheirBorders() {
        const ComputeGraph g = layeredGraph(6);
        const StageAnalysis a = analyse_stage(g);
        const FoldedGraph folded = fold_graph(g, a, {0, 1});  // two layers open, ×4 folded
        QVERIFY(folded.items.size() >= 6);
        const DependencyLayout placed = layout_dependency_graph(folded);
        QVERIFY(placed.by_graphviz);
        QVERIFY(placed.note.isEmpty());
        QCOMPARE(placed.item_rects.size(), folded.items.size());
        QCOMPARE(placed.edge_paths.size(), folded.edges.size());
        for (size_t i = 0; i < folded.items.size(); ++i) {
            QCOMPARE(placed.item_rects[i].size(), item_size(folded.items[i]));
            for (size_t j = i + 1; j < folded.items.size(); ++j)
                QVERIFY2(!placed.item_rects[i].intersects(placed.item_rects[j]),
                         qPrintable(QStringLiteral("items %1 and %2 overlap").arg(i).arg(j)));
        }
        auto on_border = [](const QRectF& r, QPointF p) {
            return r.adjusted(-1.5, -1.5, 1.5, 1.5).contains(p) &&
                   !r.adjusted(1.5, 1.5, -1.5, -1.5).contains(p);
        };
        for (size_t e = 0; e < folded.edges.size(); ++e) {
            const QPainterPath& path = placed.edge_paths[e];
            QVERIFY(on_border(placed.item_rects[folded.edges[e].from], path.pointAtPercent(0)));
            QVERIFY(on_border(placed.item_rects[folded.edges[e].to], path.pointAtPercent(1)));
            // Left to right: an edge leaves its item rightwards.
            QVERIFY(placed.item_rects[folded.edges[e].from].center().x() <
                    placed.item_rects[folded.edges[e].to].center().x());
        }
    }

    // Beyond the items Graphviz lays out in about 2 s, the view draws by level and says why.
    void dependencyLayoutFallsBackToLevelsWithANote() {
        const ComputeGraph g = layeredGraph(6);
        const StageAnalysis a = analyse_stage(g);
        const FoldedGraph folded = fold_graph(g, a, {0, 1, 2, 3, 4});  // a chain of 13 items
        const DependencyLayout placed = layout_dependency_graph(folded, 10);
        QVERIFY(!placed.by_graphviz);
        QVERIFY(placed.note.contains(QStringLiteral("13 items")));
        QCOMPARE(placed.item_rects.size(), folded.items.size());
        for (size_t i = 0; i + 1 < folded.items.size(); ++i)  // one column per level
            QVERIFY(placed.item_rects[i].left() < placed.item_rects[i + 1].left());
    }

    // A fused dispatch's label names its layer in every part ("blk.3.norm+blk.3.mul"): the
    // layers still fold as one run.
    void foldingFoldsLayersOfFusedDispatches() {
        GraphBuilder b;
        const auto act = b.alloc("act", 1024), scratch = b.alloc("scratch", 1024);
        for (int l = 0; l < 4; ++l) {
            const std::string blk = "blk." + std::to_string(l) + ".";
            b.dispatch(blk + "norm+" + blk + "norm.mul", OpKind::rms_norm, {{act, 0, 256}},
                       {{scratch, 0, 256}});
            b.barrier();
            b.dispatch(blk + "mm", OpKind::matmul, {{scratch, 0, 256}}, {{act, 0, 256}});
            b.barrier();
        }
        const auto runs = repeated_layer_runs(b.graph());
        QCOMPARE(runs.size(), size_t(1));
        QCOMPARE(runs[0], (std::pair<int, int>{0, 4}));
    }

    void requestQueueReplacesOlderRequestsWithTheSameTag() {
        RequestQueue q;
        std::vector<int> ran;
        const uint64_t g1 = q.push("stage", [&](uint64_t) { ran.push_back(1); });
        q.push("run", [&](uint64_t) { ran.push_back(2); });
        const uint64_t g3 = q.push("stage", [&](uint64_t) { ran.push_back(3); });
        QVERIFY(g3 > g1);
        QCOMPARE(q.pending(), size_t(2));
        QCOMPARE(q.latest("stage"), g3);
        while (q.pending() > 0) {
            Request r = *q.pop();
            r.work(r.generation);
        }
        QCOMPARE(ran, (std::vector<int>{3, 2}));  // the newer "stage" kept its tag's place

        std::atomic<int> done{0};
        std::thread worker([&] {
            while (auto r = q.pop()) {
                r->work(r->generation);
                ++done;
            }
        });
        q.push("a", [](uint64_t) {});
        QTRY_COMPARE(done.load(), 1);
        q.close();
        worker.join();
    }

    void aHundredThousandDispatchesStayInteractive() {
        // What the UI does with a 100k-dispatch stage once the worker analysed it: build the
        // node table, fold the dependency graph, lay out the schedule.
        TransformerGraphOptions o;
        o.layers = 100000 / kTransformerDispatchesPerLayer;
        ComputeGraph g = transformer_graph(o);
        QVERIFY(g.dispatch_count() >= 100000);
        QElapsedTimer analysis;
        analysis.start();
        const DocumentPtr doc = document({stage("captured", std::move(g))});
        const qint64 analysis_ms = analysis.elapsed();
        QElapsedTimer ui;
        ui.start();
        NodeTableModel table;
        table.setStage(doc, 0);
        const FoldedGraph folded = fold_graph(doc->snapshot(0).graph, doc->analysis(0), {});
        ScheduleLayout layout;
        std::vector<size_t> sizes;
        for (const auto& grp : doc->analysis(0).group_nodes) sizes.push_back(grp.size());
        layout.setGroups(std::move(sizes));
        const qint64 ui_ms = ui.elapsed();
        qInfo("100k dispatches: analysis %lld ms (worker), views %lld ms (UI), %zu folded items",
              analysis_ms, ui_ms, folded.items.size());
        QVERIFY(folded.items.size() < 100);  // the repeated layers fold into one item
        // Bounds ten times what a 2-core machine takes (docs/benchmarks.md has the figures):
        // loose enough for a loaded CI machine, tight enough that an algorithm gone
        // quadratic in the dispatches breaks them.
        QVERIFY2(analysis_ms < 5000, qPrintable(QString::number(analysis_ms)));
        QVERIFY2(ui_ms < 1000, qPrintable(QString::number(ui_ms)));

        // The node table behind its proxy: shown in node order (no sort), sorted by label,
        // filtered by a word.
        NodeFilterProxy proxy;
        QElapsedTimer step;
        step.start();
        proxy.setSourceModel(&table);
        proxy.sort(NodeTableModel::Index);
        QCOMPARE(proxy.rowCount(), table.rowCount());
        const qint64 show_ms = step.restart();
        proxy.sort(NodeTableModel::Label);
        QCOMPARE(proxy.rowCount(), table.rowCount());
        const qint64 sort_ms = step.restart();
        // Barriers first (no label), then the dispatches by label, as the sort role orders them.
        const int barriers = int(doc->analysis(0).barrier_count);
        QVERIFY(proxy.index(barriers - 1, 0).data(NodeTableModel::IsBarrierRole).toBool());
        for (int r = barriers + 1; r < proxy.rowCount(); r += 97) {
            const QString before = proxy.index(r - 1, NodeTableModel::Label).data().toString();
            const QString here = proxy.index(r, NodeTableModel::Label).data().toString();
            QVERIFY2(before <= here, qPrintable(before + QStringLiteral(" > ") + here));
        }
        step.restart();
        proxy.setText(QStringLiteral("blk.4999.attn_q"));
        QVERIFY(proxy.rowCount() >= 1);
        const qint64 filter_ms = step.restart();
        qInfo("100k node table: shown %lld ms, sorted by label %lld ms, filtered %lld ms", show_ms,
              sort_ms, filter_ms);
        QVERIFY2(
            show_ms < 1000 && sort_ms < 5000 && filter_ms < 3000,
            qPrintable(QStringLiteral("%1 / %2 / %3 ms").arg(show_ms).arg(sort_ms).arg(filter_ms)));
    }

    // The GUI draws with the core's palette, the one the DOT export and the HTML report use.
    void colorsAreTheCoresPalette() {
        for (HazardKind k : {HazardKind::raw, HazardKind::war, HazardKind::waw})
            QCOMPARE(hazardColor(k).name(QColor::HexRgb).toUpper(),
                     QString::fromStdString(hazard_colour(k).hex()));
        for (size_t op = 0; op < kOpKindCount; ++op) {
            const auto kind = static_cast<OpKind>(op);
            QCOMPARE(opColor(kind).name(QColor::HexRgb).toUpper(),
                     QString::fromStdString(op_family_colour(op_family(kind)).hex()));
        }
        QCOMPARE(opFamily(OpKind::silu_mul), QStringLiteral("activation"));
        QCOMPARE(redundantBarrierColor().name(QColor::HexRgb).toUpper(),
                 QString::fromStdString(redundant_barrier_colour().hex()));
    }

    void presentationFormatsValues() {
        QCOMPARE(formatBytes(512), QStringLiteral("512 B"));
        QCOMPARE(formatBytes(4096), QStringLiteral("4.00 KiB"));
        QCOMPARE(formatDuration(870), QStringLiteral("870 ns"));
        QCOMPARE(formatDuration(12345), QStringLiteral("12.3 µs"));
        QCOMPARE(formatDuration(4.56e6), QStringLiteral("4.56 ms"));
        QCOMPARE(formatDuration(9.5e9), QStringLiteral("9500.00 ms"));
        QCOMPARE(formatDuration(12.29e9), QStringLiteral("12.29 s"));
        QVERIFY(opColor(OpKind::matmul) != opColor(OpKind::rms_norm));
        QCOMPARE(opColor(OpKind::matmul), opColor(OpKind::quantized_matmul));
    }
};

QTEST_GUILESS_MAIN(TestModels)
#include "tst_models.moc"
