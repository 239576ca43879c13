#!/usr/bin/env bash
# Starts a throwaway Toxiproxy (the network fault proxy tests put between
# client and server) in a private folder on a free loopback port; installs
# it with go install when missing. Usage: scripts/toxiproxy-start.sh [DIR]
# (default: .toxiproxy under the project). Prints nothing but errors; writes
# DIR/env (OLTPBENCH_TEST_TOXIPROXY, its API's address). Stop it with
# scripts/s3-stop.sh DIR (a pid file in DIR).
set -euo pipefail
. "$(dirname "$0")/alive.sh"
dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.toxiproxy"}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
version=v2.5.0
# Its command is named "server": it gets a folder of its own.
bindir=${TOXIPROXY_BIN:-$HOME/.cache/oltpbench/toxiproxy-$version}
if [ ! -x "$bindir/server" ]; then
  echo "toxiproxy-start: installing toxiproxy $version (go install)..." >&2
  GOBIN=$bindir go install "github.com/Shopify/toxiproxy/v2/cmd/server@$version" ||
    { echo "toxiproxy-start: go install github.com/Shopify/toxiproxy/v2/cmd/server@$version failed" >&2; exit 1; }
fi
if [ -f "$dir/pid" ] && alive "$(cat "$dir/pid")"; then
  exit 0 # already running
fi
if [ -f "$dir/port" ]; then
  port=$(cat "$dir/port")
else
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
       go run "$(dirname "$0")/freeport.go")
fi
"$bindir/server" -host 127.0.0.1 -port "$port" >"$dir/server.log" 2>&1 &
echo $! >"$dir/pid"
for _ in $(seq 1 100); do
  if curl -sf "http://127.0.0.1:$port/version" >/dev/null 2>&1; then break; fi
  sleep 0.1
done
curl -sf "http://127.0.0.1:$port/version" >/dev/null 2>&1 ||
  { echo "toxiproxy-start: toxiproxy did not start, see $dir/server.log" >&2; tail -5 "$dir/server.log" >&2; exit 1; }
echo "$port" >"$dir/port"
echo "OLTPBENCH_TEST_TOXIPROXY=127.0.0.1:$port" >"$dir/env"
