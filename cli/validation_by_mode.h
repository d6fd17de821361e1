#pragma once
// The validation layer's errors of a Runner run, per execution mode (GRAPHLENS_VALIDATION=1):
// the Runner names the mode it works on at the start of every progress line ("levels:
// warm-up"), so the errors the device collected between two such lines belong to the mode
// the first names ("serial: reference run" is serial's). Errors outside any mode (filling
// the allocations, the profiles) are counted apart.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace graphlens {
class Device;
}

namespace graphlens::cli {

class ValidationByMode {
  public:
    explicit ValidationByMode(const Device& device) : device_(device) {}
    /// Called with every progress line, before it is shown.
    void on_progress(std::string_view line);
    /// Attributes what came since the last line; call once the run is over.
    void finish();
    size_t errors(const std::string& mode) const;
    const std::vector<std::string>& messages(const std::string& mode) const;
    size_t outside_modes() const { return errors(""); }

  private:
    void attribute();
    const Device& device_;
    std::string current_;  ///< "" outside a mode
    size_t seen_errors_ = 0;
    size_t seen_messages_ = 0;
    std::map<std::string, size_t> errors_;
    std::map<std::string, std::vector<std::string>> messages_;
};

}  // namespace graphlens::cli
