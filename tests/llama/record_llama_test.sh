#!/usr/bin/env bash
# The capture layer records one decode step of llama.cpp's own Vulkan engine (prebuilt, on
# lavapipe) through graphlens-cli record, with no change to the program: the capture has its
# dispatches with byte ranges and SPIR-V, its barriers analysed, and no race.
#   record_llama_test.sh CLI DRIVER BACKENDS [KEEP_CAPTURE_AS]
set -euo pipefail
cli="$1" driver="$2" backends="$3" keep="${4:-}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$cli" gguf --tiny llama --weights q4_0 -o "$tmp/tiny.gguf" > /dev/null
# lavapipe is a CPU device, which ggml-vulkan skips unless it is named; its debug markers
# label each graph computation on the queue ("ggml_backend_vk_graph_compute").
export GGML_VK_VISIBLE_DEVICES=0 GGML_VK_DEBUG_MARKERS=1
export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
# A one-token prompt: the first graph llama.cpp computes is a decode step.
"$cli" record -o "$tmp/llama.json" --label ggml_backend_vk_graph_compute -- \
  "$driver" "$tmp/tiny.gguf" --backends "$backends" --prompt 1 --decode 2 \
  > "$tmp/record.txt" 2>&1 || { cat "$tmp/record.txt"; exit 1; }
grep -E "dispatches|barriers" "$tmp/record.txt" || true
"$cli" passes "$tmp/llama.json" --fail-on-race > "$tmp/passes.txt" 2>&1 \
  || { cat "$tmp/passes.txt"; echo "llama.cpp's recorded step has races (or passes failed)"; exit 1; }
cat "$tmp/passes.txt"
"$cli" report "$tmp/llama.json" --format json -o "$tmp/report.json" > /dev/null
python3 - "$tmp/llama.json" "$tmp/report.json" <<'PY'
import json, sys
capture, report = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
nodes = capture["nodes"]
dispatches = [n for n in nodes if n.get("kind", "dispatch") == "dispatch"]
kernels = capture["kernels"]
assert len(dispatches) >= 20, f"only {len(dispatches)} dispatches recorded"
assert all("spirv_base64" in k for k in kernels if k.get("stage", "compute") == "compute"), \
    "a compute kernel without its SPIR-V"
# A dispatch states its bytes by its bound views (reads and writes follow from the kernel's
# reflected access) or, for a transfer, by explicit writes.
ranged = [n for n in dispatches if n.get("bindings") or n.get("writes")]
assert len(ranged) >= len(dispatches) // 2, "most dispatches have no byte ranges"
assert capture["source"]["range"] == "label ggml_backend_vk_graph_compute", capture["source"]["range"]
assert report["races_total"] == 0, f"{report['races_total']} races"
print(f"llama.cpp decode step: {len(dispatches)} dispatches, {len(kernels)} kernels, "
      f"{len(nodes) - len(dispatches)} barriers, {report['redundant_barriers_total']} redundant")
PY
if [ -n "$keep" ]; then cp "$tmp/llama.json" "$keep"; fi
