#include "app/conflict_inspector_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/presentation.h"
#include "models/stage_list_model.h"

namespace graphlens::gui {

namespace {

QWidget* titled(QLabel* title, QTableView* table) {
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(title);
    layout->addWidget(table);
    return box;
}

}  // namespace

ConflictInspectorView::ConflictInspectorView(SelectionState* state, QWidget* parent)
    : QWidget(parent), state_(state) {
    headline_ = new QLabel;
    headline_->setWordWrap(true);
    headline_->setTextFormat(Qt::RichText);
    headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    races_title_ = new QLabel;
    races_title_->setWordWrap(true);
    races_title_->setToolTip(StageListModel::raceDefinition());
    hazard_table_ = new QTableView;
    hazard_table_->setModel(&hazards_);
    race_table_ = new QTableView;
    race_table_->setModel(&races_);
    fusion_table_ = new QTableView;
    fusion_table_->setModel(&fusions_);
    internal_stages_table_ = new QTableView;
    internal_stages_table_->setModel(&internal_stages_);
    for (QTableView* t : {hazard_table_, race_table_, fusion_table_, internal_stages_table_}) {
        t->verticalHeader()->hide();
        t->setSelectionBehavior(QAbstractItemView::SelectRows);
        t->horizontalHeader()->setStretchLastSection(true);
        t->verticalHeader()->setDefaultSectionSize(20);
    }
    // Every column in the dock's width, the bytes whole: the relation, kind and overlapping
    // bytes (two lines each where needed, the size included, so the Bytes column stays hidden)
    // fit their contents; the two nodes share the rest and lose their middle when it is too
    // little (a row's tooltip says the whole hazard in words).
    QHeaderView* hazard_header = hazard_table_->horizontalHeader();
    hazard_header->setStretchLastSection(false);
    for (int c : {HazardModel::Relation, HazardModel::Kind, HazardModel::Range})
        hazard_header->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    for (int c : {HazardModel::Earlier, HazardModel::Later})
        hazard_header->setSectionResizeMode(c, QHeaderView::Stretch);
    hazard_table_->hideColumn(HazardModel::Bytes);
    hazard_table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    hazard_table_->setTextElideMode(Qt::ElideMiddle);
    const int race_widths[] = {60, 150, 150, 220};
    for (int c = 0; c < 4; ++c) race_table_->setColumnWidth(c, race_widths[c]);
    race_table_->setSelectionMode(QAbstractItemView::SingleSelection);
    fusion_table_->setColumnWidth(0, 150);
    fusion_table_->setColumnWidth(1, 80);
    fusion_table_->setColumnWidth(2, 110);
    hazard_table_->setToolTip(tr("Double-click a hazard to go to the node at its other end"));
    connect(hazard_table_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        state_->selectNodeIndex(i.data(HazardModel::OtherNodeRole).toULongLong());
    });
    // A race selected in the list is selected everywhere: the schedule shows its two commands.
    connect(race_table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid())
                    state_->selectRace(current.data(RaceModel::RaceIndexRole).toULongLong());
            });
    internal_stages_table_->horizontalHeader()->setSectionResizeMode(InternalStagesModel::Stage,
                                                                     QHeaderView::ResizeToContents);
    internal_stages_table_->horizontalHeader()->setSectionResizeMode(InternalStagesModel::What,
                                                                     QHeaderView::ResizeToContents);
    internal_stages_box_ =
        titled(new QLabel(tr("<b>Stages inside this dispatch</b> (ordered by arrival counters, not "
                             "barriers): each stage's bytes, and the hazards between stages")),
               internal_stages_table_);
    internal_stages_box_->hide();
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(internal_stages_box_);
    split->addWidget(hazard_table_);
    split->addWidget(titled(races_title_, race_table_));
    split->addWidget(
        titled(new QLabel(tr("<b>Fusions</b> (applied, and near misses with their reason)")),
               fusion_table_));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(headline_);
    layout->addWidget(split, 1);
    connect(state_, &SelectionState::selectionChanged, this, &ConflictInspectorView::refresh);
    connect(state_, &SelectionState::stageChanged, this, &ConflictInspectorView::refresh);
    connect(state_, &SelectionState::stageArrived, this, [this](int stage) {
        if (stage <= state_->stage()) refresh();  // the fusions of earlier stages count too
    });
}

