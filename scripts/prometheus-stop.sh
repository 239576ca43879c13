#!/usr/bin/env bash
# Stops the Prometheus started by prometheus-start.sh. Usage: scripts/prometheus-stop.sh [DIR] [--wipe]
# (The same as stopping the S3 server: a pid file in DIR.)
exec "$(dirname "$0")/s3-stop.sh" "${1:-"$(cd "$(dirname "$0")/.." && pwd)/.prometheus"}" "${2:-}"
