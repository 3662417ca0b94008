#!/bin/sh
# SPDX-License-Identifier: MIT
# The same C tests on neighbouring paths: each named test run with TF_PERTURB_SEED = 1..SEEDS
# (every grid coordinate moved by up to 1e-12 m, tests/c/scenes.h) and with 0 (as shipped). A
# physics test whose bound holds on the shipped path but not on these holds by luck: a user's
# mesh, another compiler or a change that only rounds differently lands on one of them.
#   tests/ensemble.sh BUILD_DIR SEEDS TEST_PREFIX...
# prints, per test, the seeds that failed and each run's notes (TF_NOTE) with FAIL lines; exit 0.
# Tests of exact geometry (a grid's spacing to 1e-12, equal rest lengths) fail under any
# perturbation by design: read the failure, not the count.
set -u
if [ $# -lt 3 ]; then
  echo "usage: $0 BUILD_DIR SEEDS TEST_PREFIX..." >&2
  exit 2
fi
runner=$1/tests/tf_tests
seeds=$2
shift 2
[ -x "$runner" ] || { echo "$0: no $runner (build the tests first)" >&2; exit 2; }
for t in "$@"; do
  failed=""
  k=0
  while [ "$k" -le "$seeds" ]; do
    out=$(TF_PERTURB_SEED=$k "$runner" "$t" 2>&1)
    echo "$out" | grep -q '^\[ FAIL' && failed="$failed $k"
    echo "$out" | grep -E '^\s+note:|ENSURE|^\[ FAIL' | sed "s/^/  seed $k: /"
    k=$((k + 1))
  done
  echo "$t: failed at seeds:${failed:- none} (of 0..$seeds)"
done
