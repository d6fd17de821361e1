#!/bin/bash
# The tensor-core device run of 2026-11-23 (docs/kernels.md "Tensor cores"): put graphlens-cli,
# graphlens-bench (Release) and test_ops next to this script, run it on the GPU machine with $OUT
# set; logs go to $OUT.
B=$(cd "$(dirname "$0")" && pwd)
cd "$(mktemp -d)"
step() { local name=$1 t=$2; shift 2; local s=$(date +%s); timeout "$t" "$@" > "$OUT/$name.log" 2>&1; local rc=$?; echo "$name rc=$rc $(( $(date +%s) - s )) s" | tee -a "$OUT/steps.txt"; }
nvidia-smi -L > "$OUT/smi.txt" 2>&1
step devices 30 "$B/graphlens-cli" devices
step bench-tc 200 "$B/graphlens-bench" prefill --sections matmat,tiles,tcvariants,check --report "$OUT/prefill-tc.md"
step bench-fp32 90 "$B/graphlens-bench" prefill --tensor-cores off --sections matmat,check --report "$OUT/prefill-fp32.md"
step capture 120 "$B/graphlens-cli" capture --preset llama-3.2-1b --phase prefill --tokens 512 -o p.json
step run-tc 120 "$B/graphlens-cli" run p.json --modes serial,levels,levels+stream --repeat 10 --warmup-ms 1000
step run-fp32 120 env GRAPHLENS_TENSOR_CORES=0 "$B/graphlens-cli" run p.json --modes serial,levels,levels+stream --repeat 10 --warmup-ms 1000
step run-bk64 60 env GRAPHLENS_TC_VARIANT=_bk64 "$B/graphlens-cli" run p.json --modes levels+stream --repeat 10 --warmup-ms 1000
step run-nopf 60 env GRAPHLENS_TC_VARIANT=_nopf "$B/graphlens-cli" run p.json --modes levels+stream --repeat 10 --warmup-ms 1000
step test-ops 120 "$B/test_ops" --gtest_filter='*MatmulTiles*:*MatmulTensorCores*:*GgmlMatmul*'
step profile-tc 60 "$B/graphlens-cli" run p.json --modes levels --repeat 3 --profile --top 40
exit 0
