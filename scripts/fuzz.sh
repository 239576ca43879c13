#!/usr/bin/env bash
# Runs every Go fuzz target (func FuzzXxx in a _test.go) for FUZZTIME each
# (default 10m; "make fuzz FUZZTIME=30s"), one worker each (FUZZ_WORKERS),
# FUZZ_JOBS targets at a time (default 1). A finding is written by Go under
# the package's testdata/fuzz/FuzzXxx/ and fails the script: fix it, keep the
# file (it is then a corpus entry that plain "go test" runs every time).
# FUZZ_ONLY=regexp picks targets, FUZZ_SKIP=regexp leaves some out. Prints one line a target: how long, how
# many executions, PASS or FAIL.
set -uo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-10m}
workers=${FUZZ_WORKERS:-1}
jobs=${FUZZ_JOBS:-1}
only=${FUZZ_ONLY:-.}
skip=${FUZZ_SKIP:-^$}
log=${FUZZ_LOG:-$(mktemp -d /tmp/oltpbench-fuzz.XXXXXX)}
mkdir -p "$log"
targets=$(grep -l '^func Fuzz' $(find . -name '*_test.go' -not -path './.*' -not -path './bin/*') |
  while read -r f; do
    for t in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$f"); do echo "./$(dirname "${f#./}") $t"; done
  done | grep -E "$only" | grep -vE "$skip" | sort)
[ -n "$targets" ] || { echo "fuzz: no target matches FUZZ_ONLY=$only" >&2; exit 2; }
run() {
  local pkg=$1 t=$2 out
  out="$log/$(echo "${pkg#./}" | tr / _)-$t.log"
  local start=$(date +%s)
  if go test -run '^$' -fuzz "^$t\$" -fuzztime "$fuzztime" -parallel "$workers" "$pkg" >"$out" 2>&1; then
    res=PASS
  else
    res=FAIL
  fi
  local execs
  execs=$(grep -o 'execs: [0-9]*' "$out" | tail -1 | cut -d' ' -f2)
  printf 'fuzz: %-24s %-18s %4ss %10s execs  %s\n' "$pkg" "$t" $(($(date +%s) - start)) "${execs:-0}" "$res"
  [ "$res" = PASS ] || { grep -E 'Failing input|fuzz_test.go|panic' "$out" | head -5 | sed 's/^/  /'; return 1; }
}
export -f run
export fuzztime workers log
echo "$targets" | xargs -P "$jobs" -L 1 bash -c 'run "$@"' _
rc=$?
echo "fuzz: logs in $log"
exit $rc
