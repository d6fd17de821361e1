#pragma once
// View 5: why things are ordered. For a selected dispatch: every hazard into and out of it;
// for a selected barrier: the hazards that force it, or that it is redundant; and the fusion
// diagnostics (applied fusions and near misses with their reasons) around the selection.
#include <QWidget>

#include "models/fusion_model.h"
#include "models/hazard_model.h"
#include "models/selection_state.h"

class QLabel;
class QTableView;

namespace graphlens::gui {

class ConflictInspectorView : public QWidget {
    Q_OBJECT
  public:
    explicit ConflictInspectorView(SelectionState* state, QWidget* parent = nullptr);
    const HazardModel& hazards() const { return hazards_; }
    const FusionModel& fusions() const { return fusions_; }
    QString headline() const;

  private:
    void refresh();

    SelectionState* state_;
    HazardModel hazards_;
    FusionModel fusions_;
    QLabel* headline_;
    QTableView* hazard_table_;
    QTableView* fusion_table_;
};

}  // namespace graphlens::gui
