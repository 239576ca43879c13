#!/usr/bin/env bash
# make test: unit tests, then integration tests against a throwaway MariaDB
# and a throwaway S3 server (Versity S3 Gateway, go-installed when missing),
# started here on free ports and stopped on exit. Installs mariadb-server,
# sysbench, chromium and prometheus with apt-get when missing and running as
# root; a throwaway Prometheus scrapes the metrics tests' endpoint, and a
# throwaway PostgreSQL checks the CH queries' answers.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || need+=(mariadb-server mariadb-client)
command -v sysbench >/dev/null 2>&1 || need+=(sysbench)
command -v openssl >/dev/null 2>&1 || need+=(openssl)
command -v chromium >/dev/null 2>&1 || need+=(chromium) # the HTML report is checked in a real browser
command -v prometheus >/dev/null 2>&1 || need+=(prometheus) # --metrics-addr is scraped by a real Prometheus
command -v curl >/dev/null 2>&1 || need+=(curl)
ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || need+=(postgresql) # the independent engine of the CH answer check
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "test: missing ${need[*]}: run as root, or: sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
  echo "test: installing ${need[*]} (apt-get)..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# cmd/oltpbench's integration tests run as TEST_SHARDS shards at once, each
# against a MariaDB of its own, taking the tests from one queue
# (scripts/testshards). The other packages' tests have one of their own:
# the shards' tests restart their server (the first shard's too).
shards=${TEST_SHARDS:-5}
dir="$PWD/.mariadb-test"
shard_dirs=("$dir")
for i in $(seq 2 "$shards"); do shard_dirs+=("$PWD/.mariadb-test-$i"); done
unitsdir="$PWD/.mariadb-test-units"
alonedir="$PWD/.mariadb-test-alone" # the tests that need the machine alone: they load their data beside the shards, then wait
server_dirs=("${shard_dirs[@]}" "$unitsdir" "$alonedir")
s3dir="$PWD/.s3-test"
promdir="$PWD/.prometheus-test"
pgdir="${TMPDIR:-/tmp}/oltpbench-postgres-test" # outside the checkout: the server runs as the postgres user
toxidir="$PWD/.toxiproxy-test"
for d in "${server_dirs[@]}"; do scripts/mariadb-stop.sh "$d" --wipe; done
scripts/s3-stop.sh "$s3dir" --wipe
scripts/prometheus-stop.sh "$promdir" --wipe
scripts/postgres-stop.sh "$pgdir" --wipe
scripts/s3-stop.sh "$toxidir" --wipe
bins=$(mktemp -d)
trap 'wait; for d in "${server_dirs[@]}"; do scripts/mariadb-stop.sh "$d" --wipe & done; scripts/s3-stop.sh "$s3dir" --wipe & scripts/prometheus-stop.sh "$promdir" --wipe & scripts/postgres-stop.sh "$pgdir" --wipe & scripts/s3-stop.sh "$toxidir" --wipe & wait; rm -rf "$bins"' EXIT
# The servers start side by side (each in a folder of its own, on a port
# of its own) while the code is checked and the test binaries built; a
# start that fails fails the test.
starts=()
for d in "${server_dirs[@]}"; do scripts/mariadb-start.sh "$d" & starts+=($!); done
scripts/s3-start.sh "$s3dir" & starts+=($!)
scripts/prometheus-start.sh "$promdir" & starts+=($!)
scripts/postgres-start.sh "$pgdir" & starts+=($!)
scripts/toxiproxy-start.sh "$toxidir" & starts+=($!) # the network fault proxy between client and server
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then echo "test: gofmt needed on: $unformatted" >&2; exit 1; fi
go vet ./...
go build -o "$bins/testshards" ./scripts/testshards
go test -c -o "$bins/oltpbench.test" ./cmd/oltpbench
go build -o "$bins/oltpbench" ./cmd/oltpbench
for p in "${starts[@]}"; do wait "$p"; done
set -a; . "$dir/env"; . "$s3dir/env"; . "$promdir/env"; . "$pgdir/env"; . "$toxidir/env"; set +a
export OLTPBENCH_TEST_SCRIPTS="$PWD/scripts"
# Datasets loaded once and copied into the tests that only need one loaded
# (their tables' files: cmd/oltpbench's prepared), shared by every server.
export OLTPBENCH_TEST_FIXTURES="$bins/fixtures"
mkdir -p "$OLTPBENCH_TEST_FIXTURES"

# The other packages' tests (those with concurrency under the race
# detector) run beside cmd/oltpbench's shards, on a MariaDB of their own
# (the shards' tests stop and start theirs); their output follows the shards'.
# A package tested under the race detector is not tested again without it.
# make fuzz runs here too, briefly, on two targets (all of them:
# CI_FUZZ_ONLY=. ; each costs an instrumented build, about 8 s). A count of
# inputs, not a duration: Go 1.26's coordinator can fail a target that found
# nothing when a duration ends (go.dev/issue/75804).
race=(./internal/engine/runner ./internal/worker ./internal/hist ./internal/conn ./internal/gcpace ./internal/metrics ./internal/report/compare ./internal/report/series ./internal/engine/fleet ./loader ./tpch)
race_re=$(printf '|%s' "${race[@]#./}")
# Tests of pure computation in those packages (race.Skip: statistics,
# parsing) skip under the detector, ten times slower there, and run here
# once without it (internal/testenv/race checks this list against them).
heavy='TestPlantedSteps|TestDDLAndRefreshParseForTiDB'
units=$(mktemp)
# The tests that run alone wait for these to end (testshards -after): on a
# machine whose build cache is cold their race builds outlast the shards.
units_done="$bins/units.done"
(
  rc=0
  (
    set -a
    . "$unitsdir/env"
    set +a
    go test -race -count=1 "${race[@]}" &&
      go test -count=1 -run "^($heavy)\$" "${race[@]}" &&
      go test -count=1 -timeout 20m $(go list ./... | grep -v -E "/cmd/oltpbench\$|/(${race_re#|})\$") &&
      FUZZ_ONLY=${CI_FUZZ_ONLY:-'FuzzShown|FuzzParseSeconds'} make --no-print-directory fuzz FUZZTIME=${CI_FUZZTIME:-5000x}
  ) >"$units" 2>&1 || rc=$?
  touch "$units_done"
  exit $rc
) &
units_pid=$!
envs=()
for d in "${shard_dirs[@]}"; do envs+=(-env "$d/env"); done
# The tests of the one Prometheus share the first shard; TEST_TIMES=1
# rewrites the seconds the shards are balanced by; TEST_CPU=FILE writes
# each test's seconds and CPU-seconds (its processes', its server's).
shards_rc=0
"$bins/testshards" -pkg ./cmd/oltpbench -test-bin "$bins/oltpbench.test" -tool "$bins/oltpbench" "${envs[@]}" -alone-env "$alonedir/env" -after "$units_done" -timeout 25m \
  -pin '^(TestMetricsPrometheus|TestDropInCompiledTests|TestErrorCodesDeadlocksAndRestart)$' ${TEST_TIMES:+-update-times} ${TEST_CPU:+-cpu "$TEST_CPU"} || shards_rc=$?
units_rc=0
wait "$units_pid" || units_rc=$?
cat "$units"
rm -f "$units"
if [ "$shards_rc" -ne 0 ] || [ "$units_rc" -ne 0 ]; then
  echo "test: FAIL (cmd/oltpbench: exit $shards_rc; the other packages: exit $units_rc)" >&2
  exit 1
fi
