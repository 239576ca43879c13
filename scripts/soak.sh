#!/usr/bin/env bash
# An hour's soak (make soak; SOAK_MIN to change): sysbench oltp_read_write at
# 64 threads and TPC-C at 32 threads against a throwaway MariaDB that is
# restarted every SOAK_RESTART_MIN minutes (10). Each client is one process
# for the whole soak, so that its memory and descriptors over time mean
# something: both run side by side, and their RSS, open descriptors and
# goroutines are read from their own /metrics every minute.
# Fails when, over the last half of the soak, either client's RSS or open
# descriptors grow by more than 5%, or when an event is lost or doubled:
# every sysbench table still holds its rows (each event deletes and inserts
# one), TPC-C's check passes and the orders the server gained are the
# New-Orders counted less the 1% that roll back by design (their count is in
# TPC-C's run-time audit), give or take those whose commit was cut by a
# restart or by the clients' stop: in doubt.
# Writes DIR/samples.csv (minute, client, rss_bytes, fds, goroutines) and
# prints a summary. Usage: scripts/soak.sh [DIR]   (default: a temporary one)
# SOAK_TABLE_SIZE, SOAK_WAREHOUSES and SOAK_SAMPLE_S (a "minute" in seconds)
# shrink it for a test; SOAK_SB_RATE (sysbench's --rate) paces sysbench and
# SOAK_TPCC_TPM (tpcc's --limit-tpm) paces TPC-C (default: as fast as they go).
set -euo pipefail
cd "$(dirname "$0")/.."
min=${SOAK_MIN:-60}
every=${SOAK_RESTART_MIN:-10}
sample=${SOAK_SAMPLE_S:-60}
sb_threads=${SOAK_SB_THREADS:-64}
tp_threads=${SOAK_TPCC_THREADS:-32}
dir=${1:-$(mktemp -d "${TMPDIR:-/tmp}/oltpbench-soak.XXXXXX")}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bin=bin/oltpbench
[ -x "$bin" ] || make build >/dev/null

srv=$dir/mariadb
MARIADB_BUFFER_POOL=${MARIADB_BUFFER_POOL:-512M} scripts/mariadb-start.sh "$srv"
port=$(cat "$srv/port")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  scripts/mariadb-stop.sh "$srv" >/dev/null 2>&1 || true
}
trap cleanup EXIT
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
sql() { mariadb --no-defaults -uroot -h127.0.0.1 -P"$port" -N -B -e "$1"; }
conn=(--mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=root)

tables=4 size=${SOAK_TABLE_SIZE:-50000} wh=${SOAK_WAREHOUSES:-4}
echo "soak: $min min, restarts every $every min, server on port $port, files in $dir"
sql "DROP DATABASE IF EXISTS soak_sb; CREATE DATABASE soak_sb; DROP DATABASE IF EXISTS soak_tpcc; CREATE DATABASE soak_tpcc"
"$bin" sysbench oltp_read_write prepare --tables=$tables --table-size=$size --threads=2 "${conn[@]}" --mysql-db=soak_sb >"$dir/sb-prepare.log" 2>&1
"$bin" tpcc prepare --warehouses=$wh --threads=2 "${conn[@]}" --db=soak_tpcc >"$dir/tpcc-prepare.log" 2>&1
orders0=$(sql "SELECT COUNT(*) FROM soak_tpcc.orders")

sbport=$(freeport) tpport=$(freeport)
"$bin" sysbench oltp_read_write run --tables=$tables --table-size=$size --threads="$sb_threads" --time=$(((2 * min + 2) * sample)) \
  --rate="${SOAK_SB_RATE:-0}" --report-interval=60 --mysql-ignore-errors=all --metrics-addr=127.0.0.1:$sbport --result-file="$dir/sb.json" \
  "${conn[@]}" --mysql-db=soak_sb >"$dir/sb.log" 2>&1 &
pids+=($!)
sbpid=$!
"$bin" tpcc run --warehouses=$wh --threads="$tp_threads" --time=$(((2 * min + 2) * sample))s --limit-tpm="${SOAK_TPCC_TPM:-0}" --report-interval=60s \
  --metrics-addr=127.0.0.1:$tpport --result-file="$dir/tpcc.json" "${conn[@]}" --db=soak_tpcc >"$dir/tpcc.log" 2>&1 &
pids+=($!)
tppid=$!

