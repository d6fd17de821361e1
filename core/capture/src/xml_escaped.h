#pragma once
// Private to graphlens_capture: text for HTML and SVG documents (the reports, the dependency
// graph's SVG drawing), with the characters markup gives meaning to escaped.
#include <string>
#include <string_view>

namespace graphlens::capture_detail {

inline std::string xml_escaped(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

}  // namespace graphlens::capture_detail
