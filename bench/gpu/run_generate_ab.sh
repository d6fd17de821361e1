#!/bin/bash
# A/B of graphlens-cli builds in a real decode loop on one GPU (issue 23): cli-a, cli-b, ...
# next to this script (VARIANTS="a b" by default), run alternately (A B A B A B) in `generate`
# of PRESET (default llama-3.2-1b) at KV 521..584 (bench/llama/decode_loop_ab.sh's lengths;
# CTXS="584 4168" adds KV 4105..4168, each context's last 64 tokens timed); unless FIXED=0,
# also on the fixed step (`run`, each variant on the capture it makes itself: builds may record
# different graphs) with a per-group profile of the last variant; then every test_ops-<v>
# found next to the script. The tokens of every run are compared with its own variant's
# `generate --mode serial`. Logs in $OUT/logs.tgz, a summary at the end.
B=$(cd "$(dirname "$0")" && pwd)
V=(${VARIANTS:-a b})
last=${V[${#V[@]}-1]}
cd "$(mktemp -d)"
step() { local name=$1 t=$2; shift 2; local s=$(date +%s); timeout "$t" "$@" > "$OUT/$name.log" 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - s )) s" | tee -a "$OUT/steps.txt"; }
nvidia-smi -L > "$OUT/smi.txt" 2>&1
CTXS=(${CTXS:-584})
PRESET=${PRESET:-llama-3.2-1b}
gen() { echo "generate --preset $PRESET --warmup $(($1 - 64)) --tokens 64 --ctx $1"; }
FIXED=${FIXED:-1}
for v in "${V[@]}"; do
  [ "$FIXED" = 1 ] && step "cap-512-$v" 60 "$B/cli-$v" capture --preset "$PRESET" --phase decode --ctx 512 --kv f16 -o "d512-$v.json"
done
for c in "${CTXS[@]}"; do
  for round in 1 2 3; do
    for v in "${V[@]}"; do step "gen$c-$v$round" 120 "$B/cli-$v" $(gen $c); done
  done
  for v in "${V[@]}"; do step "gen$c-$v-serial" 120 "$B/cli-$v" $(gen $c) --mode serial; done
done
if [ "$FIXED" = 1 ]; then
  for round in 1 2; do
    for v in "${V[@]}"; do
      step "run-$v$round" 120 "$B/cli-$v" run "d512-$v.json" --modes serial,levels,levels+ahead --repeat 20 --warmup-ms 1000
    done
  done
  step "groups-$last" 90 "$B/cli-$last" run "d512-$last.json" --modes levels --groups levels --profile --top 130
fi
for v in "${V[@]}"; do [ -x "$B/test_ops-$v" ] && step "test-ops-$v" 240 "$B/test_ops-$v"; done
cd "$OUT"
echo "== generate (µs a token: median min max, GPU median)"
for f in gen*.log; do echo "$f $(grep '^generate:' "$f")"; done
echo "== tokens equal to serial's"
for c in "${CTXS[@]}"; do
  for v in "${V[@]}"; do
    for f in gen$c-"$v"[0-9]*.log; do
      cmp -s <(grep '^tokens:' "$f") <(grep '^tokens:' "gen$c-$v-serial.log") && echo "$f same" || echo "$f DIFFERENT"
    done
  done
done
echo "== run (GPU, encode, wall, dispatches, barriers, ..., outputs against serial)"
for f in run-*.log; do [ -f "$f" ] || continue; echo "-- $f"; grep -E "^(serial|levels|levels\+ahead) " "$f"; done
echo "== tests"; for f in test-ops-*.log; do [ -f "$f" ] && echo "$f: $(tail -1 "$f")"; done
tar czf logs.tgz ./*.log steps.txt smi.txt && rm -f ./*.log
exit 0
