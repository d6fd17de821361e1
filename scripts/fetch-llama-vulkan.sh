#!/usr/bin/env bash
# Fetches llama.cpp's prebuilt Vulkan libraries and its headers from the npm registry, once, into
# a cache folder, and prints that folder. The libraries come with @node-llama-cpp/linux-x64-vulkan;
# the matching llama.h / ggml headers are in the llama.cpp source the node-llama-cpp package
# bundles (a git bundle). Both are pinned: the test's expectations are of this build.
#   GRAPHLENS_CACHE   cache root (default ~/.cache/graphlens)
set -euo pipefail
version=3.22.1
cache="${GRAPHLENS_CACHE:-$HOME/.cache/graphlens}/llama-vulkan-$version"
if [ -f "$cache/.complete" ]; then
  echo "$cache"
  exit 0
fi
command -v npm > /dev/null || { echo "fetch-llama-vulkan: npm is missing (scripts/deps.sh installs it)" >&2; exit 1; }
command -v git > /dev/null || { echo "fetch-llama-vulkan: git is missing" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "@node-llama-cpp/linux-x64-vulkan@$version" "node-llama-cpp@$version" > /dev/null)
mkdir -p "$work/libs" "$work/src"
tar xzf "$work/node-llama-cpp-linux-x64-vulkan-$version.tgz" -C "$work/libs"
tar xzf "$work/node-llama-cpp-$version.tgz" -C "$work/src"
git clone -q "$work/src/package/llama/gitRelease.bundle" "$work/llama.cpp" 2> /dev/null
rm -rf "$cache"
mkdir -p "$cache/include"
cp -r "$work/libs/package/bins/linux-x64-vulkan" "$cache/lib"
cp "$work/llama.cpp/include/llama.h" "$work/llama.cpp/ggml/include/"*.h "$cache/include/"
cp "$work/src/package/llama/llama.cpp.info.json" "$cache/llama.cpp.info.json"
touch "$cache/.complete"
echo "$cache"
