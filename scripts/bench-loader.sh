#!/usr/bin/env bash
# make bench-loader: 4 tables x 250,000 sysbench rows, --threads=2, against one
# throwaway MariaDB, alternating: the real sysbench prepare, oltpbench prepare
# in local and insert modes, and the floor: the same rows from ready CSV files
# loaded by the mariadb client (LOAD DATA LOCAL, 2 streams, index after).
# Prints medians and ratios. PAIRS (default 3) rounds.
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
command -v sysbench >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sysbench >/dev/null; }
dir="$PWD/.mariadb-bench"
MARIADB_BUFFER_POOL=4G scripts/mariadb-start.sh "$dir"
trap 'scripts/mariadb-stop.sh "$dir" --wipe; rm -rf "$csv"' EXIT
. "$dir/env"
M=(mariadb --no-defaults -uroot -S "$OLTPBENCH_TEST_SOCKET")
conn=(--mysql-host="$OLTPBENCH_TEST_HOST" --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --mysql-db=sbtest --tables=4 --table-size=250000)
"${M[@]}" -e "CREATE DATABASE IF NOT EXISTS sbtest"
csv=$(mktemp -d)
bin/oltpbench csv sysbench --dir="$csv" --mysql-db=sbtest --tables=4 --table-size=250000 --csv-file-size=1GiB --progress=off >/dev/null
. scripts/bench-lib.sh # median, pair_row, alternate
now() { date +%s.%N; }
clean() { bin/oltpbench sysbench oltp_common "${conn[@]}" cleanup >/dev/null; }

floor() {
  clean
  for i in 1 2 3 4; do
    "${M[@]}" sbtest -e "CREATE TABLE sbtest$i(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, c CHAR(120) DEFAULT '' NOT NULL, pad CHAR(60) DEFAULT '' NOT NULL, PRIMARY KEY (id)) ENGINE=innodb"
  done
  ld() { "${M[@]}" --local-infile=1 sbtest -e "LOAD DATA LOCAL INFILE '$csv/sbtest.sbtest$1.000001.csv' INTO TABLE sbtest$1 FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' IGNORE 1 LINES; ALTER TABLE sbtest$1 ADD INDEX k_$1(k)"; }
  local s; s=$(now)
  (ld 1; ld 3) & (ld 2; ld 4) & wait
  awk -v a="$s" -v b="$(now)" 'BEGIN{printf "%.3f\n", b-a}'
}
timed() { clean; local s; s=$(now); "$@" >/dev/null 2>&1; awk -v a="$s" -v b="$(now)" 'BEGIN{printf "%.3f\n", b-a}'; }

# Unmeasured loads first: a freshly started server faults in its buffer pool during its first loads (about
# 0.4 s per load here, until about 1 GB is resident).
for i in 1 2; do floor >/dev/null; timed bin/oltpbench sysbench oltp_common "${conn[@]}" --threads=2 --progress=off prepare >/dev/null; done
: >"$dir/times"
for i in $(seq 1 "$PAIRS"); do
  for what in sysbench local insert floor; do
    case $what in
      sysbench) t=$(timed sysbench oltp_common "${conn[@]}" --threads=2 prepare) ;;
      local) t=$(timed bin/oltpbench sysbench oltp_common "${conn[@]}" --threads=2 --load-mode=local --progress=off prepare) ;;
      insert) t=$(timed bin/oltpbench sysbench oltp_common "${conn[@]}" --threads=2 --load-mode=insert --progress=off prepare) ;;
      floor) t=$(floor) ;;
    esac
    echo "  round $i $what: $t s"
    echo "$what $t" >>"$dir/times"
  done
done
for w in sysbench local insert floor; do eval "m_$w=$(awk -v w=$w '$1==w {print $2}' "$dir/times" | median)"; done
echo "median wall time: sysbench ${m_sysbench} s, oltpbench local ${m_local} s, oltpbench insert ${m_insert} s, mariadb LOAD DATA floor ${m_floor} s"
awk -v s="$m_sysbench" -v l="$m_local" -v i="$m_insert" -v f="$m_floor" 'BEGIN {
  printf "local / sysbench  = %.2fx (target <= 0.45x)\n", l/s
  printf "local / floor     = %.2fx (target <= 1.25x)\n", l/f
  printf "insert / sysbench = %.2fx\n", i/s }'
