#!/usr/bin/env bash
# What the capture layer costs a program (docs/benchmarks.md, "Capture layer"):
#   1. loaded but outside the captured range: graphlens-cli run of a decode step, serial mode,
#      with and without the layer, interleaved; the CPU encode median and the wall median;
#      then, where perf is installed, the share of the process's CPU time spent in the layer's
#      own code (sampled, so other programs on the machine do not blur it);
#   2. recording: the same run with every dispatch of every repeat captured, against (1) with
#      the layer loaded: extra wall time per captured dispatch; and the layer's own measure
#      (its "recording:" status: time in its hooks and in building nodes, per dispatch);
#   3. writing: the layer's own "wrote ... in N ms" for that capture (about 100k dispatches).
#   layer_cost.sh BUILD_DIR [REPEATS]
# The program is a tiny llama's decode step (49 dispatches), so that about 100k dispatches are
# recorded in a minute on lavapipe; the encode column is the CPU work the layer adds to.
set -euo pipefail
build="$(cd "$1" && pwd)" repeats="${2:-2000}"
cli="$build/cli/graphlens-cli"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$cli" gguf --tiny llama --weights q4_0 -o "$tmp/tiny.gguf" > /dev/null
"$cli" capture --model "$tmp/tiny.gguf" -o "$tmp/step.json" > /dev/null
run() { "$cli" run "$tmp/step.json" --modes serial --warmup 2 --repeat "$repeats"; }
layer_env=(VK_LAYER_PATH="$build/layer:/usr/share/vulkan/explicit_layer.d"
           VK_INSTANCE_LAYERS=VK_LAYER_GRAPHLENS_capture
           GRAPHLENS_CAPTURE_OUTPUT="$tmp/never.json" GRAPHLENS_CAPTURE_SUBMITS=1000000000)
echo "device: $(GRAPHLENS_DEVICE=${GRAPHLENS_DEVICE:-} "$cli" devices 2>/dev/null | sed -n 2p)"
echo "program: graphlens-cli run of a tiny llama decode step,$("$cli" passes "$tmp/step.json" | sed -n 1p | cut -d: -f2), serial, $repeats repeats"
for round in 1 2 3; do
  echo "round $round without the layer:"; run | grep -E '^ *(mode|serial)'
  echo "round $round with the layer, outside the range:"; env "${layer_env[@]}" bash -c "$(declare -f run); cli=$cli tmp=$tmp repeats=$repeats; run" | grep -E '^ *(mode|serial)'
done
if command -v perf > /dev/null; then
  env "${layer_env[@]}" perf record -q -F 4000 -o "$tmp/perf.data" "$cli" run "$tmp/step.json" \
      --modes serial --warmup 2 --repeat "$((repeats / 4))" > /dev/null 2>&1
  perf report -i "$tmp/perf.data" --no-children --sort dso --stdio 2> /dev/null > "$tmp/perf.txt"
  total_ns=$(grep -o 'Event count (approx.): [0-9]*' "$tmp/perf.txt" | grep -o '[0-9]*$')
  share=$(grep 'libVkLayer_graphlens_capture' "$tmp/perf.txt" | grep -o '[0-9.]*%' | tr -d % || echo 0)
  python3 -c "import sys; s,t,r = float(sys.argv[1] or 0), float(sys.argv[2]), int(sys.argv[3]); print(f'layer outside the range, perf: {s:.2f} % of the process CPU time in the layer, about {s / 100 * t / 1000 / (r + 3):.1f} us per step')" "$share" "$total_ns" "$((repeats / 4))"
fi
start=$(date +%s.%N)
env "${layer_env[@]}" bash -c "$(declare -f run); cli=$cli tmp=$tmp repeats=$repeats; run" > /dev/null
outside=$(python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 3))" "$(date +%s.%N)" "$start")
start=$(date +%s.%N)
env VK_LAYER_PATH="$build/layer:/usr/share/vulkan/explicit_layer.d" VK_INSTANCE_LAYERS=VK_LAYER_GRAPHLENS_capture \
    GRAPHLENS_CAPTURE_OUTPUT="$tmp/all.json" GRAPHLENS_CAPTURE_AFTER_DISPATCHES=0 \
    bash -c "$(declare -f run); cli=$cli tmp=$tmp repeats=$repeats; run" > /dev/null 2> "$tmp/layer.txt"
recording=$(python3 -c "import sys; print(round(float(sys.argv[1]) - float(sys.argv[2]), 3))" "$(date +%s.%N)" "$start")
grep "graphlens-layer: wrote" "$tmp/layer.txt"
dispatches=$(grep -o '([0-9]* dispatches' "$tmp/layer.txt" | grep -o '[0-9]*')
write_ms=$(grep -o 'in [0-9.]* ms' "$tmp/layer.txt" | grep -o '[0-9.]*')
echo "whole run: layer outside the range ${outside} s, capturing every dispatch ${recording} s"
per_dispatch=$(python3 -c "import sys; r,o,w,d = map(float, sys.argv[1:]); print(round(((r - o) * 1000 - w) * 1000 / d, 2))" "$recording" "$outside" "$write_ms" "$dispatches")
echo "recording (wall difference less the write, per captured dispatch): $per_dispatch us"
echo "recording (the layer's own measure): $(grep -o 'recording: .*' "$tmp/layer.txt" | head -1)"
echo "writing the capture of $dispatches dispatches: $write_ms ms"
