#include "graphlens/graph/event_set_text.h"

namespace graphlens {

std::string event_set_text(uint32_t event_set_at) {
    return event_set_at == 0 ? std::string("set before the captured commands")
                             : "set after node " + std::to_string(event_set_at - 1);
}

}  // namespace graphlens
