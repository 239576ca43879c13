#!/usr/bin/env bash
# scripts/sysbench-suite.sh SYSBENCH_CHECKOUT [TEST.t ...]
# Runs sysbench 1.0.20's own test suite (its tests/t/*.t with its bundled
# cram) against the real sysbench and against oltpbench, on one throwaway
# MariaDB, and prints each test's outcome for both and the counts. The
# checkout is a clone of sysbench's public repository at tag 1.0.20 that you
# fetch yourself: nothing of it is kept in this repository (it is GPL).
#
# The only adapter is the `mysql` client the tests call: MariaDB's, with its
# output in MySQL's words (SHOW CREATE TABLE quotes numeric defaults, an
# error does not echo the statement), the same for both tools.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:?usage: scripts/sysbench-suite.sh SYSBENCH_CHECKOUT [TEST.t ...]}
shift
src=$(cd "$src" && pwd)
[ -d "$src/tests/t" ] && [ -d "$src/third_party/cram" ] || { echo "sysbench-suite: $src has no tests/t or third_party/cram: give a sysbench 1.0.20 checkout" >&2; exit 1; }
command -v sysbench >/dev/null || { echo "sysbench-suite: the real sysbench is not installed: apt-get install sysbench" >&2; exit 1; }
make -s build
work=$(mktemp -d)
db="$work/mariadb"
trap 'scripts/mariadb-stop.sh "$db" --wipe; rm -rf "$work"' EXIT
scripts/mariadb-start.sh "$db"
. "$db/env"

mkdir -p "$work/real" "$work/ours" "$work/common"
ln -s "$(command -v sysbench)" "$work/real/sysbench"
printf '#!/bin/sh\nexec %s sysbench "$@"\n' "$PWD/bin/oltpbench" >"$work/ours/sysbench"
cat >"$work/common/mysql" <<EOF
#!/bin/bash
set -o pipefail
{ mariadb --no-defaults -S "$OLTPBENCH_TEST_SOCKET" "\$@" 2>&3 | sed -e "s/ DEFAULT \([0-9][0-9]*\),/ DEFAULT '\1',/"; } 3>&1 1>&2 |
  awk '/^-+\$/{skip=!skip; if(!skip) blank=1; next} skip{next} blank&&/^\$/{blank=0; next} {blank=0; print}' 1>&2
EOF
chmod +x "$work/ours/sysbench" "$work/common/mysql"

# suite TOOL: runs the tests under TOOL's sysbench, one cram run per test.
suite() {
  local tool=$1 t
  (
    export SBTEST_ROOTDIR="$src/tests" SBTEST_SCRIPTDIR="$src/src/lua" SBTEST_SUITEDIR="$src/tests/t" SBTEST_INCDIR="$src/tests/include"
    export SBTEST_VERSION_STRING="sysbench 1.0.20" SBTEST_VERSION=1.0.20 SBTEST_HAS_MYSQL=1 SBTEST_HAS_PGSQL=0
    export SBTEST_MYSQL_ARGS="--mysql-host=$OLTPBENCH_TEST_HOST --mysql-port=$OLTPBENCH_TEST_PORT --mysql-user=root --mysql-db=sbtest"
    export PATH="$work/$tool:$work/common:$PATH" PYTHONPATH="$src/third_party/cram"
    export LUA_PATH="$SBTEST_SCRIPTDIR/?;$SBTEST_SCRIPTDIR/?.lua;$SBTEST_INCDIR/?;$SBTEST_INCDIR/?.lua"
    cd "$src/tests"
    for t in "${tests[@]}"; do
      mariadb --no-defaults -S "$OLTPBENCH_TEST_SOCKET" -uroot -e "DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest"
      out="$work/$tool-$(basename "$t").out"
      if python3 "$src/third_party/cram/scripts/cram" --shell=/bin/bash "$t" >"$out" 2>&1; then
        if grep -q '^# Ran 1 tests, 1 skipped' "$out"; then echo "$t skip"; else echo "$t pass"; fi
      else
        echo "$t FAIL"
      fi
      rm -f "$t.err"
    done
  )
}

if [ $# -gt 0 ]; then tests=("$@"); else tests=(); for f in "$src"/tests/t/*.t; do tests+=("t/$(basename "$f")"); done; fi
suite real >"$work/real.txt"
suite ours >"$work/ours.txt"
join "$work/real.txt" "$work/ours.txt" | awk '{printf "%-40s sysbench %-4s oltpbench %s\n", $1, $2, $3}'
for tool in real ours; do
  printf '%s: %d passed, %d failed, %d skipped\n' "$([ $tool = real ] && echo sysbench || echo oltpbench)" \
    "$(grep -c ' pass$' "$work/$tool.txt")" "$(grep -c ' FAIL$' "$work/$tool.txt")" "$(grep -c ' skip$' "$work/$tool.txt")"
done
if [ -n "${KEEP:-}" ]; then cp "$work"/*.out "$KEEP"/; fi
