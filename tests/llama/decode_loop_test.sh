#!/usr/bin/env bash
# GraphLens's decode loop (graphlens-cli generate) and llama.cpp's (llama_decode) on the same
# tiny Q4_0 GGUF on lavapipe: from the same first token (llama_decode's one-token prompt is
# token 3) both generate the same greedy tokens; then the side-by-side benchmark
# (bench/llama/decode_loop_ab.sh) runs both end to end and prints a ratio.
set -euo pipefail
cli="$1" driver="$2" backends="$3" bench="$4"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$cli" gguf --tiny llama --weights q4_0 -o "$tmp/tiny.gguf" > /dev/null
# lavapipe is a CPU device, which ggml-vulkan skips unless it is named.
export GGML_VK_VISIBLE_DEVICES=0 VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
"$driver" "$tmp/tiny.gguf" --backends "$backends" --prompt 1 --decode 10 > "$tmp/llama.txt" \
  2> "$tmp/llama-err.txt" || { cat "$tmp/llama-err.txt" "$tmp/llama.txt"; exit 1; }
"$cli" generate --model "$tmp/tiny.gguf" --prompt-token 3 --warmup 0 --tokens 10 \
  > "$tmp/generate.txt" || { cat "$tmp/generate.txt"; exit 1; }
llama_tokens="$(sed -n 's/^tokens: //p' "$tmp/llama.txt")"
graphlens_tokens="$(sed -n 's/^tokens: *3 | //p' "$tmp/generate.txt")"
echo "llama.cpp: $llama_tokens"
echo "GraphLens: $graphlens_tokens"
if [ -z "$llama_tokens" ] || [ "$llama_tokens" != "$graphlens_tokens" ]; then
  echo "the two loops generated different tokens"
  exit 1
fi
grep -Eq '^wall per token: median [0-9.]+ ms' "$tmp/llama.txt" ||
  { echo "llama_decode printed no wall time per token"; exit 1; }

GRAPHLENS_CLI="$cli" LLAMA_DECODE="$driver" LLAMA_LIB="$backends" TOKENS=2 SKIP=1 ROUNDS=1 \
  MODES="levels+ahead" bash "$bench" "$tmp/bench" tiny:4 > "$tmp/bench.txt" 2>&1 ||
  { cat "$tmp/bench.txt"; exit 1; }
cat "$tmp/bench.txt"
grep -Eq '^tiny +4 levels\+ahead +[0-9.]+ +[0-9.]+ +[0-9.]+x$' "$tmp/bench/table.txt" ||
  { echo "the benchmark's table has no ratio for tiny at KV 4"; exit 1; }
[ -s "$tmp/bench/logs.tgz" ] || { echo "the benchmark wrote no logs.tgz"; exit 1; }
echo "both decode loops agree and the benchmark runs"
