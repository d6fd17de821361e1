#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/) in the clang + ASan + UBSan build that the
# sanitizer tests share (scripts/sanitize-build.sh, build-sanitize/) and runs each for a bounded
# time on its seed corpus. Exits non-zero when a harness finds a crash; the input is left in
# <build>/artifacts/ (turn it into a regression test).
#   GRAPHLENS_FUZZ_SECONDS  seconds per harness (default 60)
#   GRAPHLENS_FUZZ_JOBS     build parallelism (default: nproc)
#   GRAPHLENS_FUZZ_BUILD    build directory (default: <repo>/build-sanitize)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${GRAPHLENS_FUZZ_SECONDS:-60}"
jobs="${GRAPHLENS_FUZZ_JOBS:-$(nproc)}"
build="${GRAPHLENS_FUZZ_BUILD:-$root/build-sanitize}"

bash "$root/scripts/sanitize-build.sh" configure "$build"
mapfile -t targets < <(bash "$root/scripts/sanitize-build.sh" fuzz-targets "$build")
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no harness targets found in $build" >&2
  exit 1
fi
harnesses=("${targets[@]#fuzz_}")
cmake --build "$build" -j"$jobs" --target "${targets[@]}"

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
