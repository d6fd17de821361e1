#!/usr/bin/env bash
# Builds the libFuzzer harnesses (tests/fuzz/) in the clang + ASan + UBSan build that the
# sanitizer tests share (scripts/sanitize-build.sh, build-sanitize/) and runs each for a bounded
# time on its seed corpus. Exits non-zero when a harness finds a crash; the input is left in
# <build>/artifacts/ (turn it into a regression test).
#   GRAPHLENS_FUZZ_SECONDS  seconds per harness (default 60)
#   GRAPHLENS_FUZZ_JOBS     build parallelism and harnesses run at once (default: nproc)
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

# One harness: its own scratch corpus in the build dir (the committed seeds stay untouched), its
# log in <build>/fuzz_<name>.log; the exit status says whether it found a crash.
fuzz_one() {
  local name="$1" work="$build/corpus/$1"
  mkdir -p "$work"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/tests/fuzz/fuzz_$name" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" \
    "$work" "$root/tests/fuzz/corpus/$name" 2> "$build/fuzz_$name.log"
}

# Each harness is one single-threaded process: up to $jobs of them run at once, each on a core
# of its own for its whole time, so running them side by side takes nothing from any of them.
mkdir -p "$build/artifacts"
declare -A pid_of
for name in "${harnesses[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  echo "== fuzz_$name for ${seconds}s"
  fuzz_one "$name" &
  pid_of[$name]=$!
done
status=0
for name in "${harnesses[@]}"; do
  if ! wait "${pid_of[$name]}"; then
    echo "fuzz_$name FAILED: see $build/fuzz_$name.log and $build/artifacts/" >&2
    tail -40 "$build/fuzz_$name.log" >&2
    status=1
  else
    echo "fuzz_$name: $(grep -E "stat::number_of_executed_units|Done" "$build/fuzz_$name.log" \
      | tail -2 | tr '\n' ' ')"
  fi
done
exit $status
