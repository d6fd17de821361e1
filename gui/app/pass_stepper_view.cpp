#include "app/pass_stepper_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "models/presentation.h"

namespace graphlens::gui {

namespace {
constexpr int kListLayoutBatch = 20000;
}

PassStepperView::PassStepperView(SelectionState* state, CoreWorker* worker, QWidget* parent)
    : QWidget(parent), state_(state), worker_(worker) {
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(createStageTable());
    split->addWidget(createComparison());
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
    connectState();
}

// One row per stage with its counts; the current row follows the stepping.
QTableView* PassStepperView::createStageTable() {
    table_ = new QTableView;
    table_->setModel(&stages_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(22);
    // The counts take what their numbers need and the stage names the rest, so a narrow dock
    // elides a name before it hides a column.
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(StageListModel::Stage, QHeaderView::Stretch);
    table_->horizontalHeader()->setStretchLastSection(false);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid() && !following_stage_) state_->setStage(current.row());
            });
    return table_;
}

// The summary of the comparison, its legend and the two stages' node lists side by side.
QWidget* PassStepperView::createComparison() {
    left_combo_ = new QComboBox;
    left_combo_->setToolTip(tr("Stage to compare the current stage with"));
    connect(left_combo_, &QComboBox::currentIndexChanged, state_, &SelectionState::setCompareStage);
    right_label_ = new QLabel;
    summary_ = new QLabel;
    summary_->setWordWrap(true);

    left_list_ = new QListView;
    right_list_ = new QListView;
    left_list_->setModel(&left_model_);
    right_list_->setModel(&right_model_);
    for (QListView* v : {left_list_, right_list_}) {
        v->setUniformItemSizes(true);
        // A stage of 100k dispatches is laid out in slices between events, not in one stall.
        v->setLayoutMode(QListView::Batched);
        v->setBatchSize(kListLayoutBatch);
        v->setSelectionMode(QAbstractItemView::SingleSelection);
    }
    connect(right_list_, &QListView::clicked, this, [this](const QModelIndex& i) {
        state_->selectNodeIndex(i.data(StageCompareModel::NodeIndexRole).toULongLong());
    });
    connect(left_list_, &QListView::clicked, this, [this](const QModelIndex& i) {
        // A dispatch of the other stage: select it by id, so the current stage shows it
        // (or the fused node that absorbed it).
        const auto& doc = state_->document();
        const ComputeGraph& g = doc->snapshot(static_cast<size_t>(state_->compareStage())).graph;
        const Node& n = g.nodes[i.data(StageCompareModel::NodeIndexRole).toULongLong()];
        if (n.is_dispatch()) state_->selectNode(n.id);
    });

    auto* legend =
        new QLabel(tr("<span style='background:#f3d9a6'>&nbsp;moved&nbsp;</span> "
                      "<span style='background:#bfe0f5'>&nbsp;fused / absorbed&nbsp;</span> "
                      "<span style='background:#a6d9c8'>&nbsp;barrier added&nbsp;</span> "
                      "<span style='background:#ecc6dc'>&nbsp;barrier removed&nbsp;</span>"));

    auto* leftBox = new QWidget;
    auto* ll = new QVBoxLayout(leftBox);
    ll->setContentsMargins(0, 0, 0, 0);
    ll->addWidget(left_combo_);
    ll->addWidget(left_list_);
    auto* rightBox = new QWidget;
    auto* rl = new QVBoxLayout(rightBox);
    rl->setContentsMargins(0, 0, 0, 0);
    rl->addWidget(right_label_);
    rl->addWidget(right_list_);
    auto* compare = new QSplitter(Qt::Horizontal);
    compare->addWidget(leftBox);
    compare->addWidget(rightBox);
    auto* lower = new QWidget;
    auto* lo = new QVBoxLayout(lower);
    lo->setContentsMargins(0, 0, 0, 0);
    lo->addWidget(summary_);
    lo->addWidget(legend);
    lo->addWidget(compare, 1);
    return lower;
}

void PassStepperView::connectState() {
    connect(state_, &SelectionState::documentChanged, this, &PassStepperView::onDocument);
    connect(state_, &SelectionState::stageChanged, this, &PassStepperView::onStage);
    connect(state_, &SelectionState::compareStageChanged, this, &PassStepperView::updateCompare);
    connect(state_, &SelectionState::stageArrived, this, [this](int stage) {
        stages_.updateDocument(state_->document());
        if (stage == state_->stage() || stage == state_->compareStage()) updateCompare();
    });
    connect(worker_, &CoreWorker::comparisonReady, this, &PassStepperView::onComparison);
    connect(state_, &SelectionState::filterChanged, this, [this] {
        left_model_.setFilter(state_->nodeFilter());
        right_model_.setFilter(state_->nodeFilter());
    });
    connect(state_, &SelectionState::selectionChanged, this, [this] {
        if (auto i = state_->selectedNodeIndex())
            right_list_->setCurrentIndex(right_model_.index(static_cast<int>(*i)));
        else if (auto b = state_->selectedBarrierIndex())
            right_list_->setCurrentIndex(right_model_.index(static_cast<int>(*b)));
        else if (auto g = state_->selectedGroup())
            right_list_->setCurrentIndex(
                right_model_.index(static_cast<int>(state_->analysis()->group_nodes[*g].front())));
        else if (auto r = state_->selectedRace())
            right_list_->setCurrentIndex(
                right_model_.index(static_cast<int>(state_->analysis()->races[*r].hazard.earlier)));
    });
}

