#!/usr/bin/env bash
# The main job: builds GraphLens and opens the GUI on the built-in sample graph. Without a
# display (no $DISPLAY / $WAYLAND_DISPLAY) it runs the headless demo of graphlens-cli instead.
# It builds only the program it starts (and what that links, the capture layer included), not
# the tests and benchmarks: scripts/test.sh builds those.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
build="${GRAPHLENS_BUILD_DIR:-$root/build}"
# A unity build, as scripts/test.sh configures it: the first start compiles each target's sources
# in batches, and a later scripts/test.sh in the same tree reuses the objects.
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DGRAPHLENS_UNITY_BUILD=ON
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  if cmake --build "$build" -j"$(nproc)" --target graphlens; then
    exec "$build/gui/graphlens" "$@"
  fi
  echo "The GUI did not build: running the headless demo (graphlens-cli demo)." >&2
else
  echo "No display found: running the headless demo (graphlens-cli demo)." >&2
fi
cmake --build "$build" -j"$(nproc)" --target graphlens-cli
exec "$build/cli/graphlens-cli" demo "$@"
