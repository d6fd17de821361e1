#pragma once
// View 1: the pipeline's stages with their statistics; stepping moves the shared stage;
// below, two stages side by side with moved, fused and added/removed barriers marked.
#include <QWidget>

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
    explicit PassStepperView(SelectionState* state, QWidget* parent = nullptr);
    QTableView* stageTable() const { return table_; }
    const StageCompareModel& leftModel() const { return left_model_; }
    const StageCompareModel& rightModel() const { return right_model_; }
    /// The current stage's side of the comparison.
    QListView* currentStageList() const { return right_list_; }

  private:
    void onDocument();
    void onStage();
    void updateCompare();

    SelectionState* state_;
    StageListModel stages_;
    StageCompareModel left_model_, right_model_;
    QTableView* table_;
    QComboBox* left_combo_;
    QLabel* right_label_;
    QListView* left_list_;
    QListView* right_list_;
    QLabel* summary_;
};

}  // namespace graphlens::gui
