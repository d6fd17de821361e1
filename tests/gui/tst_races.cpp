// Races and recorded barriers in the GUI's models: every verdict is the core's. On programs
// whose barriers have scopes of their own (tests/gui/test_graphs.h), the Document's race list
// equals graphlens::find_races (hazard, position, barriers and why, explanation), its barrier
// verdicts equal explain_barriers under those scopes, the stage list counts find_races per
// stage, and the models that show races pass QAbstractItemModelTester.
#include <QAbstractItemModelTester>
#include <QtTest>

#include "graphlens/graph/event_set_text.h"
#include "graphlens/graph/palette.h"
#include "graphlens/graph/race_finder.h"
#include "graphlens/graph/schedule_analysis.h"
#include "models/barrier_scope_text.h"
#include "models/hazard_model.h"
#include "models/node_table_model.h"
#include "models/presentation.h"
#include "models/race_model.h"
#include "models/schedule_layout.h"
#include "models/selection_state.h"
#include "models/stage_list_model.h"
#include "test_graphs.h"

using namespace graphlens;
using namespace graphlens::gui;
using namespace graphlens::gui::testing;

namespace {

// The recorded program, then the stages the worker's pipeline makes of it.
DocumentPtr recordedDocument() {
    DocumentPtr last;
    build_document(recordedProgram(), PassOptions{}, "test", "recorded program", std::nullopt,
                   [&](DocumentPtr d) {
                       last = std::move(d);
                       return true;
                   });
    return last;
}

// The race of `races` between these two nodes, if any.
const Race* raceBetween(const std::vector<Race>& races, size_t earlier, size_t later) {
    for (const Race& r : races)
        if (r.hazard.earlier == earlier && r.hazard.later == later) return &r;
    return nullptr;
}

QString describe(const Race& r) {
    return QString::fromStdString(r.explanation);
}

}  // namespace

class TestRaces : public QObject {
    Q_OBJECT
  private slots:
    void theRaceListIsFindRacesOnEveryStage() {
        const DocumentPtr doc = recordedDocument();
        QVERIFY(doc && doc->complete());
        for (size_t s = 0; s < doc->stage_count(); ++s) {
            const ComputeGraph& graph = doc->snapshot(s).graph;
            const StageAnalysis& a = doc->analysis(s);
            const std::vector<Race> core = find_races(graph);  // its own, fresh index
            QCOMPARE(a.races.size(), core.size());
            for (size_t k = 0; k < core.size(); ++k) {
                const Race& gui = a.races[k];
                QVERIFY2(gui.hazard == core[k].hazard, qPrintable(describe(core[k])));
                QCOMPARE(gui.hazard_position, core[k].hazard_position);
                QCOMPARE(gui.explanation, core[k].explanation);
                QCOMPARE(gui.barriers.size(), core[k].barriers.size());
                for (size_t b = 0; b < core[k].barriers.size(); ++b) {
                    QCOMPARE(gui.barriers[b].barrier, core[k].barriers[b].barrier);
                    QCOMPARE(gui.barriers[b].why, core[k].barriers[b].why);
                }
                // The hazard lists and the race list point at the same hazards.
                QVERIFY(a.hazards.at(gui.hazard_position) == gui.hazard);
                QCOMPARE(a.race_of_hazard(gui.hazard_position).value_or(SIZE_MAX), k);
            }
        }
    }

