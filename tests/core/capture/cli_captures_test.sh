#!/usr/bin/env bash
# graphlens-cli on capture files: every hand-made bad capture makes `report`, `dot` and
# `diff` exit non-zero with exactly one line naming the file and a JSON path; the minimal
# hand-written capture gives every report format and a DOT graph.
#   cli_captures_test.sh <graphlens-cli> <tests/data/captures>
set -uo pipefail
cli="$1"
data="$2"
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

for bad in "$data"/bad/*.json; do
  for cmd in "report $bad -f md" "dot $bad" "diff $data/minimal.json $bad"; do
    # shellcheck disable=SC2086
    err="$("$cli" $cmd 2>&1 >/dev/null)"
    rc=$?
    [ "$rc" -ne 0 ] || fail "$cmd exited 0"
    [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "$cmd: not one line: $err"
    [[ "$err" == "graphlens-cli: error: $bad: "* ]] || fail "$cmd: reason does not name the file: $err"
  done
done

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for format in html md csv json; do
  "$cli" report "$data/minimal.json" -o "$out/report.$format" 2>/dev/null ||
    fail "report -o report.$format failed"
  [ -s "$out/report.$format" ] || fail "report.$format is empty"
done
grep -q '<svg' "$out/report.html" || fail "HTML report has no inline SVG"
[ "$(wc -l < "$out/report.csv")" -eq 3 ] || fail "CSV report needs a header and 2 dispatch rows"
"$cli" dot "$data/minimal.json" > "$out/graph.dot" || fail "dot failed"
grep -q '^digraph dependencies {' "$out/graph.dot" || fail "dot output is not a digraph"
# --svg: laid out by Graphviz's library, one box per dispatch, well-formed XML.
"$cli" dot "$data/minimal.json" --svg -o "$out/graph.svg" || fail "dot --svg failed"
[ "$(grep -c '<rect x=' "$out/graph.svg")" -eq 2 ] || fail "dot --svg: not one box per dispatch"
if command -v python3 > /dev/null; then
  python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$out/graph.svg" ||
    fail "dot --svg wrote malformed XML"
fi
"$cli" diff "$data/minimal.json" "$data/minimal.json" > "$out/diff.md" || fail "diff failed"
grep -q 'only in A: 0; only in B: 0' "$out/diff.md" || fail "a capture diffed with itself has unmatched labels"

# A synthetic capture made without a device (the GUI benchmark's 100k-dispatch file is made
# this way): 20 dispatches a layer + 4, and it loads like any capture.
made="$("$cli" capture --synthetic transformer --layers 3 -o "$out/synthetic.json" 2>&1)" ||
  fail "capture --synthetic failed: $made"
[[ "$made" == *": 64 dispatches,"* ]] || fail "capture --synthetic --layers 3: $made"
"$cli" report "$out/synthetic.json" -o "$out/synthetic.md" 2>/dev/null ||
  fail "the synthetic capture does not load"
err="$("$cli" capture --synthetic transformer --preset llama-3.2-1b -o "$out/x.json" 2>&1)" &&
  fail "--synthetic with --preset was accepted"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "all CLI capture checks passed"
