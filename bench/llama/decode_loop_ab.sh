#!/usr/bin/env bash
# Time per token of a real decode loop, GraphLens against llama.cpp, on the same GGUF in one
# run (issue 23): for each model shape and KV length, GraphLens's `graphlens-cli generate` (the
# step planned once, each token's values patched, greedy argmax on the GPU) and llama.cpp's own
# loop (tests/llama/llama_decode: a llama_decode per token, its logits read back, argmax on the
# host) run interleaved A B A B, and one table gives the time per token of both and the ratio.
#
#   bench/llama/decode_loop_ab.sh [OUT_DIR] [SHAPE:KV ...]
#
# SHAPE is a preset (llama-3.2-1b, llama-3.1-8b, ...) or `tiny` (the tiny test llama, for a
# smoke run on lavapipe); its GGUF is written by GraphLens's GGUF writer with random Q4_0
# weights and loaded by both engines. KV is the KV length the timed tokens start from: llama.cpp
# evaluates a prompt of KV tokens, GraphLens decodes KV tokens first (its loop's warm-up), then
# both decode SKIP more untimed tokens and TOKENS timed ones, so the timed tokens attend
# KV + SKIP + 1 ... KV + SKIP + TOKENS keys in both. Default shapes: llama-3.2-1b:512
# llama-3.2-1b:4096 llama-3.1-8b:512 llama-3.1-8b:4096.
#
# Time per token is the wall time of one loop iteration as each loop sees it: GraphLens's from
# one token's completion to the next's (recording, submission, the fence; the argmax is a
# dispatch of the step); llama.cpp's around llama_decode, llama_get_logits_ith and the argmax.
# llama.cpp's own timer (llama_perf_context, every decode step) is in its logs.
#
# Environment:
#   GRAPHLENS_CLI   graphlens-cli (default build/cli/graphlens-cli)
#   LLAMA_DECODE    the driver (default build/tests/llama/llama_decode)
#   LLAMA_LIB       llama.cpp's prebuilt libraries (default
#                   $GRAPHLENS_LLAMA_VULKAN_DIR/lib, else ~/.cache/graphlens/llama-vulkan-3.22.1/lib,
#                   from scripts/fetch-llama-vulkan.sh); put on LD_LIBRARY_PATH for the driver
#   MODES           GraphLens modes, each its own column (default levels+ahead)
#   TOKENS          timed tokens (default 64); SKIP untimed ones after the KV fill (default 8)
#   ROUNDS          A B rounds (default 3; with 2 the median over rounds is their mean)
#   RUN_TIMEOUT     seconds per run (default 900)
#   Vulkan: the caller sets VK_DRIVER_FILES (and LD_LIBRARY_PATH) for the machine's driver.
# On a machine without the build, bench/llama/pack_decode_loop.sh packs the binaries, libraries
# and this script into one archive whose run.sh sets the three paths above.
#   ggml-vulkan skips CPU devices: on lavapipe also set GGML_VK_VISIBLE_DEVICES=0.
# OUT_DIR (default bench-out/decode-loop) gets two files: table.txt (the table, also printed)
# and logs.tgz (every run's log, a folder per shape and KV). The GGUFs (one per shape, 4.5 GB
# for llama-3.1-8b) and the logs are written to a scratch folder under TMPDIR, removed at exit.
set -euo pipefail