void PassStepperView::onDocument() {
    stages_.setDocument(state_->document());
    // Every stage's row in view (the last, "split", was below the fold).
    const int rows = stages_.rowCount();
    table_->setMinimumHeight(table_->horizontalHeader()->sizeHint().height() +
                             rows * table_->verticalHeader()->defaultSectionSize() +
                             table_->horizontalScrollBar()->sizeHint().height() +
                             2 * table_->frameWidth() + 2);
    const QSignalBlocker block(left_combo_);
    left_combo_->clear();
    if (const auto& doc = state_->document())
        for (const DocumentStage& s : doc->stages)
            left_combo_->addItem(QString::fromStdString(s.name));
}

void PassStepperView::onStage() {
    // Not a QSignalBlocker on the selection model: the table repaints and scrolls on its
    // signals, so blocking them left the highlight on the stage before.
    following_stage_ = true;
    table_->selectRow(state_->stage());
    table_->scrollTo(table_->currentIndex());
    following_stage_ = false;
    updateCompare();
}

void PassStepperView::updateCompare() {
    const auto& doc = state_->document();
    if (!doc || doc->stages.empty()) return;
    const int cur = state_->stage(), other = state_->compareStage();
    {
        const QSignalBlocker block(left_combo_);
        left_combo_->setCurrentIndex(other);
    }
    const auto name = [&](int stage) {
        return QString::fromStdString(doc->stages[static_cast<size_t>(stage)].name);
    };
    // The summary reads in pipeline order, whichever side the current stage is on.
    const int earlier = std::min(cur, other), later = std::max(cur, other);
    right_label_->setText(tr("Current: %1").arg(name(cur)));
    const bool both = doc->ready(size_t(cur)) && doc->ready(size_t(other));
    // A stage compared with itself changes nothing: no comparison to wait for.
    left_model_.setStages(doc, other, cur, nullptr);
    right_model_.setStages(doc, cur, other, nullptr);
    if (!both) {
        summary_->setText(tr("<b>%1</b> → <b>%2</b>: computing…").arg(name(earlier), name(later)));
        return;
    }
    const StageAnalysis& a = doc->analysis(size_t(earlier));
    const StageAnalysis& b = doc->analysis(size_t(later));
    summary_->setText(tr("<b>%1</b> → <b>%2</b>: dispatches %3 → %4, barriers %5 → %6, "
                         "groups %7 → %8%9")
                          .arg(name(earlier), name(later))
                          .arg(a.dispatch_count)
                          .arg(b.dispatch_count)
                          .arg(a.barrier_count)
                          .arg(b.barrier_count)
                          .arg(a.group_nodes.size())
                          .arg(b.group_nodes.size())
                          .arg(cur == other ? QString() : tr(" (comparing…)")));
    if (cur != other)
        worker_->compareStages(doc, other, cur);
    else
        emit comparisonUpdated();
    summary_text_ = summary_->text();
}

void PassStepperView::onComparison(DocumentPtr document, int left, int right,
                                   NodeChanges left_changes, NodeChanges right_changes) {
    // Stale: the user moved on (or a newer version of the document arrived meanwhile, which
    // holds the same stages; compare by id).
    const auto& doc = state_->document();
    if (!doc || doc->id != document->id || left != state_->compareStage() ||
        right != state_->stage())
        return;
    left_model_.setStages(doc, left, right, std::move(left_changes));
    right_model_.setStages(doc, right, left, std::move(right_changes));
    summary_->setText(summary_text_.remove(tr(" (comparing…)")));
    // The selection's row again: the reset of the models cleared it.
    if (auto i = state_->selectedNodeIndex())
        right_list_->setCurrentIndex(right_model_.index(static_cast<int>(*i)));
    emit comparisonUpdated();
}

bool PassStepperView::comparisonShown() const {
    const auto& doc = state_->document();
    if (!doc || !doc->ready(size_t(state_->stage())) || !doc->ready(size_t(state_->compareStage())))
        return false;
    return state_->stage() == state_->compareStage() || right_model_.marked();
}

}  // namespace graphlens::gui
