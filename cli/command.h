#pragma once
// Each graphlens-cli subcommand lives in its own cmd_*.cpp and registers itself here, so
// adding a command touches no other file. The setup describes the subcommand itself.
#include "graphlens/subcommands/subcommand_registry.h"

namespace graphlens::cli {

using subcommands::SubcommandSetup;

struct RegisterCommand : subcommands::RegisterSubcommand {
    RegisterCommand(std::string name, SubcommandSetup setup)
        : RegisterSubcommand(std::move(name), {}, std::move(setup)) {}
};

}  // namespace graphlens::cli
