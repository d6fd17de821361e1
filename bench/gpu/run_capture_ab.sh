#!/bin/bash
# A/B of two capture settings on the same GPU in one run: decode captures of llama-3.2-1b (KV
# 512 and 4096) and llama-3.1-8b made with the capture options ARGS_A and ARGS_B (default: "" =
# q8x x for the Q4_0 mat-vecs, "--f32-x" = f32 x) by the CLI builds CLI_A and CLI_B (default
# both graphlens-cli; kernel picks are made when a graph is captured, so comparing picks needs
# each build's own captures), each run A, B, A, B in MODES, so drift of the machine shows as
# A-A and B-B spread. graphlens-cli (and cli-b, ...), graphlens-bench and test_ops sit next to
# this script. Logs go to $OUT/logs.tgz (the device
# tool returns at most 8 files). STEPS (a regular expression over the step names) runs a subset.
B=$(cd "$(dirname "$0")" && pwd)
MODES=${MODES:-serial,fused,levels,levels+split,levels+stream}
ARGS_A=${ARGS_A:-}
ARGS_B=${ARGS_B---f32-x}
CLI_A=${CLI_A:-graphlens-cli}
CLI_B=${CLI_B:-graphlens-cli}
cd "$(mktemp -d)"
step() { local name=$1 t=$2; shift 2; [[ "$name" =~ ^(${STEPS:-.*})$ ]] || return 0; local s=$(date +%s); timeout "$t" "$@" > "$OUT/$name.log" 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - s )) s" | tee -a "$OUT/steps.txt"; }
nvidia-smi -L > "$OUT/smi.txt" 2>&1
for v in a b; do
  args=$([ $v = a ] && echo "$ARGS_A" || echo "$ARGS_B")
  cli=$([ $v = a ] && echo "$CLI_A" || echo "$CLI_B")
  step cap-1b-512-$v 60 "$B/$cli" capture --preset llama-3.2-1b --phase decode --ctx 512 --kv f16 $args -o d512-$v.json
  step cap-1b-4096-$v 60 "$B/$cli" capture --preset llama-3.2-1b --phase decode --ctx 4096 --kv f16 $args -o d4096-$v.json
  step cap-8b-512-$v 120 "$B/$cli" capture --preset llama-3.1-8b --phase decode --ctx 512 --kv f16 $args -o d8b-$v.json
done
for round in 1 2; do
  for w in d512 d4096 d8b; do
    for v in a b; do
      cli=$([ $v = a ] && echo "$CLI_A" || echo "$CLI_B")
      step "run-$w-$v$round" 120 "$B/$cli" run $w-$v.json --modes "$MODES" --repeat 20 --warmup-ms 1000
    done
  done
done
step groups-a-d512 90 "$B/graphlens-cli" run d512-a.json --modes levels --groups levels --top 60
step test-ops 200 "$B/test_ops"
(cd "$OUT" && tar czf logs.tgz ./*.log steps.txt smi.txt && rm -f ./*.log)
exit 0