    void aRaceCrossesABarrierWhoseScopeDoesNotCoverIt() {
        const StageAnalysis a = analyse_stage(recordedProgram());
        // fill (transfer) → q across a compute → compute barrier.
        const Race* fill_q = raceBetween(a.races, 0, 2);
        QVERIFY(fill_q);
        QCOMPARE(fill_q->barriers.size(), size_t(1));
        QCOMPARE(fill_q->barriers[0].barrier, size_t(1));
        QVERIFY(!fill_q->barriers[0].why.empty());
        // q → k across a buffer barrier over half of the bytes.
        const Race* q_k = raceBetween(a.races, 2, 4);
        QVERIFY(q_k);
        QCOMPARE(q_k->barriers.size(), size_t(1));
        QCOMPARE(q_k->barriers[0].barrier, size_t(3));
        // x → y with no barrier between.
        const Race* x_y = raceBetween(a.races, 11, 12);
        QVERIFY(x_y);
        QVERIFY(x_y->barriers.empty());
        // q → v is ordered by the full barrier: not a race.
        QVERIFY(!raceBetween(a.races, 2, 6));
        QCOMPARE(a.races_at(2), size_t(2));
        QCOMPARE(a.races_at(6), size_t(0));
        QCOMPARE(a.races_of_node(2).size(), size_t(2));
    }

    void barrierVerdictsAreExplainBarriersUnderScopes() {
        const DocumentPtr doc = recordedDocument();
        for (size_t s = 0; s < doc->stage_count(); ++s) {
            const ComputeGraph& graph = doc->snapshot(s).graph;
            const StageAnalysis& a = doc->analysis(s);
            const std::vector<graphlens::BarrierExplanation> core = explain_barriers(graph);
            QCOMPARE(a.barriers.size(), core.size());
            for (size_t k = 0; k < core.size(); ++k) {
                const gui::BarrierExplanation& b = a.barriers[k];
                QCOMPARE(b.node_index, core[k].barrier);
                QCOMPARE(b.needed, !core[k].redundant);
                QCOMPARE(b.forcing, core[k].hazard_positions);
                const BarrierScope* scope = graph.scope_of(graph.nodes[b.node_index]);
                QCOMPARE(b.scope.empty(), scope == nullptr);
                QCOMPARE(b.partial, scope != nullptr && scope_is_partial(*scope));
            }
        }
        // In the recorded program: the full barrier and the compute → transfer one are needed
        // (each alone orders a hazard), the others redundant.
        const StageAnalysis a = analyse_stage(recordedProgram());
        QVERIFY(a.barrier_at(5)->needed);
        QVERIFY(a.barrier_at(7)->needed);
        QVERIFY(a.barrier_at(7)->partial);
        QVERIFY(a.barrier_at(9)->redundant());
        QVERIFY(a.barrier_at(5)->scope.empty());
    }

    void aBarriersScopeIsDescribedInWords() {
        const ComputeGraph g = recordedProgram();
        const StageAnalysis a = analyse_stage(g);
        QCOMPARE(QString::fromStdString(a.barrier_at(1)->scope),
                 QStringLiteral("pipeline_barrier: compute → compute, shader writes → shader "
                                "reads — compute to compute"));
        QCOMPARE(QString::fromStdString(a.barrier_at(3)->scope),
                 QStringLiteral("pipeline_barrier: compute → compute, shader writes → shader "
                                "reads, 'out' bytes 0..512"));
        QCOMPARE(QString::fromStdString(a.barrier_at(9)->scope),
                 QStringLiteral("pipeline_barrier: compute|transfer → compute, execution only"));
        BarrierScope everything{BarrierOrigin::submission,
                                {{kStageAll, kStageAll, kAccessAll, kAccessAll, std::nullopt}},
                                "host waited"};
        QVERIFY(!scope_is_partial(everything));
    }

