#!/usr/bin/env bash
# Regenerates the GUI's built-in sample: one decode step of the llama-3.2-1b preset (16 layers,
# KV length 512) recorded through the transformer builder, as a capture file embedded via
# resources/graphlens.qrc. Recording allocates but runs nothing, so lavapipe is enough.
# Usage: resources/make-sample.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$root/build}"
"$build/cli/graphlens-cli" capture --preset llama-3.2-1b --phase decode --ctx 512 \
  -o "$root/resources/sample-llama-3.2-1b-decode.json"
