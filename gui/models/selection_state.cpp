#include "models/selection_state.h"

#include <algorithm>
#include <utility>

namespace graphlens::gui {

namespace {
constexpr size_t kHistoryLimit = 200;
}

SelectionState::SelectionState(QObject* parent) : QObject(parent) {
    history_.push_back(current_);
}

void SelectionState::setDocument(DocumentPtr document, int stage) {
    document_ = std::move(document);
    const int count = stageCount();
    current_ = Selection{};
    current_.stage = std::clamp(stage, 0, std::max(0, count - 1));
    compare_offset_ = -1;
    compare_stage_ = followingCompareStage(current_.stage);
    history_ = {current_};
    position_ = 0;
    run_ = document_ ? document_->run : std::nullopt;
    second_run_ = document_ ? document_->second_run : std::nullopt;
    second_source_.clear();
    emit documentChanged();
    emit stageChanged(current_.stage);
    emit compareStageChanged(compare_stage_);
    emit selectionChanged();
    emit historyChanged();
    emit runChanged();
}

bool SelectionState::updateDocument(DocumentPtr newer) {
    if (!document_ || !newer || newer->id != document_->id ||
        newer->stage_count() != document_->stage_count() ||
        newer->ready_count() < document_->ready_count())
        return false;
    const DocumentPtr older = std::exchange(document_, std::move(newer));
    for (size_t i = 0; i < document_->stage_count(); ++i)
        if (document_->ready(i) && !older->ready(i)) emit stageArrived(static_cast<int>(i));
    return true;
}

int SelectionState::stageCount() const {
    return document_ ? static_cast<int>(document_->stage_count()) : 0;
}

const Snapshot* SelectionState::snapshot() const {
    const auto i = static_cast<size_t>(current_.stage);
    return document_ && document_->ready(i) ? document_->stages[i].snapshot.get() : nullptr;
}

const StageAnalysis* SelectionState::analysis() const {
    const auto i = static_cast<size_t>(current_.stage);
    return document_ && document_->ready(i) ? document_->stages[i].analysis.get() : nullptr;
}

bool SelectionState::stagePending() const {
    return document_ && current_.stage < stageCount() &&
           !document_->ready(static_cast<size_t>(current_.stage));
}

std::optional<size_t> SelectionState::selectedNodeIndex() const {
    if (current_.kind != Selection::Kind::node || !snapshot()) return std::nullopt;
    return analysis()->find(snapshot()->graph, current_.node);
}

std::optional<size_t> SelectionState::selectedBarrierIndex() const {
    if (current_.kind != Selection::Kind::barrier || !snapshot()) return std::nullopt;
    if (!analysis()->barrier_at(current_.barrier_index)) return std::nullopt;
    return current_.barrier_index;
}

std::optional<size_t> SelectionState::selectedGroup() const {
    if (current_.kind != Selection::Kind::group || !snapshot()) return std::nullopt;
    if (current_.group >= analysis()->group_nodes.size()) return std::nullopt;
    return current_.group;
}

std::optional<size_t> SelectionState::selectedRace() const {
    if (current_.kind != Selection::Kind::race || !snapshot()) return std::nullopt;
    if (current_.race >= analysis()->races.size()) return std::nullopt;
    return current_.race;
}

std::vector<size_t> SelectionState::selectedNodeIndices() const {
    std::vector<size_t> out;
    if (auto i = selectedNodeIndex()) out.push_back(*i);
    if (auto g = selectedGroup()) out = analysis()->group_nodes[*g];
    if (auto b = selectedBarrierIndex()) {
        const BarrierExplanation* e = analysis()->barrier_at(*b);
        for (int g : {e->group_before, e->group_after})
            if (g >= 0)
                for (size_t k : analysis()->group_nodes[static_cast<size_t>(g)]) out.push_back(k);
    }
    if (auto r = selectedRace()) {
        const Hazard& h = analysis()->races[*r].hazard;
        out = {h.earlier, h.later};
    }
    return out;
}

void SelectionState::setStage(int stage) {
    if (!document_ || stage < 0 || stage >= stageCount() || stage == current_.stage) return;
    Selection next = current_;
    next.stage = stage;
    // A barrier, a group or a race is a position in one stage's order; it means nothing in
    // another.
    if (next.kind == Selection::Kind::barrier || next.kind == Selection::Kind::group ||
        next.kind == Selection::Kind::race)
        next = Selection{.stage = stage};
    go(next);
}

void SelectionState::nextStage() {
    setStage(current_.stage + 1);
}
void SelectionState::previousStage() {
    setStage(current_.stage - 1);
}

void SelectionState::setCompareStage(int stage) {
    if (stage < 0 || stage >= stageCount()) return;
    compare_offset_ = stage - current_.stage;
    if (stage == compare_stage_) return;
    compare_stage_ = stage;
    emit compareStageChanged(stage);
}

int SelectionState::followingCompareStage(int stage) const {
    const int count = stageCount();
    if (count < 2) return 0;
    int other = stage + compare_offset_;
    if (compare_offset_ != 0 && (other < 0 || other >= count)) other = stage - compare_offset_;
    return std::clamp(other, 0, count - 1);
}

void SelectionState::selectNodeIndex(size_t index) {
    const Snapshot* s = snapshot();
    if (!s || index >= s->graph->nodes.size()) return;
    const Node& n = s->graph->nodes[index];
    if (n.is_barrier())
        selectBarrier(index);
    else
        selectNode(n.id);
}

void SelectionState::selectNode(NodeId id) {
    Selection next{.kind = Selection::Kind::node, .node = id, .stage = current_.stage};
    go(next);
}

void SelectionState::selectBarrier(size_t node_index) {
    Selection next{
        .kind = Selection::Kind::barrier, .barrier_index = node_index, .stage = current_.stage};
    go(next);
}

void SelectionState::selectGroup(size_t group) {
    go(Selection{.kind = Selection::Kind::group, .group = group, .stage = current_.stage});
}

void SelectionState::selectRace(size_t race) {
    go(Selection{.kind = Selection::Kind::race, .race = race, .stage = current_.stage});
}

void SelectionState::clearSelection() {
    go(Selection{.stage = current_.stage});
}

bool SelectionState::selectNextMatch(bool forward) {
    const Snapshot* s = snapshot();
    if (!s || s->graph->nodes.empty()) return false;
    const ComputeGraph& g = *s->graph;
    const size_t n = g.nodes.size();
    // From the selection's first node; with nothing selected the first step lands on node 0
    // (forward) or the last node (backward).
    const std::vector<size_t> selected = selectedNodeIndices();
    size_t at =
        selected.empty() ? (forward ? n - 1 : 0) : (forward ? selected.back() : selected.front());
    if (auto b = selectedBarrierIndex()) at = *b;
    for (size_t step = 0; step < n; ++step) {
        at = forward ? (at + 1) % n : (at + n - 1) % n;
        if (g.nodes[at].is_dispatch() && node_filter_.matches(g, at)) {
            selectNode(g.nodes[at].id);
            return true;
        }
    }
    return false;
}

bool SelectionState::goTo(const QString& where) {
    const Snapshot* s = snapshot();
    if (!s) return false;
    QString text = where.trimmed().toLower();
    const bool group = text.startsWith(QLatin1Char('g'));
    if (group) text = text.mid(text.startsWith(QStringLiteral("group")) ? 5 : 1).trimmed();
    if (text.startsWith(QLatin1Char('#'))) text = text.mid(1);
    bool ok = false;
    const qulonglong index = text.toULongLong(&ok);
    if (!ok) return false;
    if (group) {
        if (index >= analysis()->group_nodes.size()) return false;
        selectGroup(size_t(index));
        return true;
    }
    if (index >= s->graph->nodes.size()) return false;
    selectNodeIndex(size_t(index));
    return true;
}

void SelectionState::setFilter(const QString& text) {
    if (text == filter_) return;
    filter_ = text;
    node_filter_ = NodeFilter(text);
    emit filterChanged(text);
}

void SelectionState::setRun(std::optional<RunResult> run) {
    run_ = std::move(run);
    emit runChanged();
}

void SelectionState::setSecondRun(std::optional<RunResult> run, const QString& source) {
    second_run_ = std::move(run);
    second_source_ = second_run_ ? source : QString();
    emit runChanged();
}

void SelectionState::back() {
    if (!canGoBack()) return;
    --position_;
    apply(history_[position_]);
    emit historyChanged();
}

void SelectionState::forward() {
    if (!canGoForward()) return;
    ++position_;
    apply(history_[position_]);
    emit historyChanged();
}

void SelectionState::go(const Selection& next) {
    if (next == current_) return;
    history_.resize(position_ + 1);
    history_.push_back(next);
    if (history_.size() > kHistoryLimit) history_.erase(history_.begin());
    position_ = history_.size() - 1;
    apply(next);
    emit historyChanged();
}

void SelectionState::apply(const Selection& next) {
    const bool stage_changed = next.stage != current_.stage;
    current_ = next;
    const int compare = followingCompareStage(current_.stage);
    const bool compare_changed = compare != compare_stage_;
    compare_stage_ = compare;
    if (stage_changed) emit stageChanged(current_.stage);
    if (compare_changed) emit compareStageChanged(compare_stage_);
    emit selectionChanged();
}

}  // namespace graphlens::gui