    void anEventWaitsScopeSaysWhereItsEventWasSet() {
        // The download's barrier made an event wait: its text says where the event was set, in
        // the words of the core's race explanation (event_set_text), from the same dependency.
        ComputeGraph g = recordedProgram();
        const size_t wait_node = 7;  // between "v" (node 6) and "download" (node 8)
        BarrierScope& wait = g.barrier_scopes[g.nodes[wait_node].barrier_scope() - 1];
        wait.origin = BarrierOrigin::wait_events;
        wait.dependencies[0].event_set_at = 7;  // set after "v": v's write is ordered
        QCOMPARE(QString::fromStdString(analyse_stage(g).barrier_at(wait_node)->scope),
                 QStringLiteral("wait_events: compute → transfer, shader writes → transfer "
                                "reads, event set after node 6"));
        // Set before the captured commands: v comes after the set, so v → download races, and
        // the race explanation and the scope name the set alike.
        wait.dependencies[0].event_set_at = 0;
        const StageAnalysis a = analyse_stage(g);
        const QString scope = QString::fromStdString(a.barrier_at(wait_node)->scope);
        QCOMPARE(scope, QStringLiteral("wait_events: compute → transfer, shader writes → "
                                       "transfer reads, event set before the captured commands"));
        const Race* race = raceBetween(a.races, 6, 8);
        QVERIFY(race);
        const QString set = QString::fromStdString(event_set_text(0));
        QVERIFY2(describe(*race).contains(set), qPrintable(describe(*race)));
        QVERIFY2(scope.contains(set), qPrintable(scope));
    }

    void theStageListCountsRacesPerStageAndSaysWhatARaceIs() {
        StageListModel model;
        QAbstractItemModelTester tester(&model);
        const DocumentPtr doc = recordedDocument();
        model.setDocument(doc);
        for (size_t s = 0; s < doc->stage_count(); ++s)
            QCOMPARE(model.index(int(s), StageListModel::Races).data().toULongLong(),
                     qulonglong(find_races(doc->snapshot(s).graph).size()));
        QVERIFY(model.index(0, StageListModel::Races).data().toULongLong() > 0);
        const QString tip = model.index(0, StageListModel::Races).data(Qt::ToolTipRole).toString();
        QVERIFY2(tip.contains(QStringLiteral("no barrier between its two commands orders")),
                 qPrintable(tip));
        QCOMPARE(
            model.headerData(StageListModel::Races, Qt::Horizontal, Qt::ToolTipRole).toString(),
            StageListModel::raceDefinition());
    }

    void theRaceModelExplainsEachRace() {
        const DocumentPtr doc = document({stage("captured", recordedProgram())});
        const StageAnalysis& a = doc->analysis(0);
        RaceModel model;
        QAbstractItemModelTester tester(&model);
        model.setStage(doc, 0);
        QCOMPARE(size_t(model.rowCount()), a.races.size());
        for (int r = 0; r < model.rowCount(); ++r) {
            const Race& race = a.races[size_t(r)];
            QCOMPARE(model.index(r, 0).data(RaceModel::HazardIndexRole).toULongLong(),
                     qulonglong(race.hazard_position));
            QCOMPARE(model.index(r, 0).data(Qt::ToolTipRole).toString(),
                     QString::fromStdString(race.explanation));
            QCOMPARE(model.index(r, RaceModel::Earlier).data().toString(),
                     nodeTitle(doc->snapshot(0).graph, race.hazard.earlier));
            const QString barriers = model.index(r, RaceModel::Barriers).data().toString();
            if (race.barriers.empty()) QCOMPARE(barriers, QStringLiteral("no barrier between"));
            for (const UncoveringBarrier& b : race.barriers)
                QVERIFY2(barriers.contains(QString::fromStdString(b.why)), qPrintable(barriers));
        }
        model.setStage(nullptr, 0);
        QCOMPARE(model.rowCount(), 0);
    }

