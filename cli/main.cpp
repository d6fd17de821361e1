// graphlens-cli: the headless face of GraphLens. Subcommands register themselves (command.h).
#include <fmt/core.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <map>

#include "command.h"
#include "graphlens_version.h"

namespace graphlens::cli {
std::vector<CommandRegistration>& command_registry() {
    static std::vector<CommandRegistration> registry;
    return registry;
}
}  // namespace graphlens::cli

int main(int argc, char** argv) {
    using namespace graphlens::cli;
    CLI::App app{"GraphLens: capture, analyse, optimise and time GPU compute graphs on Vulkan",
                 "graphlens-cli"};
    app.set_version_flag("--version", "graphlens-cli " GRAPHLENS_VERSION
                                      " (git revision " GRAPHLENS_GIT_REVISION ")");
    app.require_subcommand(1);
    auto& registry = command_registry();
    std::sort(registry.begin(), registry.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    std::map<CLI::App*, std::function<int()>> runners;
    for (auto& reg : registry) {
        CLI::App* sub = app.add_subcommand(reg.name);
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
        fmt::print(stderr, "graphlens-cli: error: {}\n", e.what());
        return 1;
    }
    return 1;
}
