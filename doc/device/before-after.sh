#!/usr/bin/env bash
# GPU call: this tree against .base (base.sh: `git archive` of the commit to compare with, carried),
# both built side by side; `mcens-bench --case N` for each N in CASES (default 7 6 2 3 1: shapes
# A, B, E, F and the small chains) with both binaries, alternating, REPEAT times (default 2); the
# serial CPU rows (`--case cpu`) of both with CPU_ROWS=1; then the GPU tests in TESTS (default
# t/gpu_parity t/gpu_run.sh t/restart.sh t/gpu_shape.sh) unless NO_TESTS=1. Results on stdout, logs
# under $OUT. (doc/performance.md version 27, then named image-fold.sh, and version 28.)
set -uo pipefail
. doc/device/base.sh
base_build_start
. doc/device/build.sh
base_build_wait
for ((r = 0; r < ${REPEAT:-2}; r++)); do
  for c in ${CASES:-7 6 2 3 1}; do
    BENCH_LINES="^$c|NVT|NPT|npt|all-pairs rate|mcens-bench:" bench_both --case "$c"
  done
  echo "round $r done at $SECONDS s"
done
if [ -n "${CPU_ROWS:-}" ]; then
  BENCH_LINES="^C|^D|^K" bench_both --case cpu
  echo "cpu rows done at $SECONDS s"
fi
[ -n "${NO_TESTS:-}" ] && exit 0
gpu_tests "t/gpu_parity t/gpu_run.sh t/restart.sh t/gpu_shape.sh" # or $TESTS
echo "tests done at $SECONDS s"
