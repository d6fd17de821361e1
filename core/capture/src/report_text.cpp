#include "capture/src/report_text.h"

#include <fmt/format.h>

namespace graphlens::report_detail {

std::string format_ns(double ns) {
    if (ns < 1e3) return fmt::format("{:.0f} ns", ns);
    if (ns < 1e6) return fmt::format("{:.1f} µs", ns / 1e3);
    if (ns < 1e9) return fmt::format("{:.2f} ms", ns / 1e6);
    return fmt::format("{:.2f} s", ns / 1e9);
}

std::string format_speedup(double x) {
    return x > 0 ? fmt::format("{:.2f}×", x) : "–";
}

std::string format_percent(double part, double whole) {
    return whole > 0 ? fmt::format("{:.1f}%", 100.0 * part / whole) : "–";
}

std::string device_line(const ReportSummary& s) {
    const CaptureDevice& d = s.device;
    if (d.name.empty()) return "unknown device";
    std::string line = d.name;
    std::string extra;
    if (!d.driver.empty()) extra += d.driver;
    if (!d.api_version.empty()) extra += (extra.empty() ? "" : ", ") + ("Vulkan " + d.api_version);
    if (!d.type.empty()) extra += (extra.empty() ? "" : ", ") + d.type;
    return extra.empty() ? line : line + " (" + extra + ")";
}

std::string run_line(const ReportSummary& s) {
    std::string line = "Run on " + (s.run_device.empty() ? "an unnamed device" : s.run_device);
    if (!s.run_date.empty()) line += ", " + s.run_date;
    return line +
           fmt::format(": {} warm-up and {} timed runs per mode", s.run_warmup, s.run_repeats);
}

std::string cause_text(const BarrierCause& c) {
    if (c.fence) return "fence: a dispatch with unknown ranges (op " + c.earlier_op + ")";
    return std::string(hazard_kind_name(c.kind)) + " on " + c.allocation + " (" + c.earlier_op +
           " → " + c.later_op + ")";
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
    return out;
}

std::vector<std::pair<size_t, size_t>> histogram_rows(const std::vector<size_t>& h) {
    std::vector<std::pair<size_t, size_t>> rows;
    for (size_t k = 0; k < h.size(); ++k)
        if (h[k]) rows.emplace_back(k, h[k]);
    return rows;
}

}  // namespace graphlens::report_detail
