#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/) with clang + ASan + UBSan in build-fuzz/ and
# runs each for a bounded time on its seed corpus. Exits non-zero when a harness finds a
# crash; the input is left in build-fuzz/artifacts/ (turn it into a regression test).
#   GRAPHLENS_FUZZ_SECONDS  seconds per harness (default 60)
#   GRAPHLENS_FUZZ_JOBS     build parallelism (default: nproc)
#   GRAPHLENS_FUZZ_BUILD    build directory (default: <repo>/build-fuzz)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${GRAPHLENS_FUZZ_SECONDS:-60}"
jobs="${GRAPHLENS_FUZZ_JOBS:-$(nproc)}"
build="${GRAPHLENS_FUZZ_BUILD:-$root/build-fuzz}"
cxx="$(command -v clang++ || true)"
if [ -z "$cxx" ]; then
  echo "fuzz.sh: clang++ not found (scripts/deps.sh installs it)" >&2
  exit 1
fi

# Every library is instrumented for coverage (fuzzer-no-link) and sanitized; the harness
# executables add the libFuzzer main (tests/fuzz/CMakeLists.txt).
if [ ! -f "$build/build.ninja" ]; then
  mkdir -p "$build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$cxx" -DGRAPHLENS_FUZZ=ON -DGRAPHLENS_BUILD_GUI=OFF \
    -DGRAPHLENS_BUILD_BENCH=OFF -DGRAPHLENS_WERROR=OFF \
    -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    > "$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 1; }
fi
harnesses=()
targets="$(ninja -C "$build" -t targets all)"
for src in "$root"/tests/fuzz/*_fuzz.cpp; do
  name="$(basename "$src" _fuzz.cpp)"
  # A harness whose library is not there yet is skipped by tests/fuzz/CMakeLists.txt.
  if grep -q "^fuzz_$name:" <<< "$targets"; then
    harnesses+=("$name")
  fi
done
if [ ${#harnesses[@]} -eq 0 ]; then
  echo "fuzz.sh: no harness targets found in $build" >&2
  exit 1
fi
cmake --build "$build" -j"$jobs" --target "${harnesses[@]/#/fuzz_}"

status=0
mkdir -p "$build/artifacts"
for name in "${harnesses[@]}"; do
  # New inputs go to a scratch corpus in the build dir; the committed seeds stay untouched.
  work="$build/corpus/$name"
  mkdir -p "$work"
  echo "== fuzz_$name for ${seconds}s"
  if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" \
      "$work" "$root/tests/fuzz/corpus/$name" 2> "$build/fuzz_$name.log"; then
    echo "fuzz_$name FAILED: see $build/fuzz_$name.log and $build/artifacts/" >&2
    tail -40 "$build/fuzz_$name.log" >&2
    status=1
  else
    grep -E "stat::number_of_executed_units|Done" "$build/fuzz_$name.log" | tail -2
  fi
done
exit $status