metric() { # port name -> value
  curl -s --max-time 5 "http://127.0.0.1:$1/metrics" | awk -v n="$2" '$1 == n { printf "%d", $2; exit }'
}
echo "minute,client,rss_bytes,fds,goroutines" >"$dir/samples.csv"
start=$(date +%s)
restarts=0
for m in $(seq 1 "$min"); do
  # Sleep to the minute's mark, restarting the server on the way when due.
  while [ $(($(date +%s) - start)) -lt $((m * sample)) ]; do sleep 1; done
  for c in sb:$sbport tpcc:$tpport; do
    name=${c%%:*} p=${c#*:}
    echo "$m,$name,$(metric "$p" process_resident_memory_bytes),$(metric "$p" process_open_fds),$(metric "$p" go_goroutines)" >>"$dir/samples.csv"
  done
  if [ $((m % every)) -eq 0 ] && [ "$m" -lt "$min" ]; then
    scripts/mariadb-stop.sh "$srv" && MARIADB_BUFFER_POOL=${MARIADB_BUFFER_POOL:-512M} scripts/mariadb-start.sh "$srv"
    restarts=$((restarts + 1))
    echo "soak: minute $m: server restarted"
  fi
done
# The clients run until the last sample is taken, then are stopped (SIGTERM:
# each prints its report and exits 0); their --time is only a ceiling, as
# restarts on a busy machine can take longer than the schedule allows.
kill -TERM "$sbpid" "$tppid" 2>/dev/null || true
fail=0
wait "$sbpid" || { echo "soak: FAIL: sysbench run exited non-zero, see $dir/sb.log"; fail=1; }
wait "$tppid" || { echo "soak: FAIL: tpcc run exited non-zero, see $dir/tpcc.log"; fail=1; }
pids=()

# Growth over the last half: the mean of the last three samples against the
# mean of the three at the start of the last half.
half=$((min / 2))
growth=$(python3 - "$dir/samples.csv" "$half" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
half = int(sys.argv[2])
for client in ("sb", "tpcc"):
    r = [x for x in rows if x["client"] == client and x["rss_bytes"] and x["fds"] and x["goroutines"]]
    last = [x for x in r if int(x["minute"]) > half]
    if len(last) < 3:
        print(f"{client} too-few-samples 0 0")
        continue
    for k in ("rss_bytes", "fds"):
        a = sum(float(x[k]) for x in last[:3]) / 3
        b = sum(float(x[k]) for x in last[-3:]) / 3
        print(f"{client} {k} {a:.0f} {b:.0f} {100 * (b - a) / a:.1f}")
    g = [int(x["goroutines"]) for x in r]
    print(f"{client} goroutines {min(g)} {max(g)} -")
EOF
)
echo "$growth" | while read -r c k a b pct; do
  if [ "$k" = goroutines ]; then echo "soak: $c goroutines: between $a and $b"; else echo "soak: $c $k: $a -> $b ($pct%)"; fi
done
if echo "$growth" | awk '$2 == "too-few-samples" || ($2 != "goroutines" && $5 > 5) { bad = 1 } END { exit !bad }'; then
  echo "soak: FAIL: a client's RSS or descriptors grew more than 5% over the last half (or too few samples)"
  fail=1
fi

# Nothing lost or doubled.
for i in $(seq 1 $tables); do
  n=$(sql "SELECT COUNT(*) FROM soak_sb.sbtest$i")
  [ "$n" = "$size" ] || { echo "soak: FAIL: sbtest$i holds $n rows, want $size"; fail=1; }
done
"$bin" tpcc check --warehouses=$wh "${conn[@]}" --db=soak_tpcc >"$dir/tpcc-check.log" 2>&1 ||
  { echo "soak: FAIL: tpcc check, see $dir/tpcc-check.log"; fail=1; }
orders1=$(sql "SELECT COUNT(*) FROM soak_tpcc.orders")
read -r counted reconnects < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(next(o["count"] for o in d["ops"] if o["name"] == "new_order"), d["totals"].get("reconnects", 0))' "$dir/tpcc.json")
gained=$((orders1 - orders0))
# The audit's line: "New-Order rollbacks ... PASS (12 of 1234)".
rollbacks=$(sed -n 's/^ *New-Order rollbacks .*(\([0-9]*\) of [0-9]*)$/\1/p' "$dir/tpcc.log" | tail -n 1) # the final audit's
if [ -z "$rollbacks" ]; then
  echo "soak: FAIL: no New-Order rollbacks line in TPC-C's audit, see $dir/tpcc.log"
  rollbacks=0 fail=1
fi
committed=$((counted - rollbacks))
echo "soak: TPC-C: $committed New-Orders committed ($rollbacks rolled back by design), the server gained $gained orders, $reconnects reconnects; $restarts restarts"
# Every New-Order committed is an order, none lost; a commit cut by a
# restart or by the stop may have landed without being counted (at most one
# a reconnect, and one a terminal at the stop).
if [ "$gained" -gt $((committed + reconnects + tp_threads)) ] || [ "$gained" -lt "$committed" ]; then
  echo "soak: FAIL: orders gained $gained for $committed New-Orders committed"
  fail=1
fi
grep -E "transactions:|reconnects:" "$dir/sb.log" | sed 's/^ */soak: sysbench: /'
[ "$fail" -eq 0 ] && echo "soak: PASS"
exit "$fail"
