#include "graphlens/subcommands/subcommand_registry.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>

namespace graphlens::subcommands {

std::vector<Subcommand>& subcommand_registry() {
    static std::vector<Subcommand> registry;
    return registry;
}

int run_subcommands(CLI::App& app, std::string_view program, int argc, char** argv) {
    app.require_subcommand(1);
    auto& registry = subcommand_registry();
    std::sort(registry.begin(), registry.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    std::map<CLI::App*, std::function<int()>> runners;
    for (auto& reg : registry) {
        CLI::App* sub = app.add_subcommand(reg.name, reg.description);
        runners[sub] = reg.setup(*sub);
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    try {
        for (auto& [sub, run] : runners)
            if (sub->parsed()) return run();
    } catch (const std::exception& e) {
        fmt::print(stderr, "{}: error: {}\n", program, e.what());
        return 1;
    }
    return 1;
}

}  // namespace graphlens::subcommands
