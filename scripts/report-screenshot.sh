#!/usr/bin/env bash
# Renders the HTML comparison of the fixture results in headless Chromium
# (Debian's chromium, installed when missing) and saves a screenshot, to see
# that the charts show data. Usage: scripts/report-screenshot.sh [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-/tmp/oltpbench-report.png}
command -v chromium >/dev/null || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
make build >/dev/null
d=internal/report/compare/testdata/results
html=$(mktemp --suffix=.html)
bin/oltpbench report compare --baseline "$d/v2.1" --candidate "$d/v3.0" --format html >"$html"
profile=$(mktemp -d)
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$profile" --window-size=1100,1400 \
  --screenshot="$out" "file://$html" >/dev/null 2>&1
rm -rf "$profile" "$html"
echo "$out"
