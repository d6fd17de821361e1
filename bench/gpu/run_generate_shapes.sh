#!/bin/bash
# Checks of a decode change beyond run_generate_ab.sh's 1b at KV 512, on one GPU: cli-a and
# cli-b next to this script run alternately (A B A B) in `generate` for llama-3.2-1b at KV
# 4097..4160 and llama-3.1-8b at KV 521..584 (decode_loop_ab.sh's lengths), then the
# llama-3.2-1b 512-token prefill (a capture made by A, levels+stream), then test_ops-b when it
# is there. Logs in $OUT/logs.tgz, a summary at the end.
B=$(cd "$(dirname "$0")" && pwd)
cd "$(mktemp -d)"
step() { local name=$1 t=$2; shift 2; local s=$(date +%s); timeout "$t" "$@" > "$OUT/$name.log" 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - s )) s" | tee -a "$OUT/steps.txt"; }
nvidia-smi -L > "$OUT/smi.txt" 2>&1
for round in 1 2; do
  for v in a b; do
    step "gen-1b-4096-$v$round" 120 "$B/cli-$v" generate --preset llama-3.2-1b --warmup 4104 --tokens 64 --ctx 4168
  done
done
for round in 1 2; do
  for v in a b; do
    step "gen-8b-512-$v$round" 180 "$B/cli-$v" generate --preset llama-3.1-8b --warmup 520 --tokens 64 --ctx 584
  done
done
step cap-prefill 90 "$B/cli-a" capture --preset llama-3.2-1b --phase prefill --tokens 512 -o p.json
for round in 1 2; do
  for v in a b; do
    step "prefill-$v$round" 120 "$B/cli-$v" run p.json --modes serial,levels+stream --repeat 10 --warmup-ms 1000
  done
done
[ -x "$B/test_ops-b" ] && step test-ops-b 240 "$B/test_ops-b"
cd "$OUT"
echo "== generate (µs a token: median min max, GPU median)"
for f in gen-*.log; do echo "$f $(grep '^generate:' "$f")"; done
echo "== prefill (GPU, encode, wall, ..., outputs against serial)"
for f in prefill-*.log; do echo "-- $f"; grep -E "^(serial|levels\+stream) " "$f"; done
[ -f test-ops-b.log ] && echo "test_ops: $(tail -1 test-ops-b.log)"
tar czf logs.tgz ./*.log steps.txt smi.txt && rm -f ./*.log
exit 0
