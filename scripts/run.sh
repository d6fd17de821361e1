#!/usr/bin/env bash
# The main job: builds GraphLens and opens the GUI on the built-in sample graph. Without a
# display (no $DISPLAY / $WAYLAND_DISPLAY) it runs the headless demo of graphlens-cli instead.
# It builds only the program it starts (and what that links, the capture layer included), not
# the tests and benchmarks: scripts/test.sh builds those.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/deps.sh"
build="${GRAPHLENS_BUILD_DIR:-$root/build}"
[ -f "$build/build.ninja" ] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
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
