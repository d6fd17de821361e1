#include "capture/src/kernel_stages_json.h"

#include "graphlens/graph/kernel_stage_check.h"

namespace graphlens::capture_detail {
namespace {

using Limits = CaptureLimits;
// More stages than bindings could not each touch a binding of their own.
constexpr uint64_t kMaxStages = Limits::max_kernel_bindings;

Json binding_ref_json(const BindingRef& b) {
    Json j = Json::object();
    if (b.set != 0) j["set"] = b.set;
    j["binding"] = b.binding;
    return j;
}

Json binding_refs_json(const std::vector<BindingRef>& refs) {
    Json a = Json::array();
    for (const BindingRef& b : refs) a.push_back(binding_ref_json(b));
    return a;
}

BindingRef read_binding_ref(const JsonRef& v, const Path& p) {
    Fields f(v, p, "a binding {set, binding}");
    f.only({"set", "binding"});
    BindingRef b;
    b.binding = as_u32(f.need("binding", "the binding number"), p / "binding");
    opt_u32(f, "set", b.set);
    return b;
}

KernelStage read_stage(const JsonRef& v, const Path& p) {
    Fields f(v, p, "a kernel stage");
    f.only({"name", "reads", "writes", "order", "counter", "block"});
    KernelStage s;
    s.name = std::string(as_string(f.need("name", "the stage's name"), p / "name"));
    opt_list(f, "reads", Limits::max_kernel_bindings, "bindings", s.reads, read_binding_ref);
    opt_list(f, "writes", Limits::max_kernel_bindings, "bindings", s.writes, read_binding_ref);
    s.order = as_enum<StageOrder>(f.need("order", "how the stage is ordered"), p / "order",
                                  "a stage order", kStageOrderCount, stage_order_from_name,
                                  stage_order_name);
    if (auto c = f.find("counter"))
        s.counter = read_binding_ref(*c, p / "counter");
    else if (s.order != StageOrder::first)
        fail(p / "counter", "the arrival counter's binding of a stage ordered '" +
                                std::string(stage_order_name(s.order)) + "'");
    opt_string(f, "block", s.block);
    return s;
}

}  // namespace

Json kernel_stages_json(const std::vector<KernelStage>& stages) {
    Json a = Json::array();
    for (const KernelStage& s : stages) {
        Json j = Json::object();
        j["name"] = s.name;
        j["reads"] = binding_refs_json(s.reads);
        j["writes"] = binding_refs_json(s.writes);
        j["order"] = stage_order_name(s.order);
        if (s.order != StageOrder::first) j["counter"] = binding_ref_json(s.counter);
        if (!s.block.empty()) j["block"] = s.block;
        a.push_back(std::move(j));
    }
    return a;
}

std::vector<KernelStage> read_kernel_stages(const Fields& kernel, const KernelInfo& k) {
    KernelInfo staged;
    opt_list(kernel, "stages", kMaxStages, "stages", staged.stages, read_stage);
    if (staged.stages.empty()) return {};
    staged.name = k.name;
    staged.bindings = k.bindings;
    const std::vector<std::string> problems = kernel_stage_problems(staged);
    if (!problems.empty())
        fail(kernel.path() / "stages", "stages consistent with the kernel's bindings", problems[0]);
    return std::move(staged.stages);
}

}  // namespace graphlens::capture_detail
