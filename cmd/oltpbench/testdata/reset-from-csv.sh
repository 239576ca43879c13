#!/bin/sh
# A reset_command as a user writes one: restore the dataset from a backup
# (here the CSV files in $1), connected as the plan tells it.
set -e
c="--mysql-host=$OLTPBENCH_MYSQL_HOST --mysql-port=$OLTPBENCH_MYSQL_PORT --mysql-user=$OLTPBENCH_MYSQL_USER --mysql-db=$OLTPBENCH_MYSQL_DB"
# No database yet the first time: nothing to drop.
"$OLTPBENCH" sysbench oltp_common cleanup --tables=2 $c 2>/dev/null || true
"$OLTPBENCH" import --dir "$1" $c
