#!/usr/bin/env bash
# The llama.cpp table of docs/benchmarks.md (issue 20), in one device run: for each model shape
# (GraphLens's GGUF writer, random Q4_0 weights: the tiny test model, llama-3.2-1b, llama-3.1-8b)
#   1. llama.cpp's own decode time per token, its timer over --steps decode steps;
#   2. one decode step recorded with its buffers' contents (record --data, the label
#      ggml-vulkan puts around each graph computation);
#   3. `passes` on it: llama.cpp's barriers needed / redundant, levels, races;
#   4. `run --modes all` on it: llama.cpp's own plan (as-recorded) against GraphLens's, every
#      mode's bytes compared with as-recorded's.
# Needs a build with -DGRAPHLENS_LLAMA_VULKAN_DIR (tests/llama/llama_decode, the capture layer)
# and the npm prebuilt in ~/.cache/graphlens/llama-vulkan-3.22.1 (scripts/fetch-llama-vulkan.sh).
# ggml-vulkan skips CPU devices: where the only Vulkan device is lavapipe (a smoke test), set
# GGML_VK_VISIBLE_DEVICES=0 VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json.
# STEPS (default 64) and REPEAT (default 50) set llama.cpp's timed steps and run's repeats.
#   bench/llama/llama_replay.sh [BUILD_DIR] [OUT_DIR] [SHAPES...]
# OUT_DIR gets per shape: <shape>.json (+ .json.data), llama.txt, record.txt, passes.txt,
# run.txt; summary.txt has the lines the table quotes.
set -euo pipefail
build="${1:-build}"
out="${2:-bench-out/llama-replay}"
shift $(( $# > 2 ? 2 : $# ))
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(tiny llama-3.2-1b llama-3.1-8b)
cli="$build/cli/graphlens-cli"
driver="$build/tests/llama/llama_decode"
backends="${GRAPHLENS_LLAMA_VULKAN_DIR:-$HOME/.cache/graphlens/llama-vulkan-3.22.1}/lib"
steps="${STEPS:-64}"
repeat="${REPEAT:-50}"
for f in "$cli" "$driver"; do
  [ -x "$f" ] || { echo "missing $f (build graphlens-cli and llama_decode)" >&2; exit 1; }
done
mkdir -p "$out"
summary="$out/summary.txt"
{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || true
  git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || true
} > "$summary"
for shape in "${shapes[@]}"; do
  dir="$out/$shape"
  mkdir -p "$dir"
  if [ "$shape" = tiny ]; then
    "$cli" gguf --tiny llama --weights q4_0 -o "$dir/model.gguf" > /dev/null
  else
    "$cli" gguf --preset "$shape" --weights q4_0 -o "$dir/model.gguf" > /dev/null
  fi
  # 1. llama.cpp's own timer: a one-token prompt, then `steps` decode steps, each a graph.
  "$driver" "$dir/model.gguf" --backends "$backends" --prompt 1 --decode "$steps" \
    > "$dir/llama.txt" 2>&1
  # 2. The first graph (the prompt's one token: a decode step), with its buffers' contents.
  GGML_VK_DEBUG_MARKERS=1 "$cli" record --data -o "$dir/$shape.json" \
    --label ggml_backend_vk_graph_compute -- \
    "$driver" "$dir/model.gguf" --backends "$backends" --prompt 1 --decode 0 \
    > "$dir/record.txt" 2>&1
  # 3. and 4.
  "$cli" passes "$dir/$shape.json" > "$dir/passes.txt" 2>&1 || true
  status=0
  "$cli" run "$dir/$shape.json" --modes all --repeat "$repeat" > "$dir/run.txt" 2>&1 || status=$?
  {
    echo "== $shape"
    grep -E "ms per token" "$dir/llama.txt" || echo "(llama.cpp's timer printed nothing)"
    grep -E "^(dispatches|barriers|notes)|buffer contents" "$dir/record.txt" || true
    cat "$dir/passes.txt"
    sed -n '/^device:/,$p' "$dir/run.txt"
    echo "run exit status: $status"
  } >> "$summary"
done
cat "$summary"
