#!/usr/bin/env bash
# Starts a throwaway PostgreSQL (Debian's) in a private folder on a free loopback port: the independent engine
# the CH query answers are checked against. Usage: scripts/postgres-start.sh DIR
# Writes DIR/env (OLTPBENCH_TEST_PG_PORT, OLTPBENCH_TEST_PG_DIR); prints nothing but errors.
set -euo pipefail
dir=${1:?usage: postgres-start.sh DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$bin" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "postgres-start: PostgreSQL is not installed; run as root or: sudo apt-get install -y postgresql" >&2
    exit 1
  fi
  echo "postgres-start: installing postgresql (apt-get)..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
fi
# PostgreSQL refuses to run as root: as root, the server runs as the postgres user Debian's package made.
run=()
if [ "$(id -u)" -eq 0 ]; then
  chown postgres "$dir"
  run=(runuser -u postgres --)
fi
if [ -f "$dir/data/postmaster.pid" ] && "${run[@]}" "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  exit 0
fi
if [ ! -f "$dir/data/PG_VERSION" ]; then
  "${run[@]}" "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
    { echo "postgres-start: initdb failed, see $dir/initdb.log" >&2; exit 1; }
fi
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
  go run "$(dirname "$0")/freeport.go")
"${run[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off" start >/dev/null ||
  { echo "postgres-start: server did not start, see $dir/server.log" >&2; tail -5 "$dir/server.log" >&2; exit 1; }
cat >"$dir/env" <<ENV
OLTPBENCH_TEST_PG_PORT=$port
OLTPBENCH_TEST_PG_DIR=$dir
OLTPBENCH_TEST_PG_BIN=$bin
ENV
