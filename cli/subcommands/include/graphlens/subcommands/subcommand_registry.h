#pragma once
// A command-line program made of subcommands that register themselves: each lives in a file of
// its own, which defines a static RegisterSubcommand and touches no other file
// (graphlens-cli's cmd_*.cpp, graphlens-bench's bench_*.cpp).
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace graphlens::subcommands {

/// Adds the subcommand's options to `app`; the returned callable runs it (exit code).
using SubcommandSetup = std::function<std::function<int()>(CLI::App& app)>;

struct Subcommand {
    std::string name;
    std::string description;  ///< may be empty when the setup describes the subcommand itself
    SubcommandSetup setup;
};

/// The program's subcommands, in registration order.
std::vector<Subcommand>& subcommand_registry();

struct RegisterSubcommand {
    RegisterSubcommand(std::string name, std::string description, SubcommandSetup setup) {
        subcommand_registry().push_back(
            {std::move(name), std::move(description), std::move(setup)});
    }
};

/// Adds every registered subcommand to `app` (sorted by name), parses the arguments and runs
/// the chosen one. Exit codes: CLI11's for parse errors and --help, the subcommand's own, 1
/// after an exception (its message printed as "<program>: error: ...").
int run_subcommands(CLI::App& app, std::string_view program, int argc, char** argv);

}  // namespace graphlens::subcommands