QString ConflictInspectorView::headline() const {
    return headline_->text();
}

QString ConflictInspectorView::racesTitle() const {
    return races_title_->text();
}

void ConflictInspectorView::refresh() {
    const DocumentPtr& doc = state_->document();
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    if (!doc || !s) {
        hazards_.clear();
        internal_stages_.clear();
        internal_stages_box_->hide();
        races_.setStage(nullptr, 0);
        fusions_.setStage(nullptr, 0);
        races_title_->clear();
        headline_->setText(state_->stagePending() ? tr("This stage is being computed…")
                                                  : tr("No document."));
        return;
    }
    // The race list belongs to the stage; it is reset only when the stage or document changes
    // (so selecting one of its rows does not rebuild it under the click).
    if (races_.rowCount() != int(a->races.size()) || race_document_ != doc.get() ||
        race_stage_ != state_->stage()) {
        races_.setStage(doc, state_->stage());
        race_document_ = doc.get();
        race_stage_ = state_->stage();
    }
    races_title_->setText(
        a->races.empty()
            ? tr("<b>Races</b>: none — every hazard has a barrier between its commands that "
                 "orders it.")
            : tr("<b>Races</b> (%1): hazards that no barrier between their two commands "
                 "orders; select one to see its commands.")
                  .arg(a->races.size()));
    followRace();
    if (auto n = state_->selectedNodeIndex()) return showNode(*n);
    internal_stages_.clear();
    internal_stages_box_->hide();
    fusions_.setStage(doc, state_->stage());
    if (auto g = state_->selectedGroup()) return showGroup(*g);
    if (auto b = state_->selectedBarrierIndex()) return showBarrier(*b);
    if (auto r = state_->selectedRace()) return showRace(*r);
    showStage();
}

