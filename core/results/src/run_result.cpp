#include "graphlens/results/run_result.h"

#include <algorithm>

namespace graphlens {

TimingSummary TimingSummary::from_samples(std::vector<double> samples) {
    TimingSummary s;
    s.samples = std::move(samples);
    if (s.samples.empty()) return s;
    std::vector<double> sorted = s.samples;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    s.median = n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
    s.min = sorted.front();
    s.max = sorted.back();
    return s;
}

}  // namespace graphlens
