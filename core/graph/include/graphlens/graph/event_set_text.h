#pragma once
// Where an event wait's event was set (MemoryDependency::event_set_at), in the words the race
// explanations (scope_gap) and the GUI's scope text share.
#include <cstdint>
#include <string>

namespace graphlens {

/// "set before the captured commands" (0), else "set after node N" (N the last node before
/// the set).
std::string event_set_text(uint32_t event_set_at);

}  // namespace graphlens
