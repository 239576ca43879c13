#!/usr/bin/env bash
# make bench-plan: a plan against the shell loops it replaces. The same matrix (oltp_point_select at
# LEVELS threads, DUR seconds each) as `oltpbench plan run`, as a loop of the real sysbench 1.0.20 and
# as a loop of `oltpbench sysbench`, PAIRS rounds on one throwaway MariaDB, the order rotating every
# round. Prints per round the wall time of each beyond the measured seconds (what a cell costs around
# its run); then medians of that and of QPS per level, and ratios to the sysbench loop.
# Knobs: PAIRS (3), DUR (10), LEVELS ("4 16 64").
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
DUR=${DUR:-10}
LEVELS=${LEVELS:-"4 16 64"}
command -v sysbench >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench >/dev/null; }
dir="$PWD/.mariadb-bench"
scripts/mariadb-start.sh "$dir"
work=$(mktemp -d -p "$PWD" .bench-plan.XXXX)
trap 'scripts/mariadb-stop.sh "$dir" --wipe; rm -rf "$work"' EXIT
. "$dir/env"
conn=(--mysql-host=127.0.0.1 --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --mysql-db=sbtest)
data=(--tables=4 --table-size=100000)
bin/oltpbench sysbench oltp_point_select "${conn[@]}" "${data[@]}" --threads=4 prepare >/dev/null
levels=$(echo "$LEVELS" | tr ' ' ',')
cat >"$work/plan.toml" <<PLAN
[dataset]
workload = "sysbench"
options = { tables = 4, table-size = 100000 }
[[step]]
test = "oltp_point_select"
threads = [$levels]
time = "${DUR}s"
PLAN
n=$(echo "$LEVELS" | wc -w)
. scripts/bench-lib.sh # median, pair_row, alternate
qps() { awk '/^    queries:/ {gsub(/\(/, "", $3); print $3}' "$@"; }
# one KIND ROUND: runs the matrix, appends the seconds beyond the runs to KIND.over and QPS to KIND.TH
one() {
  local k=$1 i=$2 s e th
  s=$(date +%s.%N)
  case $k in
  plan) bin/oltpbench plan run "$work/plan.toml" --result-dir "$work/plan$i" -- "${conn[@]}" >"$work/plan$i.log" ;;
  sysbench) for th in $LEVELS; do sysbench oltp_point_select "${conn[@]}" "${data[@]}" --threads="$th" --time="$DUR" run >"$work/$k$i-$th.log"; done ;;
  oltpbench) for th in $LEVELS; do bin/oltpbench sysbench oltp_point_select "${conn[@]}" "${data[@]}" --threads="$th" --time="$DUR" run >"$work/$k$i-$th.log"; done ;;
  esac
  e=$(date +%s.%N)
  echo "$e - $s - $n * $DUR" | bc >>"$work/$k.over"
  for th in $LEVELS; do
    if [ "$k" = plan ]; then qps "$work/plan$i/oltp_point_select-${th}threads-r1.log"; else qps "$work/$k$i-$th.log"; fi >>"$work/$k.$th"
  done
}
kinds=(plan sysbench oltpbench)
for i in $(seq 1 "$PAIRS"); do
  for j in 0 1 2; do one "${kinds[$(( (i + j) % 3 ))]}" "$i"; done
  printf "round %d: beyond the %d measured seconds: plan %.2f s, sysbench loop %.2f s, oltpbench loop %.2f s\n" "$i" $((n * DUR)) \
    "$(tail -1 "$work/plan.over")" "$(tail -1 "$work/sysbench.over")" "$(tail -1 "$work/oltpbench.over")"
done
for k in "${kinds[@]}"; do
  o=$(median <"$work/$k.over")
  printf "%-16s median time beyond the runs: %.2f s for %d cells (%.2f s a cell)\n" "$k" "$o" "$n" "$(echo "$o / $n" | bc -l)"
done
for th in $LEVELS; do
  p=$(median <"$work/plan.$th"); q=$(median <"$work/sysbench.$th"); d=$(median <"$work/oltpbench.$th")
  printf "%4d threads: QPS plan %.0f, oltpbench loop %.0f, sysbench loop %.0f; plan / sysbench %.2fx, plan / oltpbench loop %.2fx\n" \
    "$th" "$p" "$d" "$q" "$(echo "$p / $q" | bc -l)" "$(echo "$p / $d" | bc -l)"
done
