#pragma once
// Private to graphlens_model: the text of presets.json, compiled in by the build
// (cmake/EmbedText.cmake), so a preset is a row of data, not code.
#include <string_view>

namespace graphlens {

std::string_view model_presets_json();

}  // namespace graphlens
