#include "capture/src/json_text.h"

#include "capture/src/capture_json.h"

namespace graphlens::capture_detail {
namespace {

bool plain_ascii(std::string_view text) {
    for (unsigned char c : text)
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
    return true;
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
    if (plain_ascii(text)) {
        out += '"';
        out += text;
        out += '"';
        return;
    }
    out += Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace graphlens::capture_detail
