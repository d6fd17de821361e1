#!/usr/bin/env bash
# Configures and builds GraphLens into build/ (incremental). Extra args go to cmake.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
build="${GRAPHLENS_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  # A unity build, as run.sh and test.sh configure it, so the three share their objects.
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DGRAPHLENS_UNITY_BUILD=ON "$@"
elif [ $# -gt 0 ]; then
  cmake "$build" "$@"
fi
cmake --build "$build" -j"$(nproc)"
