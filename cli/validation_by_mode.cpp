#include "validation_by_mode.h"

#include "graphlens/exec/execution_mode.h"
#include "graphlens/vulkan/device.h"

namespace graphlens::cli {

void ValidationByMode::attribute() {
    const size_t errors = device_.validation_errors();
    errors_[current_] += errors - seen_errors_;
    seen_errors_ = errors;
    const auto all = device_.validation_messages();
    auto& kept = messages_[current_];
    for (size_t i = seen_messages_; i < all.size(); ++i)
        if (all[i].error && kept.size() < 3) kept.push_back(all[i].id + ": " + all[i].text);
    seen_messages_ = all.size();
}

void ValidationByMode::on_progress(std::string_view line) {
    if (!device_.validation_enabled()) return;
    attribute();
    const size_t colon = line.find(':');
    const std::string_view head = colon == std::string_view::npos ? "" : line.substr(0, colon);
    current_ = execution_mode_from_name(head) ? std::string(head) : std::string();
}

void ValidationByMode::finish() {
    if (device_.validation_enabled()) attribute();
    current_.clear();
}

size_t ValidationByMode::errors(const std::string& mode) const {
    const auto it = errors_.find(mode);
    return it == errors_.end() ? 0 : it->second;
}

const std::vector<std::string>& ValidationByMode::messages(const std::string& mode) const {
    static const std::vector<std::string> none;
    const auto it = messages_.find(mode);
    return it == messages_.end() ? none : it->second;
}

}  // namespace graphlens::cli
