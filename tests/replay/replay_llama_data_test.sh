#!/usr/bin/env bash
# record --data of one decode step of llama.cpp's own Vulkan engine (prebuilt, on lavapipe),
# then run: llama.cpp's own plan replayed from the recorded contents computes llama.cpp's
# logits for that step, and every GraphLens plan leaves the bytes it leaves, without a hazard.
#   replay_llama_data_test.sh CLI DRIVER BACKENDS
set -euo pipefail
cli="$1" driver="$2" backends="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$cli" gguf --tiny llama --weights q4_0 -o "$tmp/tiny.gguf" > /dev/null
export GGML_VK_VISIBLE_DEVICES=0 GGML_VK_DEBUG_MARKERS=1
export VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
# A one-token prompt and no further step: the captured graph is the one whose logits the
# driver writes.
"$cli" record --data -o "$tmp/llama.json" --label ggml_backend_vk_graph_compute -- \
  "$driver" "$tmp/tiny.gguf" --backends "$backends" --prompt 1 --decode 0 \
  --logits "$tmp/logits.bin" > "$tmp/record.txt" 2>&1 || { cat "$tmp/record.txt"; exit 1; }
test -s "$tmp/llama.json.data" || { cat "$tmp/record.txt"; echo "no buffer contents saved"; exit 1; }
GRAPHLENS_DEVICE=llvmpipe GRAPHLENS_VALIDATION=1 "$cli" run "$tmp/llama.json" --modes all \
  --repeat 1 --warmup 1 --warmup-ms 0 --outputs "$tmp/final.data" > "$tmp/run.txt" 2>&1 \
  || { cat "$tmp/run.txt"; echo "a mode failed, changed the bytes or had validation errors"; exit 1; }
cat "$tmp/run.txt"
python3 - "$tmp/run.txt" "$tmp/final.data" "$tmp/logits.bin" <<'PY'
import struct, sys
run, final, logits = open(sys.argv[1]).read(), open(sys.argv[2], "rb").read(), open(sys.argv[3], "rb").read()
modes = ["as-recorded", "one-submission", "per-op-submit", "serial", "elided", "greedy", "levels",
         "levels+split", "levels+stream", "levels+parallel", "levels+ahead"]
for m in modes:
    line = next((l for l in run.splitlines() if l.startswith(m + " ")), None)
    assert line and "bitwise" in line, f"{m}: {line}"
assert "buffers start with the recorded contents" in run
assert final[:8] == b"GLDATA01"
count, at, found = struct.unpack("<I", final[8:12])[0], 12, []
for _ in range(count):
    allocation, offset, size = struct.unpack("<IQQ", final[at:at + 20])
    at += 20
    where = final[at:at + size].find(logits)
    if where >= 0:
        found.append((allocation, where))
    at += size
assert len(logits) >= 64 and found, "llama.cpp's logits are not among the bytes as-recorded left"
print(f"llama.cpp's {len(logits) // 4} logits found in allocation {found[0][0]} at byte {found[0][1]}")
PY
