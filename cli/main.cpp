// graphlens-cli: the headless face of GraphLens. Subcommands register themselves (command.h).
#include <CLI/CLI.hpp>

#include "graphlens/subcommands/subcommand_registry.h"
#include "graphlens_version.h"

int main(int argc, char** argv) {
    CLI::App app{"GraphLens: capture, analyse, optimise and time GPU compute graphs on Vulkan",
                 "graphlens-cli"};
    app.set_version_flag("--version", "graphlens-cli " GRAPHLENS_VERSION
                                      " (git revision " GRAPHLENS_GIT_REVISION ")");
    return graphlens::subcommands::run_subcommands(app, "graphlens-cli", argc, argv);
}