out="${1:-bench-out/decode-loop}"
shift $(($# > 0 ? 1 : 0))
points=("$@")
[ ${#points[@]} -gt 0 ] ||
  points=(llama-3.2-1b:512 llama-3.2-1b:4096 llama-3.1-8b:512 llama-3.1-8b:4096)
cli="${GRAPHLENS_CLI:-build/cli/graphlens-cli}"
driver="${LLAMA_DECODE:-build/tests/llama/llama_decode}"
default_lib="${GRAPHLENS_LLAMA_VULKAN_DIR:-$HOME/.cache/graphlens/llama-vulkan-3.22.1}/lib"
lib="${LLAMA_LIB:-$default_lib}"
read -r -a modes <<< "${MODES:-levels+ahead}"
tokens="${TOKENS:-64}"
skip="${SKIP:-8}"
rounds="${ROUNDS:-3}"
run_timeout="${RUN_TIMEOUT:-900}"

die() {
  echo "decode_loop_ab: $*" >&2
  exit 1
}
[ -x "$cli" ] || die "no graphlens-cli at '$cli' (build it, or set GRAPHLENS_CLI)"
[ -x "$driver" ] || die "no llama_decode at '$driver' (build with -DGRAPHLENS_LLAMA_VULKAN_DIR, or set LLAMA_DECODE)"
[ -f "$lib/libggml-vulkan.so" ] ||
  die "no libggml-vulkan.so in '$lib' (scripts/fetch-llama-vulkan.sh, or set LLAMA_LIB)"
for n in "$tokens" "$skip" "$rounds"; do
  [[ "$n" =~ ^[0-9]+$ ]] || die "TOKENS, SKIP and ROUNDS must be whole numbers (got '$n')"
done
if [ "$tokens" -eq 0 ] || [ "$rounds" -eq 0 ]; then die "TOKENS and ROUNDS must be positive"; fi
[ -n "${VK_DRIVER_FILES:-}" ] ||
  echo "decode_loop_ab: VK_DRIVER_FILES is unset: the loader picks the driver" >&2
mkdir -p "$out"
out="$(cd "$out" && pwd)"
table="$out/table.txt"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/models" "$work/logs"
failures=0

# Runs one engine's loop; its log goes to $1, its exit status is reported, never fatal.
run_logged() {
  local log=$1
  shift
  local status=0
  timeout "$run_timeout" "$@" > "$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    echo "decode_loop_ab: exit status $status of: $* (its log: ${log#"$work/logs/"} in logs.tgz)" >&2
    tail -n 5 "$log" >&2
    failures=$((failures + 1))
  fi
}

# "median min max" in ms of one log, or "- - -" when the log has no timing line.
graphlens_times() {
  awk '/^generate: /{for(i=2;i<=NF;i++){split($i,kv,"=");v[kv[1]]=kv[2]}
        printf "%.4f %.4f %.4f\n", v["median_us"]/1e3, v["min_us"]/1e3, v["max_us"]/1e3; found=1}
       END{if(!found) print "- - -"}' "$1"
}
llama_times() {
  awk '/^wall per token: /{printf "%.4f %.4f %.4f\n", $5, $8, $11; found=1}
       END{if(!found) print "- - -"}' "$1"
}
# Median of the numbers given (dashes left out), or "-".
median_of() {
  printf '%s\n' "$@" | { grep -v '^-$' || true; } | sort -g |
    awk '{a[NR]=$1} END{if(NR==0){print "-"} else if(NR%2){print a[(NR+1)/2]}
         else{printf "%.4f\n", (a[NR/2]+a[NR/2+1])/2}}'
}

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2> /dev/null || true
  "$cli" devices 2> /dev/null | head -n 3 || true
  echo "timed tokens $tokens after the KV fill and $skip more; $rounds rounds A B; ms per token"
  printf '%-14s %6s %-12s %5s %10s %10s %10s\n' shape kv engine round median min max
} > "$table"

declare -a summary
for point in "${points[@]}"; do
  shape="${point%%:*}"
  kv="${point#*:}"
  [[ "$point" == *:* && "$kv" =~ ^[0-9]+$ && "$kv" -gt 0 ]] ||
    die "'$point' is not SHAPE:KV with KV > 0 (e.g. llama-3.2-1b:512)"
  dir="$work/logs/$shape-$kv"
  mkdir -p "$dir"
  # One GGUF per shape, shared by its KV lengths.
  model="$work/models/$shape.gguf"
  if [ ! -f "$model" ]; then
    if [ "$shape" = tiny ]; then
      written=("$cli" gguf --tiny llama --weights q4_0 -o "$model")
    else
      written=("$cli" gguf --preset "$shape" --weights q4_0 -o "$model")
    fi
    "${written[@]}" > "$work/logs/gguf-$shape.txt" 2>&1 ||
      die "writing the $shape GGUF failed: $(tail -n 3 "$work/logs/gguf-$shape.txt")"
  fi
  ctx=$((kv + skip + tokens))
  declare -A medians=()
  for round in $(seq 1 "$rounds"); do
    for mode in "${modes[@]}"; do
      log="$dir/graphlens-$mode-$round.txt"
      run_logged "$log" "$cli" generate --model "$model" --mode "$mode" \
        --warmup $((kv + skip)) --tokens "$tokens" --ctx "$ctx"
      read -r med min max <<< "$(graphlens_times "$log")"
      printf '%-14s %6s %-12s %5s %10s %10s %10s\n' "$shape" "$kv" "$mode" "$round" \
        "$med" "$min" "$max" >> "$table"
      medians[$mode]="${medians[$mode]:-} $med"
    done
    log="$dir/llama-$round.txt"
    LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" run_logged "$log" \
      "$driver" "$model" --backends "$lib" --prompt "$kv" --decode $((skip + tokens)) \
      --skip "$skip" --ctx "$ctx"
    read -r med min max <<< "$(llama_times "$log")"
    printf '%-14s %6s %-12s %5s %10s %10s %10s\n' "$shape" "$kv" llama.cpp "$round" \
      "$med" "$min" "$max" >> "$table"
    medians[llama]="${medians[llama]:-} $med"
  done
  # shellcheck disable=SC2086 # the lists are words on purpose
  llama_med="$(median_of ${medians[llama]})"
  for mode in "${modes[@]}"; do
    # shellcheck disable=SC2086
    gl_med="$(median_of ${medians[$mode]})"
    ratio="-"
    if [ "$gl_med" != "-" ] && [ "$llama_med" != "-" ]; then
      ratio="$(awk -v a="$llama_med" -v b="$gl_med" 'BEGIN{printf "%.2fx", a/b}')"
    fi
    summary+=("$(printf '%-14s %6s %-12s %12s %12s %10s' "$shape" "$kv" "$mode" "$gl_med" \
      "$llama_med" "$ratio")")
  done
  unset medians
done

{
  echo
  echo "median over rounds, ms per token; ratio = llama.cpp / GraphLens (above 1: GraphLens faster)"
  printf '%-14s %6s %-12s %12s %12s %10s\n' shape kv mode graphlens llama.cpp ratio
  printf '%s\n' "${summary[@]}"
} >> "$table"
tar czf "$out/logs.tgz" -C "$work/logs" .
cat "$table"
if [ "$failures" -gt 0 ]; then
  echo "decode_loop_ab: $failures run(s) failed; their logs are in $out/logs.tgz" >&2
  exit 1
fi
