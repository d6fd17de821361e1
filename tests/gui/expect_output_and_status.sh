#!/usr/bin/env bash
# Runs a command and passes only when its exit status is the expected one AND its output
# matches a regular expression: ctest's PASS_REGULAR_EXPRESSION alone ignores the exit code,
# so an app that crashed after printing the expected line would pass.
#   expect_output_and_status.sh success|failure <extended regex> <command> [args...]
# failure means any non-zero status that is not a signal's (a crash is never the expected end).
set -uo pipefail
expected="$1"
pattern="$2"
shift 2
output="$("$@" 2>&1)"
rc=$?
printf '%s\n' "$output"
case "$expected" in
  success) [ "$rc" -eq 0 ] || { echo "FAIL: '$*' exited with $rc" >&2; exit 1; } ;;
  failure)
    if [ "$rc" -eq 0 ] || [ "$rc" -gt 128 ]; then
      echo "FAIL: '$*' exited with $rc, expected an error status" >&2
      exit 1
    fi ;;
  *) echo "usage: $0 success|failure <regex> <command> [args...]" >&2; exit 2 ;;
esac
if ! grep -qE -- "$pattern" <<<"$output"; then
  echo "FAIL: the output of '$*' has no line matching: $pattern" >&2
  exit 1
fi
