#!/usr/bin/env bash
# make bench-lua: the same Lua files (copies of sysbench's stock scripts, so
# that oltpbench runs them in its embedded Lua) under the real sysbench
# 1.0.20 (LuaJIT) and under oltpbench, alternately, on one throwaway MariaDB.
# Prints per pair and as medians: QPS and client CPU per event (user+sys of
# the client process / events), oltpbench / sysbench; then peak RSS of both
# at MEM_THREADS threads running oltp_read_write.lua.
# Knobs: PAIRS (default 5), DUR seconds (default 10), TESTS, THREADS, MEM_THREADS, VERBOSE=1 (every run).
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-5}
DUR=${DUR:-10}
TESTS=${TESTS:-"oltp_point_select oltp_read_write"}
THREADS=${THREADS:-"16 256"}
MEM_THREADS=${MEM_THREADS:-1024}
need=()
command -v sysbench >/dev/null || need+=(sysbench)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
dir="$PWD/.mariadb-bench"
# sysbench prepares 18 statements per table and thread: 1,024 threads need more than the default 16,382.
MARIADB_EXTRA_ARGS="--max-prepared-stmt-count=1048576" MARIADB_BUFFER_POOL=4G scripts/mariadb-start.sh "$dir"
out=$(mktemp -d)
trap 'scripts/mariadb-stop.sh "$dir" --wipe; rm -rf "$out"' EXIT
. "$dir/env"
mkdir -p "$out/lua"
for t in oltp_common oltp_read_write $TESTS; do cp "/usr/share/sysbench/$t.lua" "$out/lua/$t.lua"; done
conn=(--mysql-host="$OLTPBENCH_TEST_HOST" --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=100000)
mariadb --no-defaults -uroot -S "$OLTPBENCH_TEST_SOCKET" -e "CREATE DATABASE IF NOT EXISTS sbtest"
bin/oltpbench sysbench oltp_common "${conn[@]}" --threads=2 --progress=off prepare >/dev/null
bin/oltpbench sysbench oltp_common "${conn[@]}" --threads=2 prewarm >/dev/null

. scripts/bench-lib.sh # median, pair_row, alternate

# run TOOL ARGS...: prints "qps cpu_us_per_event peak_rss_mb"
run() {
  local tool=$1; shift
  local bin=(sysbench)
  [ "$tool" = oltpbench ] && bin=(bin/oltpbench sysbench)
  /usr/bin/time -f "%U %S %M" -o "$out/time" "${bin[@]}" "$@" >"$out/log" 2>&1 || { cat "$out/log" >&2; return 1; }
  read -r u s m <"$out/time"
  awk -v u="$u" -v s="$s" -v m="$m" '/^    queries:/ {q=$3} /total number of events:/ {n=$5}
    END {gsub(/[(]/, "", q); printf "%.1f %.3f %.0f\n", q, (u+s)*1e6/n, m/1024}' "$out/log"
}

printf "%-22s %7s | %10s %10s %7s | %9s %9s %7s\n" script threads "sb QPS" "ob QPS" ratio "sb us/ev" "ob us/ev" ratio
for test in $TESTS; do
  for th in $THREADS; do
    : >"$out/pairs"
    run oltpbench "$out/lua/$test.lua" "${conn[@]}" --threads="$th" --time=2 run >/dev/null # warm-up
    alternate "$out/pairs" sysbench oltpbench "$out/lua/$test.lua" "${conn[@]}" --threads="$th" --time="$DUR" run
    pair_row "$out/pairs" sysbench oltpbench "$test.lua" "$th"
  done
done

echo
echo "== peak RSS, oltp_read_write.lua at $MEM_THREADS threads, 10 s (max_connections 5000)"
for tool in sysbench oltpbench; do
  r=$(run "$tool" "$out/lua/oltp_read_write.lua" "${conn[@]}" --threads="$MEM_THREADS" --time=10 --mysql-ignore-errors=all run 2>/dev/null) || r="failed"
  echo "  $tool: $(echo "$r" | awk '{print $3}') MB (QPS $(echo "$r" | awk '{print $1}'))"
done
