#!/usr/bin/env bash
# Stops the PostgreSQL postgres-start.sh started. Usage: scripts/postgres-stop.sh DIR [--wipe]
set -uo pipefail
dir=${1:?usage: postgres-stop.sh DIR [--wipe]}
[ -f "$dir/env" ] || exit 0
. "$dir/env"
run=()
[ "$(id -u)" -eq 0 ] && run=(runuser -u postgres --)
mode=fast
[ "${2:-}" = "--wipe" ] && mode=immediate # no clean shutdown for files about to go
"${run[@]}" "$OLTPBENCH_TEST_PG_BIN/pg_ctl" -D "$dir/data" -m "$mode" -w stop >/dev/null 2>&1
if [ "${2:-}" = "--wipe" ]; then rm -rf "$dir"; fi
