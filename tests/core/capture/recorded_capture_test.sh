#!/usr/bin/env bash
# A capture the layer recorded of llama.cpp (tests/data/captures/llama_tiny_decode_recorded.json)
# loads, runs through every pass with each stage verified, has no race, and names llama.cpp's
# kernels; the report agrees with passes on races and on llama.cpp's barrier count.
set -euo pipefail
cli="$1" capture="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$cli" passes "$capture" --fail-on-race > "$tmp/passes.txt"
cat "$tmp/passes.txt"
grep -Eq '^captured +36 +25 +0 ' "$tmp/passes.txt" || { echo "not 36 dispatches, 25 barriers, 0 races"; exit 1; }
[ "$(grep -c 'every hazard of the capture kept' "$tmp/passes.txt")" = 4 ] || { echo "a stage not verified"; exit 1; }
"$cli" report "$capture" --format json -o "$tmp/r.json" > /dev/null
python3 - "$tmp/r.json" "$capture" <<'PY'
import json, sys
report, capture = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert report["races_total"] == 0
assert report["stages"][0]["stats"]["barriers"] == 25
names = {k["name"] for k in capture["kernels"]}
assert {"mul_mat_vec_q4_0_f32_f32", "flash_attn_f32_f16_aligned"} <= names, names
print(f"{report['redundant_barriers_total']} redundant barriers listed")
PY
