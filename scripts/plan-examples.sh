#!/usr/bin/env bash
# make plan-examples: every shipped example plan (deploy/plans), scaled down, run three times on a throwaway
# MariaDB, a release history of three "versions": A as the server starts, B with
# innodb_flush_log_at_trx_commit=1 (the server starts with 2: a cost at each commit, none for reads), C with
# that and the server on one CPU (taskset); then report compare A B C in markdown and HTML. Seed 004's
# repeats let the report locate drops: point select must be found steady from A to B and falling from B
# to C (the script fails otherwise).
# Knobs: OUT (the reports' folder, default .plan-examples), PLANS (names, default all four).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/.plan-examples}
PLANS=${PLANS:-"sysbench-versions tpcc-versions sysbench-p95 sysbench-release"}
declare -A SCALE=([sysbench-versions]=0.01 [tpcc-versions]=0.004 [sysbench-p95]=0.0025 [sysbench-release]=0.0025)
dir="$PWD/.mariadb-plans"
scripts/mariadb-start.sh "$dir"
pid=$(cat "$dir/mysqld.pid")
all=$(printf %x $(( (1 << $(nproc)) - 1 )))
mkdir -p "$OUT"
trap 'cp "$dir/error.log" "$OUT/mariadb-error.log" 2>/dev/null; taskset -a -p "$all" "$pid" >/dev/null 2>&1 || true; scripts/mariadb-stop.sh "$dir" --wipe' EXIT
. "$dir/env"
# taskset -a walks the server's threads; one that exits meanwhile fails it: try again.
pin() { for _ in 1 2 3 4 5 6 7 8 9 10; do taskset -a -p "$1" "$pid" >/dev/null 2>&1 && return 0; sleep 0.2; done; taskset -a -p "$1" "$pid"; }
sql() { mysql -uroot -h127.0.0.1 -P"$OLTPBENCH_TEST_PORT" -e "$1"; }
for p in $PLANS; do
  conn=(--mysql-host=127.0.0.1 --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --mysql-db="${p//-/_}") # a database per plan: each verifies its own dataset
  rm -rf "$OUT/$p"
  bin/oltpbench plan show "deploy/plans/$p.toml" --scale="${SCALE[$p]}" | tail -1
  start=$(date +%s)
  bin/oltpbench plan run "deploy/plans/$p.toml" --scale="${SCALE[$p]}" --result-dir "$OUT/$p/A" -- "${conn[@]}" >"$OUT/$p-A.log"
  sql "SET GLOBAL innodb_flush_log_at_trx_commit = 1"
  bin/oltpbench plan run "deploy/plans/$p.toml" --scale="${SCALE[$p]}" --result-dir "$OUT/$p/B" -- "${conn[@]}" >"$OUT/$p-B.log"
  pin 1
  bin/oltpbench plan run "deploy/plans/$p.toml" --scale="${SCALE[$p]}" --result-dir "$OUT/$p/C" -- "${conn[@]}" >"$OUT/$p-C.log"
  pin "$all"
  sql "SET GLOBAL innodb_flush_log_at_trx_commit = 2"
  for f in markdown html; do
    bin/oltpbench report compare "$OUT/$p/A" "$OUT/$p/B" "$OUT/$p/C" --names "A,B (flush=1),C (flush=1 + 1 CPU)" --format=$f >"$OUT/$p.${f/markdown/md}"
  done
  echo "== $p at scale ${SCALE[$p]}: three versions in $(( $(date +%s) - start )) s; $OUT/$p.md"
  grep -E "increased|decreased|by version:|^- .*threads: |^\| [A-Za-z].* \| [0-9]+ \| [0-9.]+ \| [0-9.]+ \||innodb_flush" "$OUT/$p.md" || true
  if [ "$p" = sysbench-release ]; then
    where=$(awk '/^### Point Select test/{on=1} /^### /&&!/Point Select test/{on=0} on' "$OUT/$p.md" | grep -E "^- [0-9]+ threads: QPS " || true)
    echo "$where"
    if [ -z "$where" ] || echo "$where" | grep -qv "first between B (flush=1) and C (flush=1 + 1 CPU)"; then
      echo "plan-examples: the report did not locate point select's drop between B and C" >&2
      exit 1
    fi
  fi
done
