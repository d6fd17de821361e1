#!/usr/bin/env bash
# The one clang build (build-sanitize/ by default) that serves both the ASan+UBSan test run of
# scripts/test.sh and the libFuzzer harnesses of scripts/fuzz.sh: every object is compiled with
# ASan + UBSan and libFuzzer's coverage instrumentation (fuzzer-no-link), the tests link the
# sanitizer runtimes, the harnesses libFuzzer's main too (tests/fuzz/CMakeLists.txt). One
# configuration instead of two compiles the core once for both.
#   sanitize-build.sh configure DIR     configure DIR unless it is already configured; with
#                                       GRAPHLENS_KERNELS_FROM=<build tree> set, DIR copies that
#                                       tree's compiled kernels instead of running glslang again
#   sanitize-build.sh fuzz-targets DIR  the harness targets of DIR (fuzz_<name>), one a line
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
command="$1"
build="$2"

case "$command" in
  configure)
    cxx="$(command -v clang++ || true)"
    if [ -z "$cxx" ]; then
      echo "sanitize-build.sh: clang++ not found (scripts/deps.sh installs it)" >&2
      exit 1
    fi
    [ -f "$build/build.ninja" ] && exit 0
    mkdir -p "$build"
    # RelWithDebInfo: the harnesses run as many inputs in their time as an optimised build
    # allows, and ASan's reports keep their line numbers. GRAPHLENS_SANITIZE adds ASan + UBSan
    # to every target; the coverage instrumentation comes from the flags. Warnings are errors in
    # the main (GCC) build, which compiles every file this one does.
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER="$cxx" -DGRAPHLENS_SANITIZE=ON -DGRAPHLENS_FUZZ=ON \
      -DGRAPHLENS_BUILD_GUI=OFF -DGRAPHLENS_BUILD_BENCH=OFF -DGRAPHLENS_WERROR=OFF \
      -DGRAPHLENS_UNITY_BUILD=ON \
      -DGRAPHLENS_KERNELS_FROM="${GRAPHLENS_KERNELS_FROM:-}" \
      -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" \
      > "$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
    ;;
  fuzz-targets)
    targets="$(ninja -C "$build" -t targets all)"
    for src in "$root"/tests/fuzz/*_fuzz.cpp; do
      name="$(basename "$src" _fuzz.cpp)"
      # A harness whose library is not there yet is skipped by tests/fuzz/CMakeLists.txt.
      if grep -q "^fuzz_$name:" <<< "$targets"; then
        echo "fuzz_$name"
      fi
    done
    ;;
  *)
    echo "usage: sanitize-build.sh configure|fuzz-targets DIR" >&2
    exit 2
    ;;
esac
