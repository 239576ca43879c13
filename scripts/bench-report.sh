#!/usr/bin/env bash
# make bench-report: report compare over a long release history, 20 versions x 24 cells (4 tests x 6 thread
# levels) x 5 repeats = 2,400 result files as large as a real 300 s run's (30 intervals, ~650 server
# variables), written by internal/report/compare's TestWriteLargeHistory. Times the built binary in each format
# (RUNS times, median) and prints its peak RSS; fails over the targets (2 s, 200 MB).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bench-lib.sh
RUNS=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test ./internal/report/compare -count=1 -run TestWriteLargeHistory -large-history="$work" >/dev/null
echo "== report compare over $(ls "$work" | wc -l) versions, $(find "$work" -name '*.json' | wc -l) result files, $(du -sh "$work" | cut -f1)"
printf "%-9s %10s %12s\n" format "wall s" "peak RSS MB"
fail=0
for f in text markdown html; do
  : >"$work/$f.times"
  for _ in $(seq 1 "$RUNS"); do
    /usr/bin/time -f "%e %M" -o "$work/t" bin/oltpbench report compare "$work"/v* --format=$f >"$work/out"
    cat "$work/t" >>"$work/$f.times"
  done
  wall=$(awk '{print $1}' "$work/$f.times" | median)
  rss=$(awk '{print $2/1024}' "$work/$f.times" | median)
  printf "%-9s %10s %12.0f\n" "$f" "$wall" "$rss"
  awk -v w="$wall" -v m="$rss" 'BEGIN{exit !(w < 2 && m < 200)}' || fail=1
done
grep -m1 "first between v12 and v13" "$work/out" >/dev/null || { echo "bench-report: the drop in v13 was not located" >&2; exit 1; }
[ "$fail" = 0 ] || { echo "bench-report: over the targets (2 s, 200 MB)" >&2; exit 1; }
