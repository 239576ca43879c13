#!/usr/bin/env bash
# Stops the Prometheus started by prometheus-start.sh. Usage: scripts/prometheus-stop.sh [DIR] [--wipe]
set -uo pipefail
dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.prometheus"}
if [ -f "$dir/pid" ]; then
  pid=$(cat "$dir/pid")
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
fi
if [ "${2:-}" = "--wipe" ]; then rm -rf "$dir"; fi
