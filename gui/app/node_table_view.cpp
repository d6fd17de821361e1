#include "app/node_table_view.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLineEdit>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "models/presentation.h"

namespace graphlens::gui {

NodeTableView::NodeTableView(SelectionState* state, QWidget* parent)
    : QWidget(parent), state_(state) {
    proxy_.setSourceModel(&model_);
    filter_ = new QLineEdit;
    filter_->setPlaceholderText(tr("Filter: label, op kind, kernel or allocation (words AND)"));
    filter_->setClearButtonEnabled(true);
    barriers_ = new QCheckBox(tr("Barriers"));
    barriers_->setChecked(true);
    table_ = new QTableView;
    table_->setModel(&proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(NodeTableModel::Index, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(20);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setWordWrap(false);
    table_->installEventFilter(this);
    const int widths[] = {50, 170, 120, 160, 90, 260, 260, 50};
    for (int c = 0; c < 8; ++c) table_->setColumnWidth(c, widths[c]);

    auto* top = new QHBoxLayout;
    top->addWidget(filter_, 1);
    top->addWidget(barriers_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(table_);

    filter_pause_ = new QTimer(this);
    filter_pause_->setSingleShot(true);
    filter_pause_->setInterval(kFilterPauseMs);
    connect(filter_pause_, &QTimer::timeout, this, [this] { state_->setFilter(filter_->text()); });
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        if (model_.rowCount() > kImmediateFilterRows) {
            filter_pause_->start();  // a large stage: once typing pauses
        } else {
            filter_pause_->stop();
            state_->setFilter(text);
        }
    });
    connect(filter_, &QLineEdit::returnPressed, this, [this] {
        filter_pause_->stop();
        state_->setFilter(filter_->text());
    });
    connect(state_, &SelectionState::filterChanged, this, [this](const QString& text) {
        if (filter_->text() != text) filter_->setText(text);
        // Filtering moves the table's current row (to a neighbour of a hidden one, or to
        // none); that is no choice of the user's: the selection stays, and so does the view
        // on it when it is still listed.
        following_selection_ = true;
        proxy_.setText(text);
        following_selection_ = false;
        followSelection();
    });
    connect(barriers_, &QCheckBox::toggled, &proxy_, &NodeFilterProxy::setShowBarriers);
    connect(
        table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            if (current.isValid() && !following_selection_)
                state_->selectNodeIndex(current.data(NodeTableModel::NodeIndexRole).toULongLong());
        });
    auto reload = [this] {
        model_.setStage(state_->document(), state_->stage());
        // The # column as wide as its largest number (185006 at 100k dispatches).
        table_->setColumnWidth(NodeTableModel::Index,
                               std::max(50, table_->fontMetrics().horizontalAdvance(QString::number(
                                                std::max(0, model_.rowCount() - 1))) +
                                                24));
        followSelection();
    };
    connect(state_, &SelectionState::stageChanged, this, reload);
    connect(state_, &SelectionState::stageArrived, this, [this, reload](int stage) {
        if (stage == state_->stage()) reload();
    });
    connect(state_, &SelectionState::selectionChanged, this, &NodeTableView::followSelection);
    connect(state_, &SelectionState::runChanged, this, [this] { model_.setRun(state_->run()); });
}

void NodeTableView::followSelection() {
    std::optional<size_t> node = state_->selectedNodeIndex();
    if (!node) node = state_->selectedBarrierIndex();
    if (!node && state_->selectedGroup())
        node = state_->analysis()->group_nodes[*state_->selectedGroup()].front();
    if (!node && state_->selectedRace())
        node = state_->analysis()->races[*state_->selectedRace()].hazard.earlier;
    if (!node) return;
    const QModelIndex i = proxy_.mapFromSource(model_.indexOfNode(*node));
    if (!i.isValid()) return;
    // A flag, not a QSignalBlocker: the table repaints its highlight on these signals.
    following_selection_ = true;
    table_->selectionModel()->setCurrentIndex(
        i, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    following_selection_ = false;
    table_->scrollTo(i);
}

QString NodeTableView::selectedRowsAsTsv() const {
    QModelIndexList cells;
    for (const QModelIndex& row : table_->selectionModel()->selectedRows())
        for (int c = 0; c < model_.columnCount(); ++c)
            cells << model_.index(proxy_.mapToSource(row).row(), c);
    return cells.isEmpty() ? QString() : rowsAsTsv(model_, cells);
}

bool NodeTableView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == table_ && event->type() == QEvent::KeyPress &&
        static_cast<QKeyEvent*>(event)->matches(QKeySequence::Copy)) {
        QApplication::clipboard()->setText(selectedRowsAsTsv());
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace graphlens::gui
