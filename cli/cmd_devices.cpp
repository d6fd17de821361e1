// graphlens-cli devices: every Vulkan device with the facts GraphLens cares about.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "graphlens/vulkan/device.h"
#include "graphlens/vulkan/kernel_registry.h"

namespace graphlens::cli {
namespace {

std::string bytes_text(uint64_t b) {
    if (b >= (1ull << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(b) / (1ull << 30));
    if (b >= (1ull << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1ull << 20));
    return fmt::format("{} KiB", b >> 10);
}

void print_device(const DeviceFacts& f, bool chosen) {
    fmt::print("[{}] {}{}\n", f.index, f.name, chosen ? "   <- selected" : "");
    fmt::print("    type            {}\n", device_type_name(f.type));
    fmt::print("    driver          {} {}\n", f.driver_name, f.driver_info);
    fmt::print("    Vulkan          {}\n", f.api_version_string());
    if (f.timestamps)
        fmt::print("    timestamps      yes, {} ns/tick, {} valid bits\n", f.timestamp_period_ns,
                   f.timestamp_valid_bits);
    else
        fmt::print("    timestamps      no (GPU times unavailable)\n");
    fmt::print("    subgroup size   {}\n", f.subgroup_size);
    fmt::print("    int8 dot        {}\n", !f.integer_dot_product              ? "no"
                                           : f.integer_dot_product_accelerated ? "yes, in hardware"
                                                                               : "yes, emulated");
    fmt::print("    shared memory   {}\n", bytes_text(f.max_shared_memory));
    fmt::print("    device memory   {}{}\n", bytes_text(f.device_local_bytes),
               f.unified_memory ? " (unified with host: no staging)" : "");
    fmt::print("    max allocation  {}, max bound view {}\n", bytes_text(f.max_allocation_size),
               bytes_text(f.max_storage_buffer_range));
    fmt::print("    extensions      {}\n", f.extensions.empty()
                                               ? "none of those GraphLens uses"
                                               : fmt::format("{}", fmt::join(f.extensions, ", ")));
}

const RegisterCommand devices_registration{
    "devices", [](CLI::App& app) -> std::function<int()> {
        app.description("List Vulkan devices and the facts that matter for GraphLens");
        auto kernels = std::make_shared<std::vector<std::string>>();
        app.add_option("--kernel-stats", *kernels,
                       "also print what the selected device's driver reports of these kernels' "
                       "pipelines (registers, shared memory, ...; "
                       "VK_KHR_pipeline_executable_properties), e.g. matmul_q4_0")
            ->delimiter(',');
        return [kernels] {
            const auto devices = list_devices();
            if (devices.empty()) {
                fmt::print(stderr, "no Vulkan device found\n");
                return 1;
            }
            // Which one a run would use (GRAPHLENS_DEVICE or the preference order).
            uint32_t chosen = UINT32_MAX;
            try {
                Device::Options o;
                o.validation = false;
                chosen = Device(o).facts().index;
            } catch (const std::exception& e) {
                fmt::print(stderr, "note: {}\n", e.what());
            }
            for (const auto& f : devices) print_device(f, f.index == chosen);
            if (kernels->empty()) return 0;
            Device::Options o;
            o.validation = false;
            o.pipeline_statistics = true;
            Device device(o);
            if (!device.pipeline_statistics()) {
                fmt::print(stderr,
                           "{}: the driver has no VK_KHR_pipeline_executable_properties, so no "
                           "kernel statistics\n",
                           device.facts().name);
                return 1;
            }
            for (const std::string& k : *kernels) {
                std::vector<KernelStatistic> stats;
                try {
                    stats = device.kernels().statistics(k);
                } catch (const std::out_of_range&) {
                    fmt::print(stderr, "--kernel-stats: no kernel named '{}'\n", k);
                    return 1;
                }
                fmt::print("{} ({}):\n", k, device.kernels().get(k).module_name);
                for (const KernelStatistic& st : stats)
                    fmt::print("    {:<22} {}\n", st.name, st.value);
            }
            return 0;
        };
    }};

}  // namespace
}  // namespace graphlens::cli
