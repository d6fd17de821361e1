#pragma once
// The one text filter every view shares (SelectionState::filter): words that must all occur,
// case-insensitively, in a dispatch's label, op kind, kernel or the names of the allocations
// it reads or writes. The node table hides what does not match; the schedule, the dependency
// graph and the pass stepper's lists dim it. Barriers match only the empty filter.
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

#include "graphlens/graph/compute_graph.h"

namespace graphlens::gui {

class NodeFilter {
  public:
    NodeFilter() = default;
    explicit NodeFilter(const QString& text);
    /// No words: everything matches.
    bool empty() const { return words_.isEmpty(); }
    bool matches(const ComputeGraph& graph, size_t node_index) const;
    /// Whether a text (from searchText) holds every word.
    bool matchesText(const QString& text) const;
    /// What the words are looked for in: "label op kernel allocation...", "barrier".
    static QString searchText(const ComputeGraph& graph, const Node& node);

  private:
    QStringList words_;
    /// The words in lower case as bytes (labels and names are ASCII): matches() looks them
    /// up in each name without building the node's search text, so filtering 185k nodes
    /// allocates nothing.
    std::vector<std::string> lower_words_;
};

}  // namespace graphlens::gui
