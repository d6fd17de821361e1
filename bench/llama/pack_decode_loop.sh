#!/usr/bin/env bash
# Packs what bench/llama/decode_loop_ab.sh needs on a GPU machine that has no build: a stripped
# graphlens-cli, the llama_decode driver, llama.cpp's prebuilt libraries (the Vulkan backend, its
# base, the CPU backends that keep llama.cpp's token embedding), the shared libraries
# graphlens-cli links beyond the C++ runtime and the Vulkan loader (libfmt, spirv-cross,
# Graphviz), the script itself and run.sh, which points the script at them. xz keeps the archive small (llama.cpp's
# Vulkan backend is 43 MB of shaders, about 5 MB packed); the device tool carries 64 MiB.
#
#   bench/llama/pack_decode_loop.sh [BUILD_DIR] [ARCHIVE]      (default build, decode-loop.tar.xz)
#
# On the GPU machine (the Vulkan loader and the driver's ICD set up by the caller: VK_DRIVER_FILES,
# LD_LIBRARY_PATH):
#   tar xJf decode-loop.tar.xz && decode-loop/run.sh OUT_DIR [SHAPE:KV ...]
set -euo pipefail
build="${1:-build}"
archive="${2:-decode-loop.tar.xz}"
llama_lib="${LLAMA_LIB:-${GRAPHLENS_LLAMA_VULKAN_DIR:-$HOME/.cache/graphlens/llama-vulkan-3.22.1}/lib}"
here="$(cd "$(dirname "$0")" && pwd)"
cli="$build/cli/graphlens-cli"
driver="$build/tests/llama/llama_decode"
die() {
  echo "pack_decode_loop: $*" >&2
  exit 1
}
[ -x "$cli" ] || die "no $cli (cmake --build $build --target graphlens-cli)"
[ -x "$driver" ] || die "no $driver (configure with -DGRAPHLENS_LLAMA_VULKAN_DIR, build llama_decode)"
[ -f "$llama_lib/libggml-vulkan.so" ] || die "no llama.cpp libraries in $llama_lib (scripts/fetch-llama-vulkan.sh)"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
dir="$stage/decode-loop"
mkdir -p "$dir/bin" "$dir/lib" "$dir/llama"
strip -o "$dir/bin/graphlens-cli" "$cli"
cp "$driver" "$dir/bin/llama_decode"
for so in libggml-base.so libggml.vulkan.v0.5.0.so libllama.vulkan.v0.5.0.so libggml-vulkan.so; do
  cp "$llama_lib/$so" "$dir/llama/"
done
cp "$llama_lib"/libggml-cpu-*.so "$dir/llama/"
# graphlens-cli's libraries beyond glibc, the C++ runtime and the Vulkan loader (libfmt,
# spirv-cross, Graphviz and what Graphviz links): a GPU machine has none of them.
for name in libfmt.so libspirv-cross-c-shared.so; do
  ldd "$cli" | awk -v n="$name" 'index($1, n) == 1 {found=1} END {exit !found}' ||
    die "graphlens-cli does not link $name (ldd $cli)"
done
ldd "$cli" | awk '$3 ~ /^\// {print $3}' | while read -r path; do
  case "$(basename "$path")" in
    libc.so* | libm.so* | libstdc++* | libgcc_s* | ld-linux* | libvulkan* | libpthread* | libdl.so* | librt.so*) ;;
    *) cp -L "$path" "$dir/lib/$(basename "$path")" ;;
  esac
done
cp "$here/decode_loop_ab.sh" "$dir/"
cat > "$dir/run.sh" << 'EOF'
#!/usr/bin/env bash
# decode_loop_ab.sh with the binaries and libraries of this folder (pack_decode_loop.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GRAPHLENS_CLI="$here/bin/graphlens-cli" LLAMA_DECODE="$here/bin/llama_decode"
export LLAMA_LIB="$here/llama"
exec bash "$here/decode_loop_ab.sh" "$@"
EOF
chmod +x "$dir/run.sh" "$dir/decode_loop_ab.sh"
tar -C "$stage" -cf - decode-loop | xz -T0 -6 > "$archive"
echo "$archive: $(du -h "$archive" | cut -f1)"
