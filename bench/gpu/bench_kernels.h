#pragma once
// Kernel benchmarks of graphlens-bench (`graphlens-bench kernels`, see bench_kernels.cpp).
#include <cstdint>
#include <string>

namespace graphlens::bench {

struct KernelBenchOptions {
    uint32_t warmup = 5;
    uint32_t repeats = 30;
    uint64_t copy_mb = 256;   ///< size of the device-to-device copy
    std::string report_path;  ///< markdown copy of the printed tables; empty = none
    /// Comma-separated subset of: copy, matvec, llama, attention, variants (candidate mat-vec
    /// kernels against the op's choice). The copy reference is measured with matvec/variants.
    std::string sections = "copy,matvec,llama,attention";
};

int run_kernel_benchmarks(const KernelBenchOptions& options);

}  // namespace graphlens::bench
