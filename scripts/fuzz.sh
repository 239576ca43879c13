#!/usr/bin/env bash
# Runs every Go fuzz target (func FuzzXxx in a _test.go) for FUZZTIME each
# (default 10m; "make fuzz FUZZTIME=30s"), one worker each (FUZZ_WORKERS),
# FUZZ_JOBS targets at a time (default 1). A finding is written by Go under
# the package's testdata/fuzz/FuzzXxx/ and fails the script: fix it, keep the
# file (it is then a corpus entry that plain "go test" runs every time).
# FUZZ_ONLY=regexp picks targets, FUZZ_SKIP=regexp leaves some out. Prints one line a target: how long, how
# many executions, PASS or FAIL. A failure that wrote no input and says only
# "context deadline exceeded" is Go's own coordinator race at the end of a
# duration (go.dev/issue/75804, fixed in Go 1.27), not a finding: such a target
# is run again, up to three times in all.
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
  local start=$(date +%s) try
  for try in 1 2 3; do
    if go test -run '^$' -fuzz "^$t\$" -fuzztime "$fuzztime" -parallel "$workers" "$pkg" >"$out" 2>&1; then
      res=PASS
      break
    fi
    res=FAIL
    grep -q 'context deadline exceeded' "$out" && ! grep -qE 'Failing input|panic' "$out" || break
    cp "$out" "$out.race$try"
  done
  local execs
  execs=$(grep -o 'execs: [0-9]*' "$out" | tail -1 | cut -d' ' -f2)
  printf 'fuzz: %-24s %-18s %4ss %10s execs  %s\n' "$pkg" "$t" $(($(date +%s) - start)) "${execs:-0}" "$res"
  [ "$res" = PASS ] || { grep -E 'Failing input|fuzz_test.go|panic|--- FAIL|^    ' "$out" | head -5 | sed 's/^/  /'; return 1; }
}
export -f run
export fuzztime workers log
echo "$targets" | xargs -P "$jobs" -L 1 bash -c 'run "$@"' _
rc=$?
echo "fuzz: logs in $log"
exit $rc