    void hazardListsMarkTheHazardsThatAreRaces() {
        const DocumentPtr doc = document({stage("captured", recordedProgram())});
        const StageAnalysis& a = doc->analysis(0);
        HazardModel model;
        QAbstractItemModelTester tester(&model);
        model.showNode(doc, 0, 2);  // q: fill → q and q → k race, q → v does not
        int races = 0;
        for (int r = 0; r < model.rowCount(); ++r) {
            const bool race = model.index(r, 0).data(HazardModel::IsRaceRole).toBool();
            races += race;
            QCOMPARE(model.index(r, HazardModel::Relation).data().toString().endsWith("(race)"),
                     race);
        }
        QCOMPARE(size_t(races), a.races_at(2));
        model.showRace(doc, 0, 1);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.index(0, 0).data(HazardModel::HazardIndexRole).toULongLong(),
                 qulonglong(a.races[1].hazard_position));
        QCOMPARE(model.index(0, 0).data(Qt::ToolTipRole).toString(),
                 QString::fromStdString(a.races[1].explanation));
    }

    void theNodeTableCountsEachDispatchsRaces() {
        const DocumentPtr doc = document({stage("captured", recordedProgram())});
        NodeTableModel model;
        QAbstractItemModelTester tester(&model);
        model.setStage(doc, 0);
        QCOMPARE(model.index(2, NodeTableModel::Races).data().toULongLong(), 2ull);
        QVERIFY(!model.index(6, NodeTableModel::Races).data().isValid());  // none: empty
        QVERIFY(model.index(3, NodeTableModel::Label).data().toString().contains("partial"));
        QVERIFY(model.index(9, NodeTableModel::Label).data().toString().contains("redundant"));
        QVERIFY(model.index(3, NodeTableModel::Label)
                    .data(Qt::ToolTipRole)
                    .toString()
                    .contains(QStringLiteral("bytes 0..512")));
        QVERIFY(*model.lessThan(6, 2, NodeTableModel::Races));
    }

    void selectingARaceSelectsItsTwoCommands() {
        SelectionState state;
        state.setDocument(recordedDocument());
        const StageAnalysis& a = *state.analysis();
        QVERIFY(!a.races.empty());
        state.selectRace(0);
        QCOMPARE(state.selectedRace().value_or(SIZE_MAX), size_t(0));
        const std::vector<size_t> ends = {a.races[0].hazard.earlier, a.races[0].hazard.later};
        QCOMPARE(state.selectedNodeIndices(), ends);
        QVERIFY(!state.selectedNodeIndex());
        state.back();
        QVERIFY(!state.selectedRace());
        state.forward();
        QCOMPARE(state.selectedRace().value_or(SIZE_MAX), size_t(0));
        // A race is a position in one stage's order: another stage drops it.
        state.nextStage();
        QVERIFY(!state.selectedRace());
    }

    void aRaceIsDrawnFromTheEarlierBoxToTheLaterOne() {
        ScheduleLayout layout;
        layout.setGroups({1, 2, 3});
        // Across columns: from the right edge of the earlier box to the left edge of the later.
        const QPainterPath across = layout.racePath(0, 0, 2, 1);
        QCOMPARE(across.pointAtPercent(0),
                 QPointF(layout.boxRect(0, 0).right(), layout.boxRect(0, 0).center().y()));
        QCOMPARE(across.pointAtPercent(1),
                 QPointF(layout.boxRect(2, 1).left(), layout.boxRect(2, 1).center().y()));
        // Inside one column: a bracket in the gap to its right.
        const QPainterPath inside = layout.racePath(2, 0, 2, 2);
        QVERIFY(inside.boundingRect().left() >= layout.boxRect(2, 0).right() - 0.01);
        // The handle a click finds lies outside every box.
        for (const auto& [ga, sa, gb, sb] :
             {std::tuple{0, 0, 2, 1}, std::tuple{2, 0, 2, 2}, std::tuple{1, 1, 2, 0}}) {
            const QPointF h = layout.raceHandle(size_t(ga), size_t(sa), size_t(gb), size_t(sb));
            QVERIFY(layout.hitTest(h).kind != ScheduleLayout::Hit::Kind::dispatch);
        }
    }

    // A race has its own colour in the core's palette, unlike every hazard kind and barrier.
    void racesHaveAColourOfTheirOwn() {
        QCOMPARE(raceColor().name(QColor::HexRgb).toUpper(),
                 QString::fromStdString(race_colour().hex()));
        for (HazardKind k : {HazardKind::raw, HazardKind::war, HazardKind::waw})
            QVERIFY(race_colour() != hazard_colour(k));
        QVERIFY(race_colour() != redundant_barrier_colour());
        QVERIFY(race_colour() != barrier_colour());
    }
};

QTEST_GUILESS_MAIN(TestRaces)
#include "tst_races.moc"
