#!/usr/bin/env bash
# make bench-s3: CSV generation straight into object storage, against its
# floor, on a throwaway Versity S3 Gateway sharing this machine's cores:
#   wall time of `csv tpcc --dir s3://...` against uploading the same bytes
#   from ready local files with the same library, part size, part pool and
#   files at once (scripts/s3floor), alternating, medians and the ratio
#   (target <= 1.25x); rows/s beside generation to local disk;
#   peak RSS at --threads=16 for 1 and 50 warehouses (target < 200 MB, flat).
# Knobs: PAIRS (3), WAREHOUSES (10), THREADS (16), MEM_WAREHOUSES ("1 50").
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${PAIRS:-3}
W=${WAREHOUSES:-10}
T=${THREADS:-16}
MEM_WAREHOUSES=${MEM_WAREHOUSES:-"1 50"}
[ -x /usr/bin/time ] || { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
s3dir="$PWD/.s3-bench"
scripts/s3-stop.sh "$s3dir" --wipe
scripts/s3-start.sh "$s3dir"
work=$(mktemp -d -p "$PWD" .bench-s3.XXXX)
trap 'scripts/s3-stop.sh "$s3dir" --wipe; rm -rf "$work"' EXIT
. "$s3dir/env"
mkdir -p "$OLTPBENCH_TEST_S3_DATA/bench" # a bucket of the posix backend
url() { echo "s3://bench/$1?endpoint=$OLTPBENCH_TEST_S3_ENDPOINT&access-key=$OLTPBENCH_TEST_S3_ACCESS_KEY&secret-access-key=$OLTPBENCH_TEST_S3_SECRET_KEY"; }
go build -o "$work/s3floor" ./scripts/s3floor
. scripts/bench-lib.sh # median, pair_row, alternate
# CPU seconds the S3 server has used so far (it shares the cores).
srvcpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.2f\n", ($14+$15)/hz}' "/proc/$(cat "$s3dir/pid")/stat"; }
timed() { /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" >"$work/log" 2>&1 || { tail -5 "$work/log" >&2; return 1; }; cat "$work/t"; }
CSV=(bin/oltpbench csv tpcc --warehouses="$W" --threads="$T" --progress=off --db=tpcc)

echo "== $W warehouses, --threads=$T: generation to s3:// vs uploading ready files vs generation to local disk ($PAIRS rounds, alternating)"
"${CSV[@]}" --dir="$work/src" >/dev/null # the floor's source files
bytes=$(cat "$work"/src/*.csv | wc -c)
: >"$work/r"
for i in $(seq 1 "$PAIRS"); do
  order="gen floor local"; [ $((i % 2)) -eq 0 ] && order="local floor gen"
  for what in $order; do
    s0=$(srvcpu)
    case $what in
      gen) read -r e u s m < <(timed "${CSV[@]}" --dir="$(url gen$i)"); rows=$(awk '/^Wrote/ {print $2}' "$work/log"); rm -rf "$OLTPBENCH_TEST_S3_DATA/bench/gen$i" ;;
      floor) read -r e u s m < <(timed "$work/s3floor" -threads "$T" "$work/src" "$(url up$i)"); rm -rf "$OLTPBENCH_TEST_S3_DATA/bench/up$i" ;;
      local) rm -rf "$work/l"; read -r e u s m < <(timed "${CSV[@]}" --dir="$work/l") ;;
    esac
    sc=$(awk -v a="$s0" -v b="$(srvcpu)" 'BEGIN{printf "%.2f", b-a}')
    busy=$(awk -v u=$u -v s=$s -v c=$sc -v e=$e 'BEGIN{printf "%.2f", (u+s+c)/e}')
    echo "$what $e $(awk -v u=$u -v s=$s 'BEGIN{print u+s}') $sc" >>"$work/r"
    echo "  $what: $e s wall, client cpu $(awk -v u=$u -v s=$s 'BEGIN{print u+s}') s, server cpu $sc s, cores busy $busy of $(nproc), RSS $((m/1024)) MB"
  done
done
rm -rf "$work/l"
g=$(awk '$1=="gen"{print $2}' "$work/r" | median); f=$(awk '$1=="floor"{print $2}' "$work/r" | median); l=$(awk '$1=="local"{print $2}' "$work/r" | median)
echo "  $rows rows, $((bytes/1048576)) MiB of CSV"
echo "  median wall: generate to s3 $g s, upload ready files $f s, ratio $(awk -v a=$g -v b=$f 'BEGIN{printf "%.2f", a/b}')x (target <= 1.25x)"
# Both runs keep the cores busy, so each takes about (client + server CPU) / cores: generation adds the CPU
# of making the rows, which uploading ready files does not pay. That is the bound on this machine.
cg=$(awk '$1=="gen"{print $3+$4}' "$work/r" | median); cf=$(awk '$1=="floor"{print $3+$4}' "$work/r" | median)
echo "  median CPU (client + server): generate to s3 $cg s, upload ready files $cf s, ratio $(awk -v a=$cg -v b=$cf 'BEGIN{printf "%.2f", a/b}')x: the wall ratio a CPU-bound machine allows"
echo "  rows/s: to s3 $(awk -v r=$rows -v t=$g 'BEGIN{printf "%.0f", r/t}'), to local disk $(awk -v r=$rows -v t=$l 'BEGIN{printf "%.0f", r/t}') (local $l s)"
rm -rf "$work/src"

echo "== peak RSS of csv tpcc --threads=16 to s3://"
for w in $MEM_WAREHOUSES; do
  read -r e u s m < <(timed bin/oltpbench csv tpcc --warehouses="$w" --threads=16 --progress=off --db=tpcc --dir="$(url mem$w)")
  rm -rf "$OLTPBENCH_TEST_S3_DATA/bench/mem$w"
  echo "  $w warehouses: $e s, peak RSS $((m/1024)) MB (target < 200 MB, flat)"
done
