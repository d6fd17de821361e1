#!/usr/bin/env bash
# Installs what is missing, builds with -Werror and runs every test on Mesa's software Vulkan
# device (lavapipe) with validation + synchronization validation. Then the pure-CPU, Graphviz
# layout, capture-file, SPIR-V reflection and capture-layer tests again under ASan+UBSan, and the
# libFuzzer harnesses for a bounded time (GRAPHLENS_FUZZ_SECONDS each, default 60), both from
# one clang build (build-sanitize/). The main run includes the Debian package's test
# (packaging/test-installed-package.sh: pack, unpack into a scratch root, run the installed
# CLI, layer and GUI from there; label package). GRAPHLENS_SKIP_SANITIZE=1 / GRAPHLENS_SKIP_FUZZ=1
# skip those steps when iterating locally.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
jobs="$(nproc)"
export QT_QPA_PLATFORM=offscreen
# Every Vulkan test runs on Mesa's lavapipe with validation + synchronization validation.
export GRAPHLENS_DEVICE=llvmpipe GRAPHLENS_VALIDATION=1
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1

# llama.cpp's prebuilt Vulkan libraries (npm, cached): the foreign engine the capture layer's
# tests record.
llama_dir="$(bash "$root/scripts/fetch-llama-vulkan.sh")"

build="$root/build"
# A unity build: each target's sources compile in batches, so the heavy headers (gtest, json,
# CLI11, fmt, Qt) are parsed once a batch instead of once a file.
options=(-DGRAPHLENS_WERROR=ON -DGRAPHLENS_UNITY_BUILD=ON -DGRAPHLENS_LLAMA_VULKAN_DIR="$llama_dir")
# A fresh tree is configured once, with every option; an existing one gets them again.
if [ -f "$build/build.ninja" ]; then
  cmake "$build" "${options[@]}" > /dev/null
else
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${options[@]}"
fi
cmake --build "$build" -j"$jobs"

# One clang build (scripts/sanitize-build.sh) for the ASan+UBSan tests and the libFuzzer
# harnesses: the core compiles once for both, and one ninja run builds both sets of targets.
sanitize="$root/build-sanitize"
sanitize_targets=()
if [ "${GRAPHLENS_SKIP_SANITIZE:-0}" != "1" ] || [ "${GRAPHLENS_SKIP_FUZZ:-0}" != "1" ]; then
  # The kernels (SPIR-V) are the main build's: glslang runs once for both builds.
  GRAPHLENS_KERNELS_FROM="$build" bash "$root/scripts/sanitize-build.sh" configure "$sanitize"
fi
if [ "${GRAPHLENS_SKIP_SANITIZE:-0}" != "1" ]; then
  sanitize_targets+=(test_graph test_synthetic test_layout test_capture test_spirv test_layer graphlens-cli)
fi
if [ "${GRAPHLENS_SKIP_FUZZ:-0}" != "1" ]; then
  mapfile -t -O "${#sanitize_targets[@]}" sanitize_targets \
    < <(bash "$root/scripts/sanitize-build.sh" fuzz-targets "$sanitize")
fi
if [ ${#sanitize_targets[@]} -gt 0 ]; then
  cmake --build "$sanitize" -j"$jobs" --target "${sanitize_targets[@]}"
fi
if [ "${GRAPHLENS_SKIP_FUZZ:-0}" != "1" ]; then
  GRAPHLENS_FUZZ_SECONDS="${GRAPHLENS_FUZZ_SECONDS:-60}" GRAPHLENS_FUZZ_BUILD="$sanitize" \
    bash "$root/scripts/fuzz.sh"
fi
if [ "${GRAPHLENS_SKIP_SANITIZE:-0}" != "1" ]; then
  # Leak checks are off here: the Vulkan loader and Mesa keep process-lifetime allocations.
  (cd "$sanitize" && ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure -j"$jobs" -L '^(graph|synthetic|layout|capture|spirv|layer)$' --timeout 900)
fi
# The main run last, so its summary closes the output.
(cd "$build" && ctest --output-on-failure -j"$jobs" --timeout 900)
