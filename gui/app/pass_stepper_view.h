#pragma once
// View 1: the pipeline's stages with their statistics; stepping moves the shared stage;
// below, two stages side by side with moved, fused and added/removed barriers marked. Stages
// still being computed say so; the comparison is computed by the worker and marks the rows
// when it arrives (a newer request drops an older one).
#include <QWidget>

#include "app/core_worker.h"
#include "models/selection_state.h"
#include "models/stage_compare_model.h"
#include "models/stage_list_model.h"

class QComboBox;
class QListView;
class QTableView;
class QLabel;

namespace graphlens::gui {

class PassStepperView : public QWidget {
    Q_OBJECT
  public:
    PassStepperView(SelectionState* state, CoreWorker* worker, QWidget* parent = nullptr);
    QTableView* stageTable() const { return table_; }
    const StageCompareModel& leftModel() const { return left_model_; }
    const StageCompareModel& rightModel() const { return right_model_; }
    /// The current stage's side of the comparison.
    QListView* currentStageList() const { return right_list_; }
    /// Both sides show the current pair of stages with their marks (or need none).
    bool comparisonShown() const;

  signals:
    /// The comparison of the current pair of stages reached the two lists.
    void comparisonUpdated();

  private:
    QTableView* createStageTable();
    QWidget* createComparison();
    void connectState();
    void onDocument();
    void onStage();
    void updateCompare();
    void onComparison(DocumentPtr document, int left, int right, NodeChanges left_changes,
                      NodeChanges right_changes);

    SelectionState* state_;
    CoreWorker* worker_;
    StageListModel stages_;
    StageCompareModel left_model_, right_model_;
    QTableView* table_;
    QComboBox* left_combo_;
    QLabel* right_label_;
    QListView* left_list_;
    QListView* right_list_;
    QLabel* summary_;
    QString summary_text_;
    bool following_stage_ = false;  ///< the table's row is being moved to the shared stage  ///<
                                    ///< the summary while the comparison is computed
};

}  // namespace graphlens::gui
