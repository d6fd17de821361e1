#pragma once
// What the layer cannot follow is said once per kind on stderr ("graphlens-layer: ..."), and
// whatever concerns captured work is also a note in the capture (capture_session.h). A hook
// never lets an exception of the layer's own reach the program.
#include <exception>
#include <string>
#include <string_view>

namespace graphlens::layer {

/// Prints "graphlens-layer: <text>" to stderr the first time `kind` is reported.
void warn_once(std::string_view kind, std::string_view text);

/// Runs `body`; an exception is reported once per `what` and swallowed, so a fault in the
/// layer loses part of the capture but never the program's own work.
template <class Body>
void guarded(const char* what, Body&& body) noexcept {
    try {
        body();
    } catch (const std::exception& e) {
        warn_once(what, std::string(what) + ": " + e.what());
    } catch (...) {
        warn_once(what, std::string(what) + ": unknown exception");
    }
}

}  // namespace graphlens::layer
