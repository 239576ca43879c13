#!/bin/sh
# durability.sh relaxed|durable|reset: the durability-versions plan's deploy
# and teardown: innodb_flush_log_at_trx_commit on the plan's server (2, 1,
# or what it was before the first deploy, kept in .durability beside this).
set -eu
sql() { mysql -h "$OLTPBENCH_MYSQL_HOST" -P "$OLTPBENCH_MYSQL_PORT" -u "$OLTPBENCH_MYSQL_USER" -N -e "$1"; }
saved="$(dirname "$0")/.durability"
[ -f "$saved" ] || sql "SELECT @@GLOBAL.innodb_flush_log_at_trx_commit" >"$saved"
case "$1" in
relaxed) v=2 ;;
durable) v=1 ;;
reset) v=$(cat "$saved"); rm -f "$saved" ;;
*) echo "durability.sh: unknown version $1 (relaxed, durable or reset)" >&2; exit 2 ;;
esac
sql "SET GLOBAL innodb_flush_log_at_trx_commit = $v"
echo "innodb_flush_log_at_trx_commit = $v"
