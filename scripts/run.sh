#!/usr/bin/env bash
# The main job: builds GraphLens and opens the GUI on the built-in sample graph. Without a
# display (no $DISPLAY / $WAYLAND_DISPLAY) it runs the headless demo of graphlens-cli instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bash "$root/scripts/build.sh"
build="${GRAPHLENS_BUILD_DIR:-$root/build}"
if [ -x "$build/gui/graphlens" ] && { [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; }; then
  exec "$build/gui/graphlens" "$@"
fi
echo "No display found: running the headless demo (graphlens-cli demo)." >&2
exec "$build/core/graphlens-cli" demo "$@"
