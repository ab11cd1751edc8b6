#!/usr/bin/env bash
# GPU call for a restructuring that must keep speed and bits (issue "Engine II"): this tree and
# .base (base.sh: `git archive` of the commit to compare with, carried) built side by side; the GPU
# tests in TESTS (default t/gpu_parity t/gpu_shape.sh t/gpu_device.sh); then `mcens-bench --case N`
# for each N in CASES with both binaries, alternating, REPEAT times (default 2), each run stopped
# after BENCH_TIMEOUT s, the whole stopped before DEADLINE s of wall time (default 540); with
# CPU_ROWS=1, then the serial CPU rows (--case cpu) of both, alternating. Everything
# is written to $OUT as it comes (bench.txt, tests.log), so a call that runs out of time still
# returns what it measured.
set -uo pipefail
. doc/device/base.sh
base_build_start
. doc/device/build.sh
base_build_wait > "$out/base-build.txt" # not in a pipe: its wait must run in this shell
cat "$out/base-build.txt" >> "$out/bench.txt"
deadline=${DEADLINE:-540}
gpu_tests "t/gpu_parity t/gpu_shape.sh t/gpu_device.sh" | tee -a "$out/bench.txt"
echo "tests done at $SECONDS s" | tee -a "$out/bench.txt"
for ((r = 0; r < ${REPEAT:-2}; r++)); do
  for c in ${CASES:-1 6 7 3 2}; do
    [ $SECONDS -lt $deadline ] || { echo "deadline reached at $SECONDS s" | tee -a "$out/bench.txt"; break 2; }
    for tree in $base $PWD; do
      label=$([ $tree = $PWD ] && echo after || echo before)
      (cd $tree && timeout "${BENCH_TIMEOUT:-120}" ./mcens-bench --case "$c" 2>&1) | grep -E "^[0-9]|case [0-9]|mcens-bench:" |
        cut -c1-130 | sed "s|^|round $r $label: |" | tee -a "$out/bench.txt"
    done
  done
done
echo "bench done at $SECONDS s" | tee -a "$out/bench.txt"
# CPU_ROWS=1: the serial CPU rows (mcens-bench --case cpu) of both trees, alternating, REPEAT times
for ((r = 0; r < ${REPEAT:-2} && ${CPU_ROWS:-0}; r++)); do
  for tree in $base $PWD; do
    label=$([ $tree = $PWD ] && echo after || echo before)
    (cd $tree && timeout "${BENCH_TIMEOUT:-120}" ./mcens-bench --case cpu 2>&1) | grep -E "^[A-Z][0-9]" |
      cut -c1-130 | sed "s|^|cpu round $r $label: |" | tee -a "$out/bench.txt"
  done
done
