#!/usr/bin/env bash
# llama.cpp (prebuilt, Vulkan backend on lavapipe) loads a tiny Q4_0 llama that graphlens-cli
# wrote and decodes tokens from it: GraphLens's GGUF writer makes files a real engine reads.
set -euo pipefail
cli="$1" driver="$2" backends="$3"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$cli" gguf --tiny llama --weights q4_0 -o "$tmp/tiny.gguf"
# lavapipe is a CPU device, which ggml-vulkan skips unless it is named.
export GGML_VK_VISIBLE_DEVICES=0 VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json
"$driver" "$tmp/tiny.gguf" --backends "$backends" --decode 3 --logits "$tmp/logits.bin" \
  > "$tmp/out.txt" 2> "$tmp/err.txt" || { cat "$tmp/err.txt" "$tmp/out.txt"; exit 1; }
cat "$tmp/out.txt"
grep -q "using device Vulkan0 (llvmpipe" "$tmp/err.txt" || { echo "not on lavapipe's Vulkan device"; exit 1; }
grep -Eq '^tokens:( [0-9]+){3}$' "$tmp/out.txt" || { echo "no decoded tokens"; exit 1; }
# 256 float32 logits (the tiny model's vocabulary), finite.
[ "$(stat -c %s "$tmp/logits.bin")" = 1024 ] || { echo "logits file of the wrong size"; exit 1; }
python3 -c "import struct,math,sys; v=struct.unpack('256f', open(sys.argv[1],'rb').read()); sys.exit(0 if all(math.isfinite(x) for x in v) and max(v)>min(v) else 1)" "$tmp/logits.bin" \
  || { echo "logits not finite or all equal"; exit 1; }
echo "llama.cpp decoded the GraphLens model"