// The race list's current row is the selected race, or none.
void ConflictInspectorView::followRace() {
    const QSignalBlocker block(race_table_->selectionModel());
    if (auto r = state_->selectedRace()) {
        const QModelIndex i = races_.indexOfRace(*r);
        race_table_->selectionModel()->setCurrentIndex(
            i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        race_table_->scrollTo(i);
    } else {
        race_table_->selectionModel()->clear();
    }
}

void ConflictInspectorView::showNode(size_t n) {
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    const Node& node = s->graph->nodes[n];
    hazards_.showNode(state_->document(), state_->stage(), n);
    fusions_.setStage(state_->document(), state_->stage(), node.id);
    internal_stages_.showNode(state_->document(), state_->stage(), n);
    internal_stages_box_->setVisible(internal_stages_.rowCount() > 0 ||
                                     !internal_stages_.error().isEmpty());
    QString inside;
    if (!internal_stages_.stages().stages.empty())
        inside = tr(" It does %1 stages inside one dispatch, ordered by arrival counters "
                    "(below).")
                     .arg(internal_stages_.stages().stages.size());
    else if (!internal_stages_.error().isEmpty())
        inside =
            tr(" Its stages cannot be shown: %1").arg(internal_stages_.error().toHtmlEscaped());
    QString origin;
    if (node.origin.size() > 1) {
        QStringList names;
        for (NodeId id : node.origin) names << capturedDispatchName(*state_->document(), id);
        origin = tr("<br>Fused from the captured stage's %1.")
                     .arg(names.join(QStringLiteral(", ")).toHtmlEscaped());
    }
    const QString races = a->races_at(n)
                              ? tr(" <b>It is an end of %1 race(s)</b> (marked in the list below).")
                                    .arg(a->races_at(n))
                              : QString();
    headline_->setText(tr("<b>%1</b> — %2, group %3, DAG level %4: waits for %5 "
                          "hazard(s), %6 wait for it.%7%8%9")
                           .arg(nodeTitle(s->graph, n).toHtmlEscaped(), opName(node.op))
                           .arg(a->group[n])
                           .arg(a->level[n])
                           .arg(a->hazards_in[n].size())
                           .arg(a->hazards_out[n].size())
                           .arg(races, inside, origin));
}

void ConflictInspectorView::showGroup(size_t g) {
    const StageAnalysis* a = state_->analysis();
    const auto [in, out] = a->group_hazards(g);
    std::vector<HazardModel::Row> rows;
    for (size_t h : in) rows.push_back({h, HazardModel::Direction::in});
    for (size_t h : out) rows.push_back({h, HazardModel::Direction::out});
    hazards_.setRows(state_->document(), state_->stage(), std::move(rows));
    headline_->setText(tr("<b>Group %1</b> — %2 dispatch(es) that may run together: they "
                          "wait for %3 hazard(s) from earlier groups, %4 later hazard(s) "
                          "wait for them.")
                           .arg(g)
                           .arg(a->group_nodes[g].size())
                           .arg(in.size())
                           .arg(out.size()));
}

void ConflictInspectorView::showBarrier(size_t b) {
    const StageAnalysis* a = state_->analysis();
    hazards_.showBarrier(state_->document(), state_->stage(), b);
    const BarrierExplanation* e = a->barrier_at(b);
    const QString scope =
        e->scope.empty()
            ? QString()
            : tr("<br>Recorded scope%1: %2")
                  .arg(e->partial ? tr(" (orders less than a full barrier)") : QString(),
                       QString::fromStdString(e->scope).toHtmlEscaped());
    if (e->redundant())
        headline_->setText(
            tr("<b>Barrier #%1 is redundant</b>: no hazard runs from group %2 into group %3 "
               "that it alone orders (%4). Removing it alone keeps the schedule valid; the "
               "<i>barriers planned</i> pass drops such barriers.%5")
                .arg(b)
                .arg(e->group_before)
                .arg(e->group_after)
                .arg(e->duplicate ? tr("it directly follows another barrier")
                                  : tr("older hazards are ordered by earlier barriers"),
                     scope));
    else
        headline_->setText(
            tr("<b>Barrier #%1</b> between group %2 and group %3 is needed: "
               "%4 hazard(s) cross only this barrier%5.%6")
                .arg(b)
                .arg(e->group_before)
                .arg(e->group_after)
                .arg(e->forcing.size())
                .arg(e->fenced ? tr(", and a fence is next to it") : QString(), scope));
}

void ConflictInspectorView::showRace(size_t r) {
    const Snapshot* s = state_->snapshot();
    const Race& race = state_->analysis()->races[r];
    hazards_.showRace(state_->document(), state_->stage(), r);
    headline_->setText(tr("<b>Race</b> between <b>%1</b> and <b>%2</b>: %3 on %4, %5.<br>%6")
                           .arg(nodeTitle(s->graph, race.hazard.earlier).toHtmlEscaped(),
                                nodeTitle(s->graph, race.hazard.later).toHtmlEscaped(),
                                hazardName(race.hazard.kind),
                                formatRange(s->graph, race.hazard.overlap()).toHtmlEscaped(),
                                RaceModel::barriersText(s->graph, race).toHtmlEscaped(),
                                QString::fromStdString(race.explanation).toHtmlEscaped()));
}

void ConflictInspectorView::showStage() {
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    // Nothing selected: list hazards that no barrier orders inside one group, if any.
    std::vector<HazardModel::Row> rows;
    for (size_t h : a->unsynchronised) rows.push_back({h, HazardModel::Direction::unsynchronised});
    hazards_.setRows(state_->document(), state_->stage(), std::move(rows));
    const QString stage = QString::fromStdString(s->stage).toHtmlEscaped();
    if (a->races.empty())
        headline_->setText(tr("Select a dispatch, a barrier or a race. Stage <b>%1</b>: %2 "
                              "hazards, %3 barriers, %4 redundant, no race.")
                               .arg(stage)
                               .arg(a->hazards.size())
                               .arg(a->barriers.size())
                               .arg(a->redundant_barriers()));
    else
        headline_->setText(tr("Stage <b>%1</b> has %2 race(s) (hazards no barrier orders), "
                              "listed below; %3 of them inside a concurrency group.")
                               .arg(stage)
                               .arg(a->races.size())
                               .arg(a->unsynchronised.size()));
}

}  // namespace graphlens::gui
