#!/usr/bin/env bash
# GraphLens reads a model file that ggml's own gguf writer laid out (gguf_rewrite, on the
# prebuilt libggml-base), and records the same graph from it as from the file it wrote itself.
set -euo pipefail
cli="$1" rewrite="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$cli" gguf --tiny llama --weights q4_0 -o "$tmp/graphlens.gguf"
"$rewrite" "$tmp/graphlens.gguf" "$tmp/ggml.gguf" "rewritten by ggml"
"$cli" capture --model "$tmp/graphlens.gguf" -o "$tmp/a.json" > /dev/null
"$cli" capture --model "$tmp/ggml.gguf" -o "$tmp/b.json" > /dev/null
grep -q '"model":"rewritten by ggml"' "$tmp/b.json" || { echo "the name ggml wrote was not read"; exit 1; }
# The two captures differ only in the model's name and the file they came from.
strip() { sed -e 's/"model":"[^"]*"//' -e 's/"source":"[^"]*"//' "$1"; }
diff <(strip "$tmp/a.json") <(strip "$tmp/b.json") \
  || { echo "the graphs recorded from the two files differ"; exit 1; }
echo "GraphLens read the file ggml wrote and recorded the same graph"
