#!/usr/bin/env bash
# make bench-ch: oltpbench ch against go-tpc v1.0.7's ch on one throwaway MariaDB, alternating, medians and ratios:
#   prepare of WAREHOUSES (4) warehouses with the CH tables: wall time (go-tpc: tpcc prepare --no-check, then ch prepare);
#   run on oltpbench's CH dataset (go-tpc's ch run works on it: the same schema): 16 terminals and 2 analytical
#   streams: tpmC, client CPU per New-Order with the streams running, and each query's mean latency.
# Like for like: oltpbench runs with --stock-update=per-line, go-tpc's New-Order statements (one UPDATE per line).
# The queries are go-tpc's texts but for the nation join: oltpbench keys the CH spec's 62 nations by ASCII code,
# go-tpc subtracts 65 for TPC-H's 25, so on this dataset go-tpc's q5, q7, q8 and q10 join no nation: their
# latencies are not like for like (server-bound either way: no target).
# Knobs: PAIRS (3), DUR (60s), WAREHOUSES (4), THREADS (16), AP (2), SECTIONS ("prepare run").
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
DUR=${DUR:-60s}
WAREHOUSES=${WAREHOUSES:-4}
THREADS=${THREADS:-16}
AP=${AP:-2}
GOTPC=${GOTPC:-$(go env GOPATH)/bin/go-tpc}
[ -x "$GOTPC" ] || GOFLAGS= go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
dir="$PWD/.mariadb-bench"
MARIADB_BUFFER_POOL=4G scripts/mariadb-start.sh "$dir"
work=$(mktemp -d -p "$PWD" .bench-ch.XXXX)
trap 'scripts/mariadb-stop.sh "$dir" --wipe; rm -rf "$work"' EXIT
. "$dir/env"
H=(-H 127.0.0.1 -P "$OLTPBENCH_TEST_PORT" -U root -D ch)
OB=(bin/oltpbench ch --mysql-host=127.0.0.1 --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --db=ch --progress=off)
SECTIONS=${SECTIONS:-"prepare run"}
section() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
. scripts/bench-lib.sh # median, alternate
timed() { /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" >"$work/log" 2>&1 || { tail -5 "$work/log" >&2; return 1; }; cat "$work/t"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }

prep() {
  mariadb --no-defaults -uroot -h127.0.0.1 -P"$OLTPBENCH_TEST_PORT" -e "DROP DATABASE IF EXISTS ch; CREATE DATABASE ch"
  case $1 in
    # go-tpc's ch prepare adds its tables to a TPC-C dataset: its tpcc prepare comes first.
    go-tpc) timed bash -c '"$0" tpcc prepare --warehouses "$1" -T 4 --no-check "${@:2}" && "$0" ch prepare --warehouses "$1" -T 4 "${@:2}"' \
      "$GOTPC" "$WAREHOUSES" "${H[@]}" ;;
    oltpbench) timed "${OB[@]}" prepare --warehouses="$WAREHOUSES" --threads=4 ;;
  esac
}
# run TOOL SECTION: one prepare (prints its wall time) or one run (prints tpmC and client CPU per New-Order,
# and appends each query's mean latency to $work/q), for bench-lib's alternate.
run() {
  local e u s m tpmc no
  if [ "$2" = prepare ]; then
    read -r e u s m < <(prep "$1"); echo "$e"; return
  fi
  if [ "$1" = go-tpc ]; then
    read -r e u s m < <(timed "$GOTPC" ch run --warehouses "$WAREHOUSES" -T "$THREADS" -t "$AP" --time "$DUR" "${H[@]}")
    if grep -q "failed" "$work/log"; then echo "  go-tpc ch run reported errors:" >&2; grep -m3 failed "$work/log" >&2; fi
    tpmc=$(awk '/^tpmC:/ {gsub(",","",$2); print $2}' "$work/log")
    no=$(awk '/\[Summary\] NEW_ORDER -/ {for(i=1;i<=NF;i++) if ($i=="Count:") {gsub(",","",$(i+1)); print $(i+1)}}' "$work/log")
    awk '/\[Summary\] Q[0-9]+ / {q=tolower($2); for(i=1;i<=NF;i++) if ($i=="Avg(ms):") print "go-tpc", q, $(i+1)}' "$work/log" >>"$work/q"
  else
    read -r e u s m < <(timed "${OB[@]}" run --warehouses="$WAREHOUSES" --threads="$THREADS" --ap-threads="$AP" --time="$DUR" --stock-update=per-line)
    tpmc=$(awk '/^tpmC:/ {gsub(",","",$2); print $2}' "$work/log")
    no=$(awk '$1=="new_order" && $2 ~ /^[0-9]+$/ {print $2}' "$work/log" | tail -1)
    awk '/^Analytical queries/ {on=1; next} on && $1 ~ /^q[0-9]+$/ && $2 > 0 {print "oltpbench", $1, $4}' "$work/log" >>"$work/q"
  fi
  echo "$tpmc $(awk -v u="$u" -v s="$s" -v n="$no" 'BEGIN{printf "%.3f", (u+s)*1000/n}')"
}
export VERBOSE=1 # each run's figures as they come
if section prepare; then
  echo "== prepare with the CH tables, $WAREHOUSES warehouses ($PAIRS rounds, alternating, after one unmeasured prepare of each)"
  prep go-tpc >/dev/null; prep oltpbench >/dev/null
  : >"$work/prep"
  alternate "$work/prep" go-tpc oltpbench prepare
  g=$(awk '$1=="go-tpc"{print $2}' "$work/prep" | median); o=$(awk '$1=="oltpbench"{print $2}' "$work/prep" | median)
  echo "  median: go-tpc $g s, oltpbench $o s, ratio $(ratio "$o" "$g")x (goal <= 0.5x)"
fi
if section run; then
  echo "== run: $WAREHOUSES warehouses, $THREADS terminals + $AP analytical streams, $DUR, on oltpbench's dataset ($PAIRS pairs)"
  prep oltpbench >/dev/null
  : >"$work/run"; : >"$work/q"
  alternate "$work/run" go-tpc oltpbench run
  gt=$(awk '$1=="go-tpc"{print $2}' "$work/run" | median); ot=$(awk '$1=="oltpbench"{print $2}' "$work/run" | median)
  gc=$(awk '$1=="go-tpc"{print $3}' "$work/run" | median); oc=$(awk '$1=="oltpbench"{print $3}' "$work/run" | median)
  echo "  median tpmC: go-tpc $gt, oltpbench $ot, ratio $(ratio "$ot" "$gt")x"
  echo "  median client CPU per New-Order: go-tpc $gc ms, oltpbench $oc ms, ratio $(ratio "$oc" "$gc")x"
  echo "  per-query mean latency, median over the runs (ms): query go-tpc oltpbench ratio"
  for n in $(seq 1 22); do
    # A query no run reached (a short DUR) has no median.
    g=$(awk -v q="q$n" '$1=="go-tpc" && $2==q {print $3}' "$work/q"); [ -n "$g" ] && g=$(echo "$g" | median)
    o=$(awk -v q="q$n" '$1=="oltpbench" && $2==q {print $3}' "$work/q"); [ -n "$o" ] && o=$(echo "$o" | median)
    [ -n "$g" ] && [ -n "$o" ] && echo "    q$n $g $o $(ratio "$o" "$g")x" || echo "    q$n ${g:--} ${o:--}"
  done
fi
