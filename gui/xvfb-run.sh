#!/usr/bin/env bash
# Runs the GUI without a desktop, under a virtual X server (xvfb-run), for CI and headless
# machines. With --screenshots DIR it writes a PNG of the main window and of each view once
# the document is shown, then exits; otherwise it runs until killed.
#   gui/xvfb-run.sh [--screenshots DIR] [capture.json]
# GRAPHLENS_BUILD_DIR picks the build directory (default: build/).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GRAPHLENS_BUILD_DIR:-$root/build}"
app="$build/gui/graphlens"
if [ ! -x "$app" ]; then
  echo "xvfb-run.sh: $app is not built (scripts/build.sh builds it)" >&2
  exit 1
fi
if ! command -v xvfb-run > /dev/null; then
  echo "xvfb-run.sh: xvfb-run is not installed (Debian package xvfb)" >&2
  exit 1
fi
exec xvfb-run -a -s "-screen 0 1600x1000x24" "$app" "$@"
