# Shared by the bench scripts: . scripts/bench-lib.sh

# median: the median of the numbers on stdin, one per line.
median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.6g\n", (a[NR/2]+a[NR/2+1])/2}'; }

# pair_row FILE A B NAME THREADS: one table row from FILE's lines "MODE QPS
# CPU": the medians of A's and B's QPS and CPU, and B / A for both.
pair_row() {
  local f=$1 a=$2 b=$3 aq bq ac bc
  aq=$(awk -v m="$a" '$1==m {print $2}' "$f" | median)
  bq=$(awk -v m="$b" '$1==m {print $2}' "$f" | median)
  ac=$(awk -v m="$a" '$1==m {print $3}' "$f" | median)
  bc=$(awk -v m="$b" '$1==m {print $3}' "$f" | median)
  printf "%-22s %7s | %10s %10s %6.3fx | %9s %9s %6.3fx\n" "$4" "$5" "$aq" "$bq" "$(awk -v x="$bq" -v y="$aq" 'BEGIN{print x/y}')" \
    "$ac" "$bc" "$(awk -v x="$bc" -v y="$ac" 'BEGIN{print x/y}')"
}

# alternate FILE A B ARGS...: PAIRS pairs of the caller's `run A ARGS` and
# `run B ARGS`, the order swapped every pair (a machine drifts over
# minutes), each run's line "MODE figures..." appended to FILE (VERBOSE=1:
# shown on stderr too).
alternate() {
  local f=$1 a=$2 b=$3 i mode line
  shift 3
  for i in $(seq 1 "$PAIRS"); do
    for mode in $([ $((i % 2)) -eq 1 ] && echo "$a $b" || echo "$b $a"); do
      line="$mode $(run "$mode" "$@")"
      echo "$line" >>"$f"
      [ -n "${VERBOSE:-}" ] && echo "  pair $i: $line" >&2
    done
  done
  return 0
}
