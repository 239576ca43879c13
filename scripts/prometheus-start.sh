#!/usr/bin/env bash
# Starts a throwaway Prometheus (Debian's prometheus package) in a private
# folder on a free loopback port, scraping oltpbench's --metrics-addr on
# another free loopback port every second. Usage:
#   scripts/prometheus-start.sh [DIR]   (default: .prometheus under the project)
# Prints nothing but errors; writes DIR/env: OLTPBENCH_TEST_PROM_URL (the
# HTTP API) and OLTPBENCH_TEST_METRICS_ADDR (where oltpbench should listen).
set -euo pipefail
. "$(dirname "$0")/alive.sh"
dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.prometheus"}
mkdir -p "$dir/data"
dir=$(cd "$dir" && pwd)
prom=$(command -v prometheus || echo /usr/bin/prometheus)
[ -x "$prom" ] || { echo "prometheus-start: prometheus is not installed: apt-get install -y prometheus" >&2; exit 1; }
if [ -f "$dir/pid" ] && alive "$(cat "$dir/pid")"; then
  exit 0 # already running
fi
freeport() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
    go run "$(dirname "$0")/freeport.go"
}
port=$(freeport)
target=$(freeport)
cat >"$dir/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: oltpbench
    static_configs:
      - targets: ["127.0.0.1:$target"]
YML
"$prom" --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" --web.listen-address="127.0.0.1:$port" \
  >"$dir/server.log" 2>&1 &
echo $! >"$dir/pid"
for _ in $(seq 1 100); do
  if curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; then break; fi
  sleep 0.2
done
curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 ||
  { echo "prometheus-start: prometheus did not start, see $dir/server.log" >&2; tail -5 "$dir/server.log" >&2; exit 1; }
cat >"$dir/env" <<ENV
OLTPBENCH_TEST_PROM_URL=http://127.0.0.1:$port
OLTPBENCH_TEST_METRICS_ADDR=127.0.0.1:$target
ENV
