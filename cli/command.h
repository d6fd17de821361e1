#pragma once
// Each graphlens-cli subcommand lives in its own cmd_*.cpp and registers itself here, so
// adding a command touches no other file.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace graphlens::cli {

/// Adds a subcommand to `app`; the returned callable runs it and returns the exit code.
using CommandSetup = std::function<std::function<int()>(CLI::App& app)>;

struct CommandRegistration {
    std::string name;
    CommandSetup setup;
};

std::vector<CommandRegistration>& command_registry();

struct RegisterCommand {
    RegisterCommand(std::string name, CommandSetup setup) {
        command_registry().push_back({std::move(name), std::move(setup)});
    }
};

}  // namespace graphlens::cli
