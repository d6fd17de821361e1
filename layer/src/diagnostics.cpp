#include "layer/src/diagnostics.h"

#include <cstdio>
#include <mutex>
#include <set>

namespace graphlens::layer {

void warn_once(std::string_view kind, std::string_view text) {
    static std::mutex mutex;
    static auto* seen = new std::set<std::string, std::less<>>;
    {
        std::lock_guard lock(mutex);
        if (!seen->emplace(kind).second) return;
    }
    std::fprintf(stderr, "graphlens-layer: %.*s\n", int(text.size()), text.data());
}

}  // namespace graphlens::layer
