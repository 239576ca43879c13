#!/usr/bin/env bash
# make bench-tpcc: oltpbench against go-tpc v1.0.7 on one throwaway MariaDB,
# alternating, medians and ratios:
#   prepare of 4 warehouses (go-tpc --no-check) wall time;
#   run: 4 warehouses, 16 threads, no waits: tpmC and client CPU per New-Order;
#   CSV generation: rows per CPU-second and peak RSS (no database);
#   oltpbench variants, alternating: the default against --stock-update=per-line and --schema=benchmarksql
#   (tpmC and CPU per New-Order);
#   memory: oltpbench's peak RSS for CSV of 1..100 warehouses and runs of 16..1000 threads.
# Knobs: PAIRS (3), DUR (60s), CSV_WAREHOUSES ("1 10 100"), MEM_THREADS ("16 256 1024"),
# VARIANTS ("default per-line benchmarksql"), SECTIONS ("prepare run variants csv memory").
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
DUR=${DUR:-60s}
CSV_WAREHOUSES=${CSV_WAREHOUSES:-"1 10 100"}
MEM_THREADS=${MEM_THREADS:-"16 256 1024"}
GOTPC=${GOTPC:-$(go env GOPATH)/bin/go-tpc}
[ -x "$GOTPC" ] || GOFLAGS= go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
dir="$PWD/.mariadb-bench"
MARIADB_BUFFER_POOL=4G scripts/mariadb-start.sh "$dir"
work=$(mktemp -d -p "$PWD" .bench-tpcc.XXXX)
trap 'scripts/mariadb-stop.sh "$dir" --wipe; rm -rf "$work"' EXIT
. "$dir/env"
H=(-H 127.0.0.1 -P "$OLTPBENCH_TEST_PORT" -U root)
OB=(bin/oltpbench tpcc --mysql-host=127.0.0.1 --mysql-port="$OLTPBENCH_TEST_PORT" --mysql-user=root --progress=off)
SECTIONS=${SECTIONS:-"prepare run variants csv memory"}
section() { case " $SECTIONS " in *" $1 "*) return 0 ;; esac; return 1; }
. scripts/bench-lib.sh # median, pair_row, alternate
timed() { /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" >"$work/log" 2>&1 || { tail -5 "$work/log" >&2; return 1; }; cat "$work/t"; }

# prep TOOL: one prepare on an empty database; prints "wall user sys rss".
prep() {
  "${OB[@]}" --db=tpcc cleanup >/dev/null 2>&1 || true
  case $1 in
    go-tpc) timed "$GOTPC" tpcc prepare --warehouses 4 -T 4 --no-check -D tpcc "${H[@]}" ;;
    oltpbench) timed "${OB[@]}" --db=tpcc prepare --warehouses=4 --threads=4 ;;
  esac
}
if section prepare; then
echo "== prepare, 4 warehouses ($PAIRS rounds, alternating, after one unmeasured prepare of each)"
# A freshly started server faults in its buffer pool during its first loads, which would weigh on whichever
# tool meets it.
prep go-tpc >/dev/null; prep oltpbench >/dev/null
: >"$work/prep"
for i in $(seq 1 "$PAIRS"); do
  order="go-tpc oltpbench"; [ $((i % 2)) -eq 0 ] && order="oltpbench go-tpc"
  for tool in $order; do
    read -r e u s m < <(prep "$tool")
    echo "$tool $e" >>"$work/prep"; echo "  $tool: $e s, cpu $(awk -v u=$u -v s=$s 'BEGIN{print u+s}') s"
  done
done
[ "$tool" = oltpbench ] || prep oltpbench >/dev/null # the runs below use oltpbench's dataset
g=$(awk '$1=="go-tpc"{print $2}' "$work/prep" | median); o=$(awk '$1=="oltpbench"{print $2}' "$work/prep" | median)
echo "  median: go-tpc $g s, oltpbench $o s, ratio $(awk -v a=$o -v b=$g 'BEGIN{printf "%.2f", a/b}')x (target <= 0.4x)"

