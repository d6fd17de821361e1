#!/usr/bin/env bash
# Runs a command and passes only when it exits 0 AND its output matches a regular expression:
# ctest's PASS_REGULAR_EXPRESSION alone ignores the exit code, so an app that crashed after
# printing the expected line would pass.
#   expect_output_and_success.sh <extended regex> <command> [args...]
set -uo pipefail
pattern="$1"
shift
output="$("$@" 2>&1)"
rc=$?
printf '%s\n' "$output"
if [ "$rc" -ne 0 ]; then
  echo "FAIL: '$*' exited with $rc" >&2
  exit 1
fi
if ! grep -qE -- "$pattern" <<<"$output"; then
  echo "FAIL: the output of '$*' has no line matching: $pattern" >&2
  exit 1
fi
