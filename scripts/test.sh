#!/usr/bin/env bash
# Installs what is missing, builds with -Werror and runs every test on Mesa's software Vulkan
# device (lavapipe) with validation + synchronization validation; then the core tests again
# under ASan+UBSan, and the fuzzers for a bounded time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
jobs="$(nproc)"
export QT_QPA_PLATFORM=offscreen

build="$root/build"
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAPHLENS_WERROR=ON
cmake "$build" -DGRAPHLENS_WERROR=ON > /dev/null
cmake --build "$build" -j"$jobs"
(cd "$build" && ctest --output-on-failure -j"$jobs" --timeout 900)

if [ "${GRAPHLENS_SKIP_SANITIZE:-0}" != "1" ]; then
  asan="$root/build-asan"
  [ -f "$asan/build.ninja" ] || cmake -S "$root" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DGRAPHLENS_SANITIZE=ON -DGRAPHLENS_WERROR=ON -DGRAPHLENS_BUILD_GUI=OFF -DGRAPHLENS_BUILD_BENCH=OFF
  cmake --build "$asan" -j"$jobs" --target test_graph
  # The sanitizer run covers the pure-CPU layers; leak checks are off because the Vulkan
  # loader and Mesa keep process-lifetime allocations.
  (cd "$asan" && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j"$jobs" -R '^(Graph|Hazard|Pass|Verif|Fus|Reorder|Barrier|Capture|Gguf|Report)' --timeout 900)
fi
