#pragma once
// View 2: every node of the current stage; text filter shared with the other views;
// Ctrl+C copies the selected rows as TSV. On large stages the filter applies once typing pauses
// (filtering 185k rows at every keystroke would make typing lag).
#include <QWidget>

#include "models/node_table_model.h"
#include "models/selection_state.h"

class QLineEdit;
class QTableView;
class QCheckBox;
class QTimer;

namespace graphlens::gui {

class NodeTableView : public QWidget {
    Q_OBJECT
  public:
    explicit NodeTableView(SelectionState* state, QWidget* parent = nullptr);
    QTableView* table() const { return table_; }
    QLineEdit* filterEdit() const { return filter_; }
    const NodeFilterProxy& proxy() const { return proxy_; }
    /// The selected rows as TSV (what Ctrl+C puts on the clipboard).
    QString selectedRowsAsTsv() const;
    /// Rows above which the filter waits for a pause in typing (kFilterPauseMs).
    static constexpr int kImmediateFilterRows = 20000;
    static constexpr int kFilterPauseMs = 120;

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void followSelection();

    SelectionState* state_;
    NodeTableModel model_;
    NodeFilterProxy proxy_;
    QLineEdit* filter_;
    QCheckBox* barriers_;
    QTableView* table_;
    QTimer* filter_pause_;
    bool following_selection_ = false;  ///< the table's row is moved, not by the user
};

}  // namespace graphlens::gui
