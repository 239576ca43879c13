#!/bin/sh
# deploy.sh VERSION: the tests' deploy of a "version": the MariaDB in
# $MDB_DIR restarted with that version's settings, reporting 10.11.99-VERSION.
#   A, same   as the server starts
#   B         a synced commit: innodb_flush_log_at_trx_commit=1, sync_binlog=1 (binlog on)
#   C         B's settings, the server on one CPU, every statement written
#             to the general and the slow query log, and the performance
#             schema on with every instrument: reads slower by more than the
#             machine's noise moves them
#   D         at most 16 connections: a version whose TPC-C capacity search
#             errors out from 2 warehouses on (20 threads)
#   bN        build N of a bisect: from build $BAD_FROM on, each commit waits
#             30 ms for a group commit (binlog_commit_wait_usec): a regression
#             that other processes' CPU load does not blur
# A fault for one version, from the file $MDB_DIR.fault ("B fail"): fail
# exits 3; hang never returns; slow waits 30 s first; dead returns with no
# server up; frozen returns with the server stopped (SIGSTOP) after its
# start; other brings up a server that reports another version.
set -eu
v=$1
mode=
if [ -f "$MDB_DIR.fault" ]; then
  read -r fv fm <"$MDB_DIR.fault" || true
  [ "$fv" = "$v" ] && mode=$fm
fi
case "$mode" in
fail) echo "deploy: no package for $v" >&2; exit 3 ;;
hang) sleep 1000 ;;
slow) sleep 30 ;;
esac
# A server a frozen deploy stopped (SIGSTOP) cannot shut down until it goes on.
[ -f "$MDB_DIR/mysqld.pid" ] && kill -CONT "$(cat "$MDB_DIR/mysqld.pid")" 2>/dev/null || true
"$OLTPBENCH_TEST_SCRIPTS/mariadb-stop.sh" "$MDB_DIR"
[ "$mode" = dead ] && exit 0
synced="--innodb-flush-log-at-trx-commit=1 --sync-binlog=1 --log-bin=$MDB_DIR/binlog --server-id=1"
args="--version=10.11.99-$v"
cpus=
case "$v" in
B) args="$args $synced" ;;
C) args="$args $synced --general-log=1 --general-log-file=$MDB_DIR/general.log"
  args="$args --slow-query-log=1 --slow-query-log-file=$MDB_DIR/slow.log --long-query-time=0"
  args="$args --performance-schema=ON --performance-schema-instrument=%=ON"
  args="$args --performance-schema-consumer-events-statements-history-long=ON"
  args="$args --performance-schema-consumer-events-stages-current=ON --performance-schema-consumer-events-waits-current=ON"
  cpus=0 ;;
D) args="$args --max-connections=16" ;;
b*) if [ "${v#b}" -ge "${BAD_FROM:-99}" ]; then
    args="$args --log-bin=$MDB_DIR/binlog --server-id=1 --binlog-commit-wait-count=100 --binlog-commit-wait-usec=30000"
  fi ;;
esac
[ "$mode" = other ] && args="--version=10.11.99-other"
if [ "$mode" = frozen ]; then
  # A session of its own: a stopped server left in this command's process
  # group would be sent SIGCONT when the group is orphaned (its exit).
  MARIADB_EXTRA_ARGS="$args" setsid -w "$OLTPBENCH_TEST_SCRIPTS/mariadb-start.sh" "$MDB_DIR"
  kill -STOP "$(cat "$MDB_DIR/mysqld.pid")"
else
  MARIADB_EXTRA_ARGS="$args" MARIADB_CPUS="$cpus" "$OLTPBENCH_TEST_SCRIPTS/mariadb-start.sh" "$MDB_DIR"
fi
echo "deploy: $v is up"
