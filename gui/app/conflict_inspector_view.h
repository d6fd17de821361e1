#pragma once
// View 5: why things are ordered. For a selected dispatch: every hazard into and out of it;
// for a selected barrier: the hazards that force it, or that it is redundant, and its recorded
// scope; for a selected race: the core's explanation. Below, the stage's races (hazards no
// barrier between their commands orders), each with every barrier between and why it does
// not cover it, and the fusion diagnostics (applied fusions and near misses with their
// reasons) around the selection. A selected dispatch whose kernel orders stages inside itself
// by arrival counters also shows those stages, their bytes and the hazards the counters keep.
#include <QWidget>

#include "models/fusion_model.h"
#include "models/hazard_model.h"
#include "models/internal_stages_model.h"
#include "models/race_model.h"
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
    const RaceModel& races() const { return races_; }
    const InternalStagesModel& internalStages() const { return internal_stages_; }
    /// The "Stages inside" box: shown only for a dispatch with internal stages.
    QWidget* internalStagesBox() const { return internal_stages_box_; }
    QTableView* raceTable() const { return race_table_; }
    QTableView* hazardTable() const { return hazard_table_; }
    QString headline() const;
    /// The races section's title ("Races (2): …").
    QString racesTitle() const;

  private:
    void refresh();
    void showNode(size_t node_index);
    void showGroup(size_t group);
    void showBarrier(size_t barrier_node_index);
    void showRace(size_t race);
    void showStage();
    void followRace();

    SelectionState* state_;
    HazardModel hazards_;
    FusionModel fusions_;
    RaceModel races_;
    InternalStagesModel internal_stages_;
    QLabel* headline_;
    QLabel* races_title_;
    QTableView* hazard_table_;
    QTableView* race_table_;
    QTableView* fusion_table_;
    QTableView* internal_stages_table_;
    QWidget* internal_stages_box_;
    const Document* race_document_ = nullptr;  ///< the version the race list shows
    int race_stage_ = -1;
};

}  // namespace graphlens::gui
