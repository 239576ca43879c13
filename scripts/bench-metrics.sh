#!/usr/bin/env bash
# make bench-metrics: the cost of --metrics-addr. Runs the same sysbench
# test with and without --metrics-addr, alternating, on one throwaway
# MariaDB; with it, a scraper reads /metrics every second (as Prometheus
# does, the text format). Prints medians: QPS and client
# CPU per query (user+sys of the client / queries), with / without
# (VERBOSE=1: every run's figures too).
# Knobs: PAIRS (default 5), DUR seconds (default 10), TESTS, THREADS;
# SCRAPE=0 serves the endpoint without scraping it (the listener alone).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
DUR=${DUR:-10}
TESTS=${TESTS:-"oltp_point_select oltp_read_write"}
THREADS=${THREADS:-"16 256"}
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time curl >/dev/null; }
dir="$PWD/.mariadb-bench"
MARIADB_BUFFER_POOL=2G scripts/mariadb-start.sh "$dir"
out=$(mktemp -d)
trap 'scripts/mariadb-stop.sh "$dir" --wipe; rm -rf "$out"' EXIT
. "$dir/env"
conn=(--mysql-host="$OLTPBENCH_TEST_HOST" --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=100000)
mariadb --no-defaults -uroot -S "$OLTPBENCH_TEST_SOCKET" -e "CREATE DATABASE IF NOT EXISTS sbtest"
bin/oltpbench sysbench oltp_common "${conn[@]}" --threads=2 --progress=off prepare >/dev/null
bin/oltpbench sysbench oltp_common "${conn[@]}" --threads=2 prewarm >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || go run scripts/freeport.go)

. scripts/bench-lib.sh # median, pair_row, alternate

# run MODE ARGS...: prints "qps cpu_us_per_query"; MODE "on" adds --metrics-addr and scrapes it every second.
run() {
  local mode=$1; shift
  local extra=() scraper=
  if [ "$mode" = on ]; then
    extra=(--metrics-addr="127.0.0.1:$port")
    if [ "${SCRAPE:-1}" != 0 ]; then
      (while sleep 1; do curl -s "http://127.0.0.1:$port/metrics" >/dev/null || true; done) &
      scraper=$!
    fi
  fi
  /usr/bin/time -f "%U %S" -o "$out/time" bin/oltpbench sysbench "$@" "${extra[@]}" >"$out/log" 2>&1 || { cat "$out/log" >&2; return 1; }
  [ -n "$scraper" ] && kill "$scraper" 2>/dev/null && wait "$scraper" 2>/dev/null || true
  read -r u s <"$out/time"
  awk -v u="$u" -v s="$s" '/^    queries:/ {q=$2; qps=$3} END {gsub(/[(]/, "", qps); printf "%.1f %.3f\n", qps, (u+s)*1e6/q}' "$out/log"
}

printf "%-22s %7s | %10s %10s %7s | %9s %9s %7s\n" test threads "off QPS" "on QPS" ratio "off us/q" "on us/q" ratio
for test in $TESTS; do
  for th in $THREADS; do
    : >"$out/pairs"
    run off "$test" "${conn[@]}" --threads="$th" --time=2 run >/dev/null # warm-up
    alternate "$out/pairs" off on "$test" "${conn[@]}" --threads="$th" --time="$DUR" run
    pair_row "$out/pairs" off on "$test" "$th"
  done
done
