#pragma once
// The one selection and filter every view follows (like Hotspot's filter/zoom stack and
// RenderDoc's current event): the document, the current stage, the stage it is compared
// with, the selected dispatch (by NodeId, so it survives reordering and fusion), barrier,
// group or race, and the text filter. Every change of selection goes on a history for Back/Forward.
#include <QObject>
#include <QString>
#include <optional>
#include <vector>

#include "models/document.h"
#include "models/node_filter.h"

namespace graphlens::gui {

struct Selection {
    enum class Kind { none, node, barrier, group, race };
    Kind kind = Kind::none;
    NodeId node = 0;           ///< for Kind::node: the dispatch id
    size_t barrier_index = 0;  ///< for Kind::barrier: node index in the stage
    size_t group = 0;          ///< for Kind::group: concurrency group of the stage
    size_t race = 0;           ///< for Kind::race: index into StageAnalysis::races
    int stage = 0;
    friend bool operator==(const Selection&, const Selection&) = default;
};

class SelectionState : public QObject {
    Q_OBJECT
  public:
    explicit SelectionState(QObject* parent = nullptr);

    const DocumentPtr& document() const { return document_; }
    /// Replaces the document; the selection and history start over on the given stage.
    void setDocument(DocumentPtr document, int stage = 0);
    /// Swaps in a newer version of the same document (Document::id) with more stages ready,
    /// keeping stage, selection and history; emits stageArrived for each stage new in it.
    /// A version of another document, or an older one, is ignored (returns false).
    bool updateDocument(DocumentPtr newer);

    int stage() const { return current_.stage; }
    int stageCount() const;
    /// The current stage; null while it is still being computed.
    const Snapshot* snapshot() const;
    const StageAnalysis* analysis() const;
    /// The current stage exists but has not arrived from the worker yet.
    bool stagePending() const;
    /// The stage the pass stepper compares the current one with. It follows the stepping at
    /// the distance last chosen (the previous stage unless setCompareStage chose another); on
    /// a stage with no stage at that distance, the one as far the other way.
    int compareStage() const { return compare_stage_; }

    const Selection& selection() const { return current_; }
    /// Node index of the selected dispatch in the current stage (following fusion).
    std::optional<size_t> selectedNodeIndex() const;
    std::optional<size_t> selectedBarrierIndex() const;
    std::optional<size_t> selectedGroup() const;
    /// Index into the current stage's StageAnalysis::races.
    std::optional<size_t> selectedRace() const;
    /// The node indices a "selection" covers: the selected dispatch, the two groups around
    /// a selected barrier, the dispatches of a selected group, or a race's two commands.
    std::vector<size_t> selectedNodeIndices() const;

    QString filter() const { return filter_; }
    /// The shared filter, parsed (every view matches nodes against it).
    const NodeFilter& nodeFilter() const { return node_filter_; }

    /// The timings every view shows: the document's own run when it was opened, replaced by
    /// each run made in this session; and a second run to compare with.
    const std::optional<RunResult>& run() const { return run_; }
    const std::optional<RunResult>& secondRun() const { return second_run_; }
    /// Where the second run came from (a file name), empty when none.
    QString secondRunSource() const { return second_source_; }

    bool canGoBack() const { return position_ > 0; }
    bool canGoForward() const { return position_ + 1 < history_.size(); }

  public slots:
    void setStage(int stage);
    void nextStage();
    void previousStage();
    void setCompareStage(int stage);
    /// Selects the dispatch at this node index of the current stage (a barrier index selects
    /// the barrier).
    void selectNodeIndex(size_t index);
    void selectNode(NodeId id);
    void selectBarrier(size_t node_index);
    /// Selects a concurrency group of the current stage (its dispatches, as one).
    void selectGroup(size_t group);
    /// Selects a race of the current stage (its two commands, as one).
    void selectRace(size_t race);
    void clearSelection();
    /// Selects the next (or previous) dispatch of the current stage after the selection that
    /// the filter matches, wrapping around the stage's end; false when none matches.
    bool selectNextMatch(bool forward = true);
    /// "Go to": "#12" or "12" selects node index 12 of the current stage (a dispatch or a
    /// barrier, as the node table's # column numbers them), "g5" or "group 5" concurrency
    /// group 5. False, selecting nothing, for text that names no such node or group.
    bool goTo(const QString& where);
    void setFilter(const QString& text);
    void setRun(std::optional<graphlens::RunResult> run);
    void setSecondRun(std::optional<graphlens::RunResult> run, const QString& source = {});
    void back();
    void forward();

  signals:
    /// A new document. stageChanged follows at once for its opening stage, so a view of one
    /// stage rebuilds there and resets only its per-document state (scroll, zoom) here:
    /// rebuilding on both would do the work of a 100k-dispatch stage twice on the UI thread.
    void documentChanged();
    /// A stage that was still being computed is now in the document.
    void stageArrived(int stage);
    void stageChanged(int stage);
    void compareStageChanged(int stage);
    void selectionChanged();
    void filterChanged(const QString& text);
    void historyChanged();
    /// run() or secondRun() changed (also when a document is set).
    void runChanged();

  private:
    void go(const Selection& next);
    void apply(const Selection& next);
    /// The compare stage for `stage` at distance compare_offset_ (see compareStage()).
    int followingCompareStage(int stage) const;

    DocumentPtr document_;
    Selection current_;
    int compare_stage_ = 0;
    int compare_offset_ = -1;  ///< compare stage minus current stage, as last chosen
    QString filter_;
    NodeFilter node_filter_;
    std::optional<RunResult> run_, second_run_;
    QString second_source_;
    std::vector<Selection> history_;
    size_t position_ = 0;
};

}  // namespace graphlens::gui
