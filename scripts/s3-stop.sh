#!/usr/bin/env bash
# Stops the server started by s3-start.sh (or prometheus-start.sh: a pid file in DIR).
# Usage: scripts/s3-stop.sh [DIR] [--wipe]
set -uo pipefail
. "$(dirname "$0")/alive.sh"
dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.s3"}
if [ -f "$dir/pid" ]; then
  pid=$(cat "$dir/pid")
  if [ "${2:-}" = "--wipe" ]; then kill -9 "$pid" 2>/dev/null; else kill "$pid" 2>/dev/null; fi
  for _ in $(seq 1 200); do
    alive "$pid" || break
    sleep 0.05
  done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/pid"
fi
if [ "${2:-}" = "--wipe" ]; then rm -rf "$dir"; fi
