#!/usr/bin/env bash
# make demo: a throwaway MariaDB, a sysbench dataset prepared by oltpbench's
# parallel loader, three tests run for a few seconds each with reports, a small
# TPC-C load, checks and run, then everything removed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="$PWD/.mariadb-demo"
scripts/mariadb-start.sh "$dir"
trap 'scripts/mariadb-stop.sh "$dir" --wipe' EXIT
. "$dir/env"
ob() { bin/oltpbench sysbench "$@" --mysql-host="$OLTPBENCH_TEST_HOST" --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=100000; }
echo "== prepare: 4 tables x 100,000 rows (--notes adds the loader's own lines to sysbench's)"
ob oltp_common --threads=2 --notes prepare
for t in oltp_point_select oltp_read_only oltp_read_write; do
  echo; echo "== $t: 16 threads, 5 s"
  ob "$t" --threads=16 --time=5 --report-interval=1 --percentiles=50,95,99 --result-file="$dir/$t.json" run
done
echo; echo "== cleanup"
ob oltp_common cleanup
tp() { bin/oltpbench tpcc "$@" --mysql-host="$OLTPBENCH_TEST_HOST" --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --db=tpcc --warehouses=2; }
echo; echo "== TPC-C: prepare 2 warehouses, check, run 10 s with 8 threads, check"
tp prepare --threads=2
tp check --checks=all
tp run --threads=8 --time=10s --report-interval=5s --result-file="$dir/tpcc.json"
tp check
echo; echo "== the same run, read back from its result file"
bin/oltpbench report show "$dir/tpcc.json"
