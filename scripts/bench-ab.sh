#!/usr/bin/env bash
# scripts/bench-ab.sh REV: oltpbench at REV (A) against the working tree (B),
# alternately, on one throwaway MariaDB: sysbench point select and read_write
# (QPS, client CPU per query) and TPC-C (tpmC, client CPU per New-Order).
# Prints each pair and the medians of the B/A ratios: the check that a change
# costs no speed. Knobs: PAIRS (default 4), DUR seconds per run (default 10),
# THREADS (default 16), WAREHOUSES (default 2), TESTS (default all three),
# A_ARGS and B_ARGS (options added to A's and B's runs). REV "." is the
# working tree for A too: with A_ARGS or B_ARGS, the cost of an option, e.g.
# A_ARGS=--statement-latency=false scripts/bench-ab.sh .
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: scripts/bench-ab.sh REV (e.g. HEAD~3)}
PAIRS=${PAIRS:-4}
DUR=${DUR:-10}
THREADS=${THREADS:-16}
WAREHOUSES=${WAREHOUSES:-2}
TESTS=${TESTS:-"oltp_point_select oltp_read_write tpcc"}
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/oltpbench-b" ./cmd/oltpbench
if [ "$rev" = . ]; then
  cp "$work/oltpbench-b" "$work/oltpbench-a"
else
  git worktree add -q --detach "$work/a" "$rev"
  (cd "$work/a" && go build -o "$work/oltpbench-a" ./cmd/oltpbench)
  git worktree remove --force "$work/a"
fi
read -r -a a_args <<<"${A_ARGS:-}"
read -r -a b_args <<<"${B_ARGS:-}"
dir="$PWD/.mariadb-bench"
MARIADB_BUFFER_POOL=4G scripts/mariadb-start.sh "$dir"
trap 'scripts/mariadb-stop.sh "$dir" --wipe; rm -rf "$work"' EXIT
. "$dir/env"
conn=(--mysql-host="$OLTPBENCH_TEST_HOST" --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root)
sb=("${conn[@]}" --mysql-db=sbtest --tables=4 --table-size=250000)
tp=("${conn[@]}" --mysql-db=tpcc --warehouses="$WAREHOUSES")
"$work/oltpbench-b" sysbench oltp_common "${sb[@]}" --threads=2 --progress=off prepare >/dev/null
"$work/oltpbench-b" sysbench oltp_common "${sb[@]}" --threads=2 prewarm >/dev/null
"$work/oltpbench-b" tpcc prepare "${tp[@]}" --threads=2 --progress=off >/dev/null

. scripts/bench-lib.sh # median, pair_row, alternate

# one BIN WHAT [ARGS...]: prints "throughput cpu_us_per_unit"
one() {
  local bin=$1 what=$2
  shift 2
  case $what in
  tpcc)
    /usr/bin/time -f "%U %S" -o "$work/time" "$bin" tpcc run "${tp[@]}" --threads="$THREADS" --time="${DUR}s" --report-interval=0 "$@" >"$work/log" 2>&1 ||
      { cat "$work/log" >&2; return 1; }
    read -r u s <"$work/time"
    awk -v u="$u" -v s="$s" -v d="$DUR" '/^new_order / {n=$2} /^tpmC:/ {t=$2} END {sub(",", "", t); printf "%.1f %.1f\n", t, (u+s)*1e6/n}' "$work/log" ;;
  *)
    /usr/bin/time -f "%U %S" -o "$work/time" "$bin" sysbench "$what" "${sb[@]}" --threads="$THREADS" --time="$DUR" "$@" run >"$work/log" 2>&1 ||
      { cat "$work/log" >&2; return 1; }
    read -r u s <"$work/time"
    awk -v u="$u" -v s="$s" '/^    queries:/ {n=$2; q=$3} END {gsub(/[(]/, "", q); printf "%.1f %.3f\n", q, (u+s)*1e6/n}' "$work/log" ;;
  esac
}

for what in $TESTS; do
  unit="QPS, client CPU us per query"
  [ "$what" = tpcc ] && unit="tpmC, client CPU us per New-Order"
  echo "== $what, $THREADS threads, $DUR s per run, $PAIRS pairs ($unit): A=$rev ${A_ARGS:-} B=working tree ${B_ARGS:-}"
  one "$work/oltpbench-a" "$what" >/dev/null # warm-up, unmeasured
  : >"$work/r"
  for i in $(seq "$PAIRS"); do
    # Alternate which goes first, so neither always meets the server's state after the other.
    if [ $((i % 2)) -eq 1 ]; then a=$(one "$work/oltpbench-a" "$what" "${a_args[@]}"); b=$(one "$work/oltpbench-b" "$what" "${b_args[@]}")
    else b=$(one "$work/oltpbench-b" "$what" "${b_args[@]}"); a=$(one "$work/oltpbench-a" "$what" "${a_args[@]}"); fi
    echo "pair $i: A $a | B $b"
    echo "$a $b" >>"$work/r"
  done
  awk '{print $3/$1}' "$work/r" | median | xargs printf "median B/A throughput: %.3f\n"
  awk '{print $4/$2}' "$work/r" | median | xargs printf "median B/A client CPU per unit: %.3f\n"
done
