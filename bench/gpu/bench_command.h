#pragma once
// graphlens-bench subcommands register themselves, as graphlens-cli's do: a bench_*.cpp
// defines a static RegisterBench and needs no other file touched.
#include "graphlens/subcommands/subcommand_registry.h"

namespace graphlens::bench {

using RegisterBench = subcommands::RegisterSubcommand;

}  // namespace graphlens::bench
