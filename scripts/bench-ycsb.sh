#!/usr/bin/env bash
# scripts/bench-ycsb.sh: go-ycsb against oltpbench ycsb, alternately, on the
# test MariaDB: a table of RECORDS (default 100000) loaded by go-ycsb, then
# workload A at each of THREADS (default "16 256"), PAIRS (default 2) times,
# printing each run's ops/s (its TOTAL line) and client CPU per operation.
# Needs GO_YCSB (a go-ycsb binary), OB (an oltpbench binary) and the server's
# PORT; the database ycsb_ab is dropped and made again.
set -euo pipefail
cd "$(dirname "$0")/../ycsb"
: "${GO_YCSB:?set GO_YCSB to a go-ycsb binary}" "${OB:?set OB to an oltpbench binary}" "${PORT:?set PORT to the port of the server}"
RECORDS=${RECORDS:-100000}
THREADS=${THREADS:-"16 256"}
PAIRS=${PAIRS:-2}
OPS=${OPS:-300000}
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
conn=(-p mysql.host=127.0.0.1 -p "mysql.port=$PORT" -p mysql.user=root -p mysql.db=ycsb_ab)
mysql -h127.0.0.1 -P"$PORT" -uroot -e "DROP DATABASE IF EXISTS ycsb_ab; CREATE DATABASE ycsb_ab"
"$GO_YCSB" load mysql -P workloads/workloada -p "recordcount=$RECORDS" -p threadcount=16 "${conn[@]}" >/dev/null
for th in $THREADS; do
  for rep in $(seq "$PAIRS"); do
    for tool in go-ycsb oltpbench; do
      cmd=("$GO_YCSB" run mysql)
      [ "$tool" = oltpbench ] && cmd=("$OB" ycsb run mysql)
      out=$( { /usr/bin/time -f "CPU %U %S" "${cmd[@]}" -P workloads/workloada -p "recordcount=$RECORDS" -p "operationcount=$OPS" \
        -p "threadcount=$th" "${conn[@]}"; } 2>&1 )
      total=$(grep '^TOTAL' <<<"$out" | tail -1)
      ops=$(sed 's/.*OPS: \([0-9.]*\).*/\1/' <<<"$total")
      count=$(sed 's/.*Count: \([0-9]*\).*/\1/' <<<"$total")
      cpu=$(grep '^CPU' <<<"$out" | awk '{print $2 + $3}')
      echo "threads=$th pair=$rep $tool ops/s=$ops count=$count cpu_us_per_op=$(awk -v c="$cpu" -v n="$count" 'BEGIN { printf "%.1f", c * 1e6 / n }')"
    done
  done
done
