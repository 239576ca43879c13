#!/usr/bin/env bash
# Starts a throwaway MariaDB in a private folder on a free loopback port.
# Usage: scripts/mariadb-start.sh [DIR]   (default: .mariadb under the project)
# Prints nothing but errors; writes DIR/port and DIR/env (OLTPBENCH_TEST_DSN etc.).
set -euo pipefail
dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.mariadb"}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "mariadb-start: MariaDB is not installed; run as root or: sudo apt-get install -y mariadb-server mariadb-client" >&2
    exit 1
  fi
  echo "mariadb-start: installing mariadb-server (apt-get)..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server mariadb-client >/dev/null
fi
export PATH="$PATH:/usr/sbin:/usr/bin"

. "$(dirname "$0")/alive.sh"
if [ -f "$dir/mysqld.pid" ] && alive "$(cat "$dir/mysqld.pid")"; then
  exit 0 # already running
fi

# A private tmpdir: a MariaDB starting (or bootstrapping) deletes the
# #sql temporary files it finds in its tmpdir, so servers sharing /tmp
# delete each other's temporary tables (an install failed on it: "Error
# on delete of '/tmp/#sql-temptable-...MAI'"). --skip-name-resolve: no
# host name lookup (resolveip), which a machine without DNS can fail.
mkdir -p "$dir/tmp"
# A new data folder is a copy of one bootstrapped once for this MariaDB build
# and these options (in TMPDIR, made under a lock): mariadb-install-db
# takes about a CPU-second and 4 s, a copy a tenth of that.
install=(--no-defaults --user=root --skip-name-resolve --auth-root-authentication-method=normal)
if [ ! -d "$dir/data/mysql" ]; then
  key=$( (mariadbd --version; echo "${install[*]}") | sha256sum | cut -c1-16)
  tmpl="${TMPDIR:-/tmp}/oltpbench-mariadb-bootstrap-$(id -u)-$key"
  (
    flock -w 300 9 || { echo "mariadb-start: $tmpl.lock: another start held it for 300 s" >&2; exit 1; }
    if [ ! -d "$tmpl/data/mysql" ]; then
      rm -rf "$tmpl" && mkdir -p "$tmpl/tmp"
      mariadb-install-db "${install[@]}" --datadir="$tmpl/new" --tmpdir="$tmpl/tmp" >"$tmpl/install.log" 2>&1 ||
        { echo "mariadb-start: mariadb-install-db failed ($tmpl/install.log):" >&2; grep -i 'error\|fail\|abort' "$tmpl/install.log" | head -10 >&2; exit 1; }
      mv "$tmpl/new" "$tmpl/data"
    fi
  ) 9>"$tmpl.lock"
  rm -rf "$dir/data"
  cp -a "$tmpl/data" "$dir/data"
fi

# A restart keeps its port, so clients can reconnect.
if [ -f "$dir/port" ]; then
  port=$(cat "$dir/port")
else
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
       go run "$(dirname "$0")/freeport.go")
fi
# Small buffer pool by default: tests and demo; benchmarks pass a bigger one.
# MARIADB_EXTRA_ARGS adds server options (later ones win); MARIADB_CPUS
# pins the server to those CPUs (taskset -c), a slower "version".
bp=${MARIADB_BUFFER_POOL:-1G}
pin=()
if [ -n "${MARIADB_CPUS:-}" ]; then pin=(taskset -c "$MARIADB_CPUS"); fi
"${pin[@]}" mariadbd --no-defaults --user=root --datadir="$dir/data" --tmpdir="$dir/tmp" --socket="$dir/mysqld.sock" \
  --port="$port" --bind-address=127.0.0.1 --pid-file="$dir/mysqld.pid" \
  --log-error="$dir/error.log" --skip-name-resolve \
  --innodb-buffer-pool-size="$bp" --innodb-log-file-size=1G --max-connections=5000 \
  --local-infile=1 --max-allowed-packet=64M --innodb-flush-log-at-trx-commit=2 \
  ${MARIADB_EXTRA_ARGS:-} >/dev/null 2>&1 &

for _ in $(seq 1 300); do
  if mariadb-admin --no-defaults -uroot -S "$dir/mysqld.sock" ping >/dev/null 2>&1; then
    break
  fi
  sleep 0.1
done
mariadb-admin --no-defaults -uroot -S "$dir/mysqld.sock" ping >/dev/null 2>&1 ||
  { echo "mariadb-start: server did not start, see $dir/error.log" >&2; tail -5 "$dir/error.log" >&2; exit 1; }
mariadb --no-defaults -uroot -S "$dir/mysqld.sock" -e "
  CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'; GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
  CREATE USER IF NOT EXISTS 'sbtest'@'127.0.0.1' IDENTIFIED BY 'sbtest-secret'; GRANT ALL ON *.* TO 'sbtest'@'127.0.0.1';
  FLUSH PRIVILEGES;"
echo "$port" >"$dir/port"
cat >"$dir/env" <<ENV
OLTPBENCH_TEST_HOST=127.0.0.1
OLTPBENCH_TEST_PORT=$port
OLTPBENCH_TEST_SOCKET=$dir/mysqld.sock
OLTPBENCH_TEST_DIR=$dir
ENV