fi
if section run; then
echo "== run: 4 warehouses, 16 threads, $DUR, no waits, on oltpbench's dataset ($PAIRS pairs)"
section prepare || prep oltpbench >/dev/null
: >"$work/run"
for i in $(seq 1 "$PAIRS"); do
  order="go-tpc oltpbench"; [ $((i % 2)) -eq 0 ] && order="oltpbench go-tpc"
  for tool in $order; do
    if [ "$tool" = go-tpc ]; then
      read -r e u s m < <(timed "$GOTPC" tpcc run --warehouses 4 -T 16 --time "$DUR" -D tpcc "${H[@]}")
      tpmc=$(awk '/^tpmC:/ {gsub(",","",$2); print $2}' "$work/log"); no=$(awk '/\[Summary\] NEW_ORDER -/ {for(i=1;i<=NF;i++) if ($i=="Count:") {gsub(",","",$(i+1)); print $(i+1)}}' "$work/log")
    else
      read -r e u s m < <(timed "${OB[@]}" --db=tpcc run --warehouses=4 --threads=16 --time="$DUR")
      tpmc=$(awk '/^tpmC:/ {gsub(",","",$2); print $2}' "$work/log"); no=$(awk '$1=="new_order" && $2 ~ /^[0-9]+$/ {print $2}' "$work/log" | tail -1)
    fi
    cpu=$(awk -v u=$u -v s=$s -v n=$no 'BEGIN{printf "%.3f", (u+s)*1000/n}')
    echo "$tool $tpmc $cpu $m" >>"$work/run"
    echo "  $tool: tpmC $tpmc, client CPU per New-Order $cpu ms, RSS $((m/1024)) MB"
  done
done
gt=$(awk '$1=="go-tpc"{print $2}' "$work/run" | median); ot=$(awk '$1=="oltpbench"{print $2}' "$work/run" | median)
gc=$(awk '$1=="go-tpc"{print $3}' "$work/run" | median); oc=$(awk '$1=="oltpbench"{print $3}' "$work/run" | median)
echo "  median tpmC: go-tpc $gt, oltpbench $ot, ratio $(awk -v a=$ot -v b=$gt 'BEGIN{printf "%.2f", a/b}')x (target >= 1.1x)"
echo "  median CPU/New-Order: go-tpc $gc ms, oltpbench $oc ms, ratio $(awk -v a=$oc -v b=$gc 'BEGIN{printf "%.2f", a/b}')x (target <= 0.8x)"

fi
if section variants; then
echo "== oltpbench variants: 4 warehouses, 16 threads, $DUR, no waits ($PAIRS rounds, alternating)"
# variant NAME: a run of oltpbench with that variant's options; prints "tpmC cpu-ms-per-new-order".
# Each variant runs on a dataset of its own, loaded fresh here, so all age alike over the rounds.
vargs() {
  case $1 in
    default) echo --db=tpcc_v_default ;;
    per-line) echo --db=tpcc_v_perline --stock-update=per-line ;;
    benchmarksql) echo --db=tpcc_v_bmsql --schema=benchmarksql ;;
  esac
}
variant() {
  local extra
  read -r -a extra < <(vargs "$1")
  read -r e u s m < <(timed "${OB[@]}" run --warehouses=4 --threads=16 --time="$DUR" "${extra[@]}")
  tpmc=$(awk '/^tpmC:/ {gsub(",","",$2); print $2}' "$work/log"); no=$(awk '$1=="new_order" && $2 ~ /^[0-9]+$/ {print $2}' "$work/log" | tail -1)
  echo "$tpmc $(awk -v u=$u -v s=$s -v n=$no 'BEGIN{printf "%.3f", (u+s)*1000/n}')"
}
VARIANTS=${VARIANTS:-"default per-line benchmarksql"}
for v in $VARIANTS; do
  read -r -a a < <(vargs "$v")
  "${OB[@]}" "${a[@]}" cleanup >/dev/null 2>&1 || true
  "${OB[@]}" "${a[@]}" prepare --warehouses=4 --threads=4 >/dev/null
