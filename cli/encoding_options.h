#pragma once
// The options of how a plan is encoded into command buffers, shared by the subcommands that
// execute plans (`run`, `generate`): the stream's first command buffer and growth, and the
// recording threads of levels+parallel.
#include <CLI/CLI.hpp>
#include <cstddef>

namespace graphlens::cli {

struct EncodingOptions {
    size_t stream_first = 8;
    double stream_growth = 4.0;
    size_t parallel_threads = 0;  ///< 0: the hardware's, at most 4
};

inline void add_encoding_options(CLI::App& app, EncodingOptions& o) {
    app.add_option("--stream-first", o.stream_first,
                   "levels+stream: dispatches in the first command buffer (default 8)")
        ->check(CLI::Range(size_t{1}, size_t{1} << 30));
    app.add_option("--stream-growth", o.stream_growth,
                   "levels+stream: each command buffer this many times the one before (default 4)")
        ->check(CLI::Range(1.0, 1024.0));
    app.add_option("--parallel-threads", o.parallel_threads,
                   "levels+parallel: threads recording slices at once (default: the hardware's, at "
                   "most 4)")
        ->check(CLI::Range(size_t{1}, size_t{64}));
}

}  // namespace graphlens::cli
