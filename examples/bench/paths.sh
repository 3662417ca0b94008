#!/bin/sh
# SPDX-License-Identifier: MIT
# One benchmark on neighbouring paths: tauform_bench ARGS --path K for K = FIRST..LAST, one line
# each (time, Newton and CG iterations a step, steps at the budget, strain), then each column's
# median. A contact run is chaotic in its last bits, so a change to the solver is read over
# several paths, not one.
#   examples/bench/paths.sh BENCH FIRST LAST ARGS...
#   examples/bench/paths.sh build/examples/bench/tauform_bench 0 7 --scene drape --n 64 \
#     --collider ../shared/anchors/meshes/icosphere3.obj --tolerance 1e-2 --threads 1
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 BENCH FIRST LAST ARGS..." >&2
  exit 2
fi
bench=$1
first=$2
last=$3
shift 3
[ -x "$bench" ] || { echo "$0: no $bench (build the benchmarks first)" >&2; exit 2; }
key() { echo "$2" | sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p"; }
# the median of a column of numbers (the mean of the middle two for an even count)
median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
echo "path  ms/frame  median  Newton/step  CG/step  at budget  max strain"
rows=""
k=$first
while [ "$k" -le "$last" ]; do
  r=$("$bench" "$@" --path "$k" 2>/dev/null | grep '^RESULT')
  if [ -z "$r" ]; then
    echo "$k  (no RESULT line)"
  else
    row=$(printf '%4s  %8s  %6s  %11s  %7s  %9s  %s' "$k" "$(key ms_per_frame "$r")" \
      "$(key ms_median_frame "$r")" "$(key newton_per_step "$r")" "$(key cg_per_step "$r")" \
      "$(key unconverged_steps "$r")" "$(key max_strain "$r")")
    echo "$row"
    rows="$rows$row
"
  fi
  k=$((k + 1))
done
col() { printf '%s' "$rows" | awk -v c="$1" 'NF { print $c }' | median; }
[ -n "$rows" ] && printf 'median  %6s  %6s  %11s  %7s  %9s  %s\n' "$(col 2)" "$(col 3)" "$(col 4)" \
  "$(col 5)" "$(col 6)" "$(col 7)"
exit 0
