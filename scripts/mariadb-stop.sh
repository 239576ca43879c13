#!/usr/bin/env bash
# Stops the throwaway MariaDB started by mariadb-start.sh. Usage: scripts/mariadb-stop.sh [DIR] [--wipe]
set -uo pipefail
dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.mariadb"}
[ -f "$dir/mysqld.pid" ] || exit 0
pid=$(cat "$dir/mysqld.pid")
. "$(dirname "$0")/alive.sh"
# A server whose files are wiped needs no clean shutdown (a shutdown
# flushes its buffer pool: seconds).
if [ "${2:-}" = "--wipe" ]; then kill -9 "$pid" 2>/dev/null; else kill "$pid" 2>/dev/null; fi
for _ in $(seq 1 1200); do
  alive "$pid" || break
  sleep 0.05
done
kill -9 "$pid" 2>/dev/null || true
rm -f "$dir/mysqld.pid"
if [ "${2:-}" = "--wipe" ]; then rm -rf "$dir"; fi
