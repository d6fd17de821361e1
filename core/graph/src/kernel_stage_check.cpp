#include "graphlens/graph/kernel_stage_check.h"

#include <fmt/format.h>

#include <algorithm>

namespace graphlens {
namespace {

std::string binding_text(const BindingRef& b) {
    return b.set == 0 ? fmt::format("binding {}", b.binding)
                      : fmt::format("set {} binding {}", b.set, b.binding);
}

bool lists(const std::vector<BindingRef>& refs, const KernelBinding& b) {
    return std::any_of(refs.begin(), refs.end(), [&](const BindingRef& r) {
        return r.set == b.set && r.binding == b.binding;
    });
}

// The stages' order kinds: the first is first, the others are ordered after something.
void check_orders(const KernelInfo& k, std::vector<std::string>& out) {
    for (size_t i = 0; i < k.stages.size(); ++i) {
        const KernelStage& s = k.stages[i];
        if (i == 0 && s.order != StageOrder::first)
            out.push_back(
                fmt::format("kernel '{}' stage '{}': the first stage is ordered '{}', "
                            "not 'first'",
                            k.name, s.name, stage_order_name(s.order)));
        if (i > 0 && s.order == StageOrder::first)
            out.push_back(
                fmt::format("kernel '{}' stage '{}': stage {} says it is first; a later "
                            "stage names the counter that orders it",
                            k.name, s.name, i + 1));
    }
}

// Every binding a stage names exists and its reflected access allows what the stage does.
void check_declared(const KernelInfo& k, std::vector<std::string>& out) {
    auto check = [&](const KernelStage& s, const BindingRef& r, bool reads, bool writes,
                     std::string_view what) {
        const KernelBinding* b = k.find_binding(r.set, r.binding);
        if (!b) {
            out.push_back(
                fmt::format("kernel '{}' stage '{}' {} {}, which the kernel does not "
                            "have",
                            k.name, s.name, what, binding_text(r)));
            return;
        }
        if ((reads && !access_reads(b->access)) || (writes && !access_writes(b->access)))
            out.push_back(fmt::format(
                "kernel '{}' stage '{}' {} {} ('{}'), which its SPIR-V "
                "declares {}",
                k.name, s.name, what, binding_text(r), b->name, binding_access_name(b->access)));
    };
    for (const KernelStage& s : k.stages) {
        for (const BindingRef& r : s.reads) check(s, r, true, false, "reads");
        for (const BindingRef& r : s.writes) check(s, r, false, true, "writes");
        if (s.order != StageOrder::first) check(s, s.counter, true, true, "counts its arrivals at");
    }
}

// Every reflected binding's access is covered by some stage.
void check_covered(const KernelInfo& k, std::vector<std::string>& out) {
    for (const KernelBinding& b : k.bindings) {
        bool read = false, written = false;
        for (const KernelStage& s : k.stages) {
            const bool counter = s.order != StageOrder::first && s.counter.set == b.set &&
                                 s.counter.binding == b.binding;
            read = read || counter || lists(s.reads, b);
            written = written || counter || lists(s.writes, b);
        }
        const BindingRef r{b.set, b.binding};
        if (access_reads(b.access) && !read)
            out.push_back(
                fmt::format("kernel '{}': {} ('{}') is read by its SPIR-V but by no "
                            "declared stage",
                            k.name, binding_text(r), b.name));
        if (access_writes(b.access) && !written)
            out.push_back(
                fmt::format("kernel '{}': {} ('{}') is written by its SPIR-V but by "
                            "no declared stage",
                            k.name, binding_text(r), b.name));
    }
}

}  // namespace

std::vector<std::string> kernel_stage_problems(const KernelInfo& kernel) {
    std::vector<std::string> out;
    if (kernel.stages.empty()) return out;
    check_orders(kernel, out);
    check_declared(kernel, out);
    check_covered(kernel, out);
    return out;
}

}  // namespace graphlens
