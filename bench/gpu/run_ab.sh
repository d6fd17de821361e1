#!/bin/bash
# A/B of two graphlens-cli builds on the same GPU in one run: cli-a and cli-b next to this
# script (plus graphlens-bench and test_ops of build A). Decode captures of llama-3.2-1b (KV 512
# and 4096) and llama-3.1-8b are made once by A; each is run by A, B, A, B in the modes that
# differ (MODES), so drift of the machine shows as A-A and B-B spread. Logs go to
# $OUT/logs.tgz (the device tool returns at most 8 files). STEPS (a regular expression over
# the step names) runs a subset. VARIANTS="a b c" adds builds (cli-c, ...) to every round.
B=$(cd "$(dirname "$0")" && pwd)
MODES=${MODES:-serial,fused,levels,levels+split,levels+stream}
cd "$(mktemp -d)"
step() { local name=$1 t=$2; shift 2; [[ "$name" =~ ^(${STEPS:-.*})$ ]] || return 0; local s=$(date +%s); timeout "$t" "$@" > "$OUT/$name.log" 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - s )) s" | tee -a "$OUT/steps.txt"; }
nvidia-smi -L > "$OUT/smi.txt" 2>&1
step cap-1b-512 60 "$B/cli-a" capture --preset llama-3.2-1b --phase decode --ctx 512 --kv f16 -o d512.json
step cap-1b-4096 60 "$B/cli-a" capture --preset llama-3.2-1b --phase decode --ctx 4096 --kv f16 -o d4096.json
step cap-8b-512 120 "$B/cli-a" capture --preset llama-3.1-8b --phase decode --ctx 512 --kv f16 -o d8b.json
for round in 1 2; do
  for w in d512 d4096 d8b; do
    for v in ${VARIANTS:-a b}; do
      step "run-$w-$v$round" 120 "$B/cli-$v" run $w.json --modes "$MODES" --repeat 20 --warmup-ms 1000
    done
  done
done
step attention 90 "$B/graphlens-bench" kernels --sections attention
step groups-a-d512 90 "$B/cli-a" run d512.json --modes levels --groups levels --top 60
step test-ops 150 "$B/test_ops"
(cd "$OUT" && tar czf logs.tgz ./*.log steps.txt smi.txt && rm -f ./*.log)
exit 0
