#!/usr/bin/env bash
# make bench-verdict: the check of report compare's statistics on a real server.
#   A and B: two sets of REPEATS runs of the same point_select cell on the same server: must come out
#   "no significant change"; C: the same with the server limited to one CPU (taskset): must come out a
#   significant decrease; A B C as a release history: the report must name B -> C as where it fell.
#   Knobs: REPEATS (5), DUR (10), THREADS (8).
set -euo pipefail
cd "$(dirname "$0")/.."
REPEATS=${REPEATS:-5}
DUR=${DUR:-10}
THREADS=${THREADS:-8}
dir="$PWD/.mariadb-bench"
scripts/mariadb-start.sh "$dir"
work=$(mktemp -d -p "$PWD" .bench-verdict.XXXX)
pid=$(cat "$dir/mysqld.pid")
trap 'taskset -a -p "$(printf %x $(( (1 << $(nproc)) - 1 )))" "$pid" >/dev/null 2>&1 || true; scripts/mariadb-stop.sh "$dir" --wipe; rm -rf "$work"' EXIT
. "$dir/env"
SB=(bin/oltpbench sysbench oltp_point_select --mysql-host=127.0.0.1 --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=100000)
"${SB[@]}" cleanup >/dev/null 2>&1 || true
"${SB[@]}" prepare --threads=4 >/dev/null
all=$(printf %x $(( (1 << $(nproc)) - 1 )))
# taskset -a walks the server's threads; one that exits meanwhile fails it: try again.
pin() { for _ in 1 2 3 4 5 6 7 8 9 10; do taskset -a -p "$1" "$pid" >/dev/null 2>&1 && return 0; sleep 0.2; done; taskset -a -p "$1" "$pid"; }
one() { mkdir -p "$work/$1"; "${SB[@]}" run --threads="$THREADS" --time="$DUR" --result-file="$work/$1/r$2.json" >/dev/null; }
# The buffer pool faults in and the machine settles during the first runs; then A, B and C alternate, so a
# drift of the machine over time weighs on all three alike (run one after the other, two sets of the same
# cell came out 25% apart here).
for i in 1 2 3; do one warm "$i"; done
rm -rf "$work/warm"
for i in $(seq 1 "$REPEATS"); do
  one A "$i"
  one B "$i"
  pin 1 # every server thread on CPU 0
  one C "$i"
  pin "$all"
done
echo "== A vs B: the same cell twice, $REPEATS repeats each (want: no significant change)"
bin/oltpbench report compare --baseline "$work/A" --candidate "$work/B" --baseline-name A --candidate-name B | grep -E "threads:|QPS of"
echo "== A vs C: the server on one CPU (want: a significant decrease)"
bin/oltpbench report compare --baseline "$work/A" --candidate "$work/C" --baseline-name A --candidate-name C | grep -E "threads:|QPS of"
echo "== A, B, C as a release history (want: where it got worse names B -> C)"
out=$(bin/oltpbench report compare "$work/A" "$work/B" "$work/C" --names A,B,C)
echo "$out" | grep -E "by version:|threads: QPS .* from A to C"
echo "$out" | grep -q "threads: QPS .* from A to C .*first between B and C" || { echo "bench-verdict: the drop was not located between B and C" >&2; exit 1; }
