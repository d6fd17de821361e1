#include "app/pass_stepper_view.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListView>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include "models/presentation.h"

namespace graphlens::gui {

PassStepperView::PassStepperView(SelectionState* state, QWidget* parent)
    : QWidget(parent), state_(state) {
    table_ = new QTableView;
    table_->setModel(&stages_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (current.isValid()) state_->setStage(current.row());
            });

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
        v->setSelectionMode(QAbstractItemView::SingleSelection);
    }
    connect(right_list_, &QListView::clicked, this, [this](const QModelIndex& i) {
        state_->selectNodeIndex(i.data(StageCompareModel::NodeIndexRole).toULongLong());
    });
    connect(left_list_, &QListView::clicked, this, [this](const QModelIndex& i) {
        // A dispatch of the other stage: select it by id, so the current stage shows it
        // (or the fused node that absorbed it).
        const auto& doc = state_->document();
        const auto& g = doc->stages[static_cast<size_t>(state_->compareStage())].graph;
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

    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(table_);
    auto* lower = new QWidget;
    auto* lo = new QVBoxLayout(lower);
    lo->setContentsMargins(0, 0, 0, 0);
    lo->addWidget(summary_);
    lo->addWidget(legend);
    lo->addWidget(compare, 1);
    split->addWidget(lower);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);

    connect(state_, &SelectionState::documentChanged, this, &PassStepperView::onDocument);
    connect(state_, &SelectionState::stageChanged, this, &PassStepperView::onStage);
    connect(state_, &SelectionState::compareStageChanged, this, &PassStepperView::updateCompare);
    connect(state_, &SelectionState::selectionChanged, this, [this] {
        if (auto i = state_->selectedNodeIndex())
            right_list_->setCurrentIndex(right_model_.index(static_cast<int>(*i)));
        else if (auto b = state_->selectedBarrierIndex())
            right_list_->setCurrentIndex(right_model_.index(static_cast<int>(*b)));
    });
}

void PassStepperView::onDocument() {
    stages_.setDocument(state_->document());
    const QSignalBlocker block(left_combo_);
    left_combo_->clear();
    if (const auto& doc = state_->document())
        for (const Snapshot& s : doc->stages) left_combo_->addItem(QString::fromStdString(s.stage));
    onStage();
}

void PassStepperView::onStage() {
    const QSignalBlocker block(table_->selectionModel());
    table_->selectRow(state_->stage());
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
    left_model_.setStages(doc, other, cur);
    right_model_.setStages(doc, cur, other);
    right_label_->setText(
        tr("Current: %1").arg(QString::fromStdString(doc->stages[static_cast<size_t>(cur)].stage)));
    const Snapshot& a = doc->stages[static_cast<size_t>(other)];
    const Snapshot& b = doc->stages[static_cast<size_t>(cur)];
    summary_->setText(tr("<b>%1</b> → <b>%2</b>: dispatches %3 → %4, barriers %5 → %6, "
                         "groups %7 → %8")
                          .arg(QString::fromStdString(a.stage), QString::fromStdString(b.stage))
                          .arg(a.graph.dispatch_count())
                          .arg(b.graph.dispatch_count())
                          .arg(a.graph.barrier_count())
                          .arg(b.graph.barrier_count())
                          .arg(doc->analyses[static_cast<size_t>(other)].group_nodes.size())
                          .arg(doc->analyses[static_cast<size_t>(cur)].group_nodes.size()));
}

}  // namespace graphlens::gui
