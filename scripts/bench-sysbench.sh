#!/usr/bin/env bash
# make bench-sysbench: the real sysbench 1.0.20 and oltpbench, alternately,
# against the same throwaway MariaDB with the same options. Prints per-pair
# figures, medians and ratios (oltpbench / sysbench):
#   QPS, client CPU per query (user+sys of the client process / queries),
#   prepare wall time (4 tables x 250,000 rows, --threads=2).
# Knobs: PAIRS (default 3), DUR seconds per run (default 20), TESTS, THREADS, PREPARE=0 skips the prepare
# comparison, ARGS (options both tools' runs get, e.g. ARGS=--mysql-compression=on), LAYOUTS: "shared" (default: client and server share every CPU) and/or "pinned" (the server's
# threads on CPU 0, the client on CPU 1 under taskset, so the client's CPU per query is its own, not shaded by
# the server's; `LAYOUTS="pinned shared" THREADS="1 4 16 64 256" PAIRS=5` shows where the two tools cross).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
DUR=${DUR:-20}
TESTS=${TESTS:-"oltp_point_select oltp_read_write"}
THREADS=${THREADS:-"16 256"}
LAYOUTS=${LAYOUTS:-shared}
PREPARE=${PREPARE:-1}
read -r -a args <<<"${ARGS:-}"
need=()
command -v sysbench >/dev/null || need+=(sysbench)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
dir="$PWD/.mariadb-bench"
MARIADB_BUFFER_POOL=4G scripts/mariadb-start.sh "$dir"
trap 'scripts/mariadb-stop.sh "$dir" --wipe' EXIT
. "$dir/env"
conn=(--mysql-host="$OLTPBENCH_TEST_HOST" --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=250000)
mariadb --no-defaults -uroot -S "$OLTPBENCH_TEST_SOCKET" -e "CREATE DATABASE IF NOT EXISTS sbtest"
out=$(mktemp -d)

. scripts/bench-lib.sh # median, pair_row, alternate

pid=$(cat "$dir/mysqld.pid")
all=$(printf %x $(( (1 << $(nproc)) - 1 )))
# taskset -a walks the server's threads; one that exits meanwhile fails it: try again.
pin() { for _ in 1 2 3 4 5 6 7 8 9 10; do taskset -a -p "$1" "$pid" >/dev/null 2>&1 && return 0; sleep 0.2; done; taskset -a -p "$1" "$pid"; }
client=() # the client's taskset prefix in the pinned layout

# run TOOL ARGS...: prints "qps cpu_us_per_query wall_s"
run() {
  local tool=$1; shift
  local bin=(sysbench)
  [ "$tool" = oltpbench ] && bin=(bin/oltpbench sysbench)
  /usr/bin/time -f "%U %S %e" -o "$out/time" "${client[@]}" "${bin[@]}" "$@" >"$out/log" 2>&1 || { cat "$out/log" >&2; return 1; }
  read -r u s e <"$out/time"
  local q
  q=$(awk '/^    queries:/ {print $2, $3}' "$out/log" | tr -d '(')
  if [ -z "$q" ]; then echo "0 0 $e"; return; fi
  set -- $q
  awk -v n="$1" -v qps="$2" -v u="$u" -v s="$s" -v e="$e" 'BEGIN {printf "%.1f %.3f %.2f\n", qps, (u+s)*1e6/n, e}'
}

if [ "$PREPARE" = 1 ]; then
echo "== prepare: 4 tables x 250,000 rows, --threads=2 ($PAIRS pairs, alternating)"
# Two unmeasured prepares by each tool first: a freshly started server faults in its buffer pool during its
# first loads (about 0.4 s per load here, until about 1 GB is resident), which would weigh on whichever tool
# meets it, and most on the one that keeps the server busiest.
for tool in sysbench oltpbench sysbench oltpbench; do
  bin/oltpbench sysbench oltp_common "${conn[@]}" cleanup >/dev/null
  r=$(run "$tool" oltp_common "${conn[@]}" --threads=2 prepare)
  echo "  warm-up $tool: $(echo "$r" | awk '{print $3}') s (not counted)"
