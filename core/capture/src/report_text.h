#pragma once
// Text pieces shared by the report renderers (Markdown, HTML): number formats and the
// descriptions of causes and stages, so every format says the same thing the same way.
#include <string>

#include "graphlens/capture/report.h"

namespace graphlens::report_detail {

std::string format_ns(double ns);                       ///< "812 ns", "12.4 µs", "3.21 ms"
std::string format_speedup(double x);                   ///< "1.23×", "–" when 0
std::string format_percent(double part, double whole);  ///< "12.5%"
std::string device_line(const ReportSummary& s);
/// "Run on <device>, <date>: W warm-up and N timed runs per mode" (the run's own device).
std::string run_line(const ReportSummary& s);
std::string cause_text(const BarrierCause& c);  ///< "RAW on activations (rms_norm → mul)"
std::string join(const std::vector<std::string>& parts, const std::string& sep);
/// Non-zero buckets of a histogram as (size, count).
std::vector<std::pair<size_t, size_t>> histogram_rows(const std::vector<size_t>& h);

}  // namespace graphlens::report_detail
