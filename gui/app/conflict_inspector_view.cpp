#include "app/conflict_inspector_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/presentation.h"

namespace graphlens::gui {

ConflictInspectorView::ConflictInspectorView(SelectionState* state, QWidget* parent)
    : QWidget(parent), state_(state) {
    headline_ = new QLabel;
    headline_->setWordWrap(true);
    headline_->setTextFormat(Qt::RichText);
    headline_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    hazard_table_ = new QTableView;
    hazard_table_->setModel(&hazards_);
    fusion_table_ = new QTableView;
    fusion_table_->setModel(&fusions_);
    for (QTableView* t : {hazard_table_, fusion_table_}) {
        t->verticalHeader()->hide();
        t->setSelectionBehavior(QAbstractItemView::SelectRows);
        t->horizontalHeader()->setStretchLastSection(true);
        t->verticalHeader()->setDefaultSectionSize(20);
    }
    const int widths[] = {105, 75, 165, 165, 260};
    for (int c = 0; c < 5; ++c) hazard_table_->setColumnWidth(c, widths[c]);
    fusion_table_->setColumnWidth(0, 150);
    fusion_table_->setColumnWidth(1, 80);
    fusion_table_->setColumnWidth(2, 110);
    hazard_table_->setToolTip(tr("Double-click a hazard to go to the node at its other end"));
    connect(hazard_table_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
        state_->selectNodeIndex(i.data(HazardModel::OtherNodeRole).toULongLong());
    });
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(hazard_table_);
    auto* fusionBox = new QWidget;
    auto* fl = new QVBoxLayout(fusionBox);
    fl->setContentsMargins(0, 0, 0, 0);
    fl->addWidget(new QLabel(tr("<b>Fusions</b> (applied, and near misses with their reason)")));
    fl->addWidget(fusion_table_);
    split->addWidget(fusionBox);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(headline_);
    layout->addWidget(split, 1);
    connect(state_, &SelectionState::selectionChanged, this, &ConflictInspectorView::refresh);
    connect(state_, &SelectionState::documentChanged, this, &ConflictInspectorView::refresh);
    connect(state_, &SelectionState::stageChanged, this, &ConflictInspectorView::refresh);
    connect(state_, &SelectionState::stageArrived, this, [this](int stage) {
        if (stage <= state_->stage()) refresh();  // the fusions of earlier stages count too
    });
}

QString ConflictInspectorView::headline() const {
    return headline_->text();
}

void ConflictInspectorView::refresh() {
    const DocumentPtr& doc = state_->document();
    const Snapshot* s = state_->snapshot();
    const StageAnalysis* a = state_->analysis();
    if (!doc || !s) {
        hazards_.clear();
        fusions_.setStage(nullptr, 0);
        headline_->setText(state_->stagePending() ? tr("This stage is being computed…")
                                                  : tr("No document."));
        return;
    }
    const int stage = state_->stage();
    if (auto n = state_->selectedNodeIndex()) {
        const Node& node = s->graph->nodes[*n];
        hazards_.showNode(doc, stage, *n);
        fusions_.setStage(doc, stage, node.id);
        QString origin;
        if (node.origin.size() > 1) {
            QStringList ids;
            for (NodeId id : node.origin) ids << QString::number(id);
            origin = tr("<br>Fused from dispatches %1.").arg(ids.join(QStringLiteral(", ")));
        }
        headline_->setText(tr("<b>%1</b> — %2, group %3, DAG level %4: waits for %5 "
                              "hazard(s), %6 wait for it.%7")
                               .arg(nodeTitle(s->graph, *n).toHtmlEscaped(), opName(node.op))
                               .arg(a->group[*n])
                               .arg(a->level[*n])
                               .arg(a->hazards_in[*n].size())
                               .arg(a->hazards_out[*n].size())
                               .arg(origin));
        return;
    }
    fusions_.setStage(doc, stage);
    if (auto g = state_->selectedGroup()) {
        const auto [in, out] = a->group_hazards(*g);
        std::vector<HazardModel::Row> rows;
        for (size_t h : in) rows.push_back({h, HazardModel::Direction::in});
        for (size_t h : out) rows.push_back({h, HazardModel::Direction::out});
        hazards_.setRows(doc, stage, std::move(rows));
        headline_->setText(tr("<b>Group %1</b> — %2 dispatch(es) that may run together: they "
                              "wait for %3 hazard(s) from earlier groups, %4 later hazard(s) "
                              "wait for them.")
                               .arg(*g)
                               .arg(a->group_nodes[*g].size())
                               .arg(in.size())
                               .arg(out.size()));
        return;
    }
    if (auto b = state_->selectedBarrierIndex()) {
        hazards_.showBarrier(doc, stage, *b);
        const BarrierExplanation* e = a->barrier_at(*b);
        if (e->redundant())
            headline_->setText(
                tr("<b>Barrier #%1 is redundant</b>: no hazard runs from group %2 into group %3 "
                   "(%4). Removing it alone keeps the schedule valid; the "
                   "<i>barriers planned</i> pass drops such barriers.")
                    .arg(*b)
                    .arg(e->group_before)
                    .arg(e->group_after)
                    .arg(e->duplicate ? tr("it directly follows another barrier")
                                      : tr("older hazards are ordered by earlier barriers")));
        else
            headline_->setText(tr("<b>Barrier #%1</b> between group %2 and group %3 is needed: "
                                  "%4 hazard(s) cross only this barrier%5.")
                                   .arg(*b)
                                   .arg(e->group_before)
                                   .arg(e->group_after)
                                   .arg(e->forcing.size())
                                   .arg(e->fenced ? tr(", and a fence is next to it") : QString()));
        return;
    }
    // Nothing selected: list hazards that no barrier orders, if the stage has any.
    std::vector<HazardModel::Row> rows;
    for (size_t h : a->unsynchronised) rows.push_back({h, HazardModel::Direction::unsynchronised});
    hazards_.setRows(doc, stage, std::move(rows));
    headline_->setText(
        a->unsynchronised.empty()
            ? tr("Select a dispatch or a barrier. Stage <b>%1</b>: %2 hazards, %3 barriers, "
                 "%4 redundant.")
                  .arg(QString::fromStdString(s->stage))
                  .arg(a->hazards.size())
                  .arg(a->barriers.size())
                  .arg(a->redundant_barriers())
            : tr("Stage <b>%1</b> has %2 hazard(s) inside a concurrency group (no barrier "
                 "orders them) — listed below.")
                  .arg(QString::fromStdString(s->stage))
                  .arg(a->unsynchronised.size()));
}

}  // namespace graphlens::gui
