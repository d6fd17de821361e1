#pragma once
// graphlens-bench subcommands register themselves, as graphlens-cli's do: a bench_*.cpp
// defines a static RegisterBench and needs no other file touched.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace graphlens::bench {

/// Adds options to the subcommand `app`; the returned callable runs it (exit code).
using BenchSetup = std::function<std::function<int()>(CLI::App& app)>;

struct BenchRegistration {
    std::string name;
    std::string description;
    BenchSetup setup;
};

std::vector<BenchRegistration>& bench_registry();

struct RegisterBench {
    RegisterBench(std::string name, std::string description, BenchSetup setup) {
        bench_registry().push_back({std::move(name), std::move(description), std::move(setup)});
    }
};

}  // namespace graphlens::bench
