// Fuzzes the capture loader: any bytes must either load or throw CaptureError (nothing else,
// no crash, no sanitizer report), and whatever loads must save and load again to the same
// bytes (the writer never produces a file the loader rejects).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "graphlens/capture/capture_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    graphlens::CaptureDocument doc;
    try {
        doc = graphlens::load_capture_from_string(text);
    } catch (const graphlens::CaptureError&) {
        return 0;  // rejected with a located error: the expected outcome for most inputs
    }
    const std::string saved = graphlens::save_capture_to_string(doc);
    const std::string resaved =
        graphlens::save_capture_to_string(graphlens::load_capture_from_string(saved));
    if (saved != resaved) __builtin_trap();
    return 0;
}