done
: >"$work/var"
for i in $(seq 1 "$PAIRS"); do
  order=$VARIANTS; [ $((i % 2)) -eq 0 ] && order=$(echo "$VARIANTS" | awk '{for(i=NF;i>0;i--) printf "%s ", $i}')
  for v in $order; do
    read -r tpmc cpu < <(variant "$v")
    echo "$v $tpmc $cpu" >>"$work/var"; echo "  $v: tpmC $tpmc, client CPU per New-Order $cpu ms"
  done
done
dt=$(awk '$1=="default"{print $2}' "$work/var" | median); dc=$(awk '$1=="default"{print $3}' "$work/var" | median)
for v in $VARIANTS; do
  [ "$v" = default ] && continue
  vt=$(awk -v v=$v '$1==v{print $2}' "$work/var" | median); vc=$(awk -v v=$v '$1==v{print $3}' "$work/var" | median)
  echo "  median $v / default: tpmC $vt / $dt = $(awk -v a=$vt -v b=$dt 'BEGIN{printf "%.2f", a/b}')x, CPU per New-Order $vc / $dc ms = $(awk -v a=$vc -v b=$dc 'BEGIN{printf "%.2f", a/b}')x"
done

fi
if section csv; then
echo "== CSV generation, 4 warehouses, 4 threads ($PAIRS rounds)"
: >"$work/csv"
for i in $(seq 1 "$PAIRS"); do
  rm -rf "$work/c"; read -r e u s m < <(timed "$GOTPC" tpcc prepare --warehouses 4 -T 4 --output-type csv --output-dir "$work/c" -D tpcc)
  rows=$(cat "$work"/c/*.csv | wc -l); mb=$(du -sm "$work/c" | cut -f1)
  echo "go-tpc $(awk -v r=$rows -v u=$u -v s=$s 'BEGIN{printf "%.0f", r/(u+s)}') $m" >>"$work/csv"
  echo "  go-tpc: $rows rows, $mb MB, $e s wall, cpu $(awk -v u=$u -v s=$s 'BEGIN{print u+s}') s, RSS $((m/1024)) MB"
  rm -rf "$work/c"; read -r e u s m < <(timed "${OB[@]}" --db=tpcc prepare --load-mode=csv --warehouses=4 --threads=4 --dir="$work/c")
  rows=$(cat "$work"/c/*.csv | wc -l); rows=$((rows - $(ls "$work"/c/*.csv | wc -l))); mb=$(du -sm "$work/c" | cut -f1)
  echo "oltpbench $(awk -v r=$rows -v u=$u -v s=$s 'BEGIN{printf "%.0f", r/(u+s)}') $m" >>"$work/csv"
  echo "  oltpbench: $rows rows, $mb MB, $e s wall, cpu $(awk -v u=$u -v s=$s 'BEGIN{print u+s}') s, RSS $((m/1024)) MB"
done
g=$(awk '$1=="go-tpc"{print $2}' "$work/csv" | median); o=$(awk '$1=="oltpbench"{print $2}' "$work/csv" | median)
echo "  median rows per CPU-second: go-tpc $g, oltpbench $o, ratio $(awk -v a=$o -v b=$g 'BEGIN{printf "%.2f", a/b}')x (target >= 3x)"
rm -rf "$work/c"

fi
if section memory; then
echo "== memory: oltpbench peak RSS"
for w in $CSV_WAREHOUSES; do
  rm -rf "$work/c"; read -r e u s m < <(timed "${OB[@]}" --db=tpcc prepare --load-mode=csv --warehouses="$w" --threads=2 --dir="$work/c")
  echo "  CSV of $w warehouses: $e s, peak RSS $((m/1024)) MB"
done
rm -rf "$work/c"
for th in $MEM_THREADS; do
  read -r e u s m < <(timed "${OB[@]}" --db=tpcc run --warehouses=4 --threads="$th" --time=15s)
  echo "  run with $th threads: peak RSS $((m/1024)) MB"
done
fi
