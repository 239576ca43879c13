#!/bin/sh
# deploy.sh VERSION: the tests' deploy of a "version": the MariaDB in
# $MDB_DIR restarted with that version's settings, reporting 10.11.99-VERSION.
#   A, same        as the server starts
#   B              innodb_flush_log_at_trx_commit=1 and sync_binlog=1 (binlog on)
#   C              B's settings, the server on one CPU
#   bN             build N of a bisect: on one CPU from build $SLOW_FROM on
#   fail           exits 3; hang: never returns; dead: returns with no server;
#   other          brings up a server that reports 10.11.99-A
# DEPLOY_DELAY (seconds) waits before the restart.
set -eu
v=$1
sleep "${DEPLOY_DELAY:-0}"
case "$v" in
fail) echo "deploy: no package for $v" >&2; exit 3 ;;
hang) sleep 1000 ;;
esac
"$OLTPBENCH_TEST_SCRIPTS/mariadb-stop.sh" "$MDB_DIR"
[ "$v" = dead ] && exit 0
args="--version=10.11.99-$v"
cpus=
case "$v" in
B) args="$args --innodb-flush-log-at-trx-commit=1 --sync-binlog=1 --log-bin=$MDB_DIR/binlog --server-id=1" ;;
C) args="$args --innodb-flush-log-at-trx-commit=1 --sync-binlog=1 --log-bin=$MDB_DIR/binlog --server-id=1"; cpus=0 ;;
other) args="--version=10.11.99-A" ;;
b*) if [ "${v#b}" -ge "${SLOW_FROM:-99}" ]; then cpus=0; fi ;;
esac
MARIADB_EXTRA_ARGS="$args" MARIADB_CPUS="$cpus" "$OLTPBENCH_TEST_SCRIPTS/mariadb-start.sh" "$MDB_DIR"
echo "deploy: $v is up"
