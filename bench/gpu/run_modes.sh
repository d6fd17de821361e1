#!/bin/bash
# The execution-mode device run of docs/benchmarks.md §1: every mode on llama-3.2-1b decode at
# KV 512 and 4096, llama-3.1-8b decode and a 512-token llama-3.2-1b prefill (random Q4_0
# weights, f16 KV cache for decode), the copy bandwidth for the floor, a per-group profile of
# the 1b decode and prefill, the decode attention kernels and the op/matmul tests on the device. Put graphlens-cli, graphlens-bench and
# test_ops (Release) next to this script and run it on the GPU machine with $OUT set; logs go
# to $OUT as one archive, logs.tgz (the device tool returns at most 8 files). STEPS (a regular
# expression over the step names) runs a subset.
B=$(cd "$(dirname "$0")" && pwd)
cd "$(mktemp -d)"
# Every step runs even when one before it failed (the logs of the others are still wanted);
# the script exits non-zero when any step failed, naming them.
failed=()
step() { local name=$1 t=$2; shift 2; [[ "$name" =~ ^(${STEPS:-.*})$ ]] || return 0; local s=$(date +%s); timeout "$t" "$@" > "$OUT/$name.log" 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - s )) s" | tee -a "$OUT/steps.txt"; [ "$rc" -eq 0 ] || failed+=("$name"); }
nvidia-smi -L > "$OUT/smi.txt" 2>&1
step devices 30 "$B/graphlens-cli" devices
step copy 60 "$B/graphlens-bench" kernels --sections copy
step attention 90 "$B/graphlens-bench" kernels --sections attention
step cap-1b-512 60 "$B/graphlens-cli" capture --preset llama-3.2-1b --phase decode --ctx 512 --kv f16 -o d512.json
step cap-1b-4096 60 "$B/graphlens-cli" capture --preset llama-3.2-1b --phase decode --ctx 4096 --kv f16 -o d4096.json
step cap-8b-512 120 "$B/graphlens-cli" capture --preset llama-3.1-8b --phase decode --ctx 512 --kv f16 -o d8b.json
step cap-1b-pre 60 "$B/graphlens-cli" capture --preset llama-3.2-1b --phase prefill --tokens 512 -o p512.json
step run-1b-512 150 "$B/graphlens-cli" run d512.json --modes all --repeat 20 --warmup-ms 1000
step run-1b-4096 150 "$B/graphlens-cli" run d4096.json --modes all --repeat 20 --warmup-ms 1000
step run-8b-512 200 "$B/graphlens-cli" run d8b.json --modes all --repeat 20 --warmup-ms 1000
step run-1b-pre 200 "$B/graphlens-cli" run p512.json --modes all --repeat 10 --warmup-ms 1000
step groups-1b-512 90 "$B/graphlens-cli" run d512.json --modes levels --groups levels --profile --top 40
step groups-1b-pre 90 "$B/graphlens-cli" run p512.json --modes levels --repeat 3 --groups levels --profile --top 400
step test-ops 150 "$B/test_ops"
(cd "$OUT" && tar czf logs.tgz ./*.log steps.txt smi.txt && rm -f ./*.log)
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed steps: ${failed[*]}" | tee -a "$OUT/steps.txt" >&2
  exit 1
fi
