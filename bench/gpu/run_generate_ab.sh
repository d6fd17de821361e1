#!/bin/bash
# A/B of graphlens-cli builds in llama-3.2-1b's real decode loop on one GPU (issue 23): cli-a,
# cli-b, ... next to this script (VARIANTS="a b" by default), run alternately (A B A B A B) in
# `generate` at KV 521..584 (bench/llama/decode_loop_ab.sh's lengths) and on the fixed step
# (`run`, each variant on the capture it makes itself: builds may record different graphs),
# then a per-group profile of the last variant and every test_ops-<v> found next to the script. The tokens of every run are compared with its own
# variant's `generate --mode serial`. Logs in $OUT/logs.tgz, a summary at the end.
B=$(cd "$(dirname "$0")" && pwd)
V=(${VARIANTS:-a b})
last=${V[${#V[@]}-1]}
cd "$(mktemp -d)"
step() { local name=$1 t=$2; shift 2; local s=$(date +%s); timeout "$t" "$@" > "$OUT/$name.log" 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - s )) s" | tee -a "$OUT/steps.txt"; }
nvidia-smi -L > "$OUT/smi.txt" 2>&1
GEN="generate --preset llama-3.2-1b --warmup 520 --tokens 64 --ctx 584"
for v in "${V[@]}"; do
  step "cap-1b-512-$v" 60 "$B/cli-$v" capture --preset llama-3.2-1b --phase decode --ctx 512 --kv f16 -o "d512-$v.json"
done
for round in 1 2 3; do
  for v in "${V[@]}"; do step "gen-$v$round" 120 "$B/cli-$v" $GEN; done
done
for v in "${V[@]}"; do step "gen-$v-serial" 120 "$B/cli-$v" $GEN --mode serial; done
for round in 1 2; do
  for v in "${V[@]}"; do
    step "run-$v$round" 120 "$B/cli-$v" run "d512-$v.json" --modes serial,levels,levels+ahead --repeat 20 --warmup-ms 1000
  done
done
step "groups-$last" 90 "$B/cli-$last" run "d512-$last.json" --modes levels --groups levels --profile --top 130
for v in "${V[@]}"; do [ -x "$B/test_ops-$v" ] && step "test-ops-$v" 240 "$B/test_ops-$v"; done
cd "$OUT"
echo "== generate (µs a token: median min max, GPU median)"
for f in gen-*.log; do echo "$f $(grep '^generate:' "$f")"; done
echo "== tokens equal to serial's"
for v in "${V[@]}"; do
  for f in gen-"$v"[0-9]*.log; do cmp -s <(grep '^tokens:' "$f") <(grep '^tokens:' "gen-$v-serial.log") && echo "$f same" || echo "$f DIFFERENT"; done
done
echo "== run (GPU, encode, wall, dispatches, barriers, ..., outputs against serial)"
for f in run-*.log; do echo "-- $f"; grep -E "^(serial|levels|levels\+ahead) " "$f"; done
echo "== tests"; for f in test-ops-*.log; do [ -f "$f" ] && echo "$f: $(tail -1 "$f")"; done
tar czf logs.tgz ./*.log steps.txt smi.txt && rm -f ./*.log
exit 0