done
: >"$out/prep"
for i in $(seq 1 "$PAIRS"); do
  for tool in sysbench oltpbench; do
    [ $((i % 2)) -eq 0 ] && tool=$([ "$tool" = sysbench ] && echo oltpbench || echo sysbench)
    bin/oltpbench sysbench oltp_common "${conn[@]}" cleanup >/dev/null
    r=$(run "$tool" oltp_common "${conn[@]}" --threads=2 prepare)
    echo "  pair $i $tool: $(echo "$r" | awk '{print $3}') s"
    echo "$tool $r" >>"$out/prep"
  done
done
sb=$(awk '$1=="sysbench" {print $4}' "$out/prep" | median)
ob=$(awk '$1=="oltpbench" {print $4}' "$out/prep" | median)
pr=$(awk '{v[$1]=$4} NR%2==0 {print v["oltpbench"]/v["sysbench"]}' "$out/prep" | median)
echo "  median: sysbench ${sb} s, oltpbench ${ob} s, ratio $(awk -v a="$ob" -v b="$sb" 'BEGIN{printf "%.2f", a/b}')x; median of the pairs' ratios $(printf %.2f "$pr")x (target <= 0.5x)"
bin/oltpbench sysbench oltp_common "${conn[@]}" cleanup >/dev/null
fi
bin/oltpbench sysbench oltp_common "${conn[@]}" cleanup >/dev/null 2>&1 || true
bin/oltpbench sysbench oltp_common "${conn[@]}" --threads=2 prepare >/dev/null
bin/oltpbench sysbench oltp_common "${conn[@]}" --threads=2 prewarm >/dev/null

for layout in $LAYOUTS; do
if [ "$layout" = pinned ]; then
  pin 1
  client=(taskset -c 1)
  echo; echo "== pinned: the server on CPU 0, the client on CPU 1"
else
  pin "$all"
  client=()
  echo; echo "== shared: client and server on all $(nproc) CPUs"
fi
printf "%-18s %7s | %10s %10s %6s | %9s %9s %6s\n" test threads "sb QPS" "ob QPS" ratio "sb us/q" "ob us/q" ratio
for test in $TESTS; do
  for th in $THREADS; do
    : >"$out/pairs"
    for i in $(seq 1 "$PAIRS"); do
      order="sysbench oltpbench"
      [ $((i % 2)) -eq 0 ] && order="oltpbench sysbench"
      for tool in $order; do
        echo "$tool $(run "$tool" "$test" "${conn[@]}" "${args[@]}" --threads="$th" --time="$DUR" run)" >>"$out/pairs"
      done
    done
    sq=$(awk '$1=="sysbench" {print $2}' "$out/pairs" | median); oq=$(awk '$1=="oltpbench" {print $2}' "$out/pairs" | median)
    sc=$(awk '$1=="sysbench" {print $3}' "$out/pairs" | median); oc=$(awk '$1=="oltpbench" {print $3}' "$out/pairs" | median)
    printf "%-18s %7s | %10.0f %10.0f %5.2fx | %9.2f %9.2f %5.2fx\n" "$test" "$th" "$sq" "$oq" "$(awk -v a="$oq" -v b="$sq" 'BEGIN{print a/b}')" \
      "$sc" "$oc" "$(awk -v a="$oc" -v b="$sc" 'BEGIN{print a/b}')"
    awk '{printf "    %s qps=%s cpu_us/q=%s\n", $1, $2, $3}' "$out/pairs"
    # Each pair ran back to back, so its ratio is the least exposed to the machine's slow phases.
    pq=$(awk '{v[$1]=$2; c[$1]=$3} NR%2==0 {print v["oltpbench"]/v["sysbench"]}' "$out/pairs" | median)
    pc=$(awk '{v[$1]=$2; c[$1]=$3} NR%2==0 {print c["oltpbench"]/c["sysbench"]}' "$out/pairs" | median)
    printf "    median of the pairs' ratios: QPS %.2fx, client CPU per query %.2fx\n" "$pq" "$pc"
  done
done
done
pin "$all"
echo "(QPS ratio target >= 1.0x; CPU per query ratio target <= 1.0x)"
