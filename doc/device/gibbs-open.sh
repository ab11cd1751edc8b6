#!/usr/bin/env bash
# The Gibbs sweep kernel of atoms compiled twice, with and without gcmc's insertions and deletions
# (gibbs_sweep_kernel<OPEN>): build this tree and .base (base.sh) side by side; t/gpu_parity's gcmc
# and Gibbs cases; `mcens-bench --case 5` in both trees, REPEAT times (default 1); then, with
# JOBSCRIPTS=1, jobscripts-timer.sh. Results on stdout, logs under $OUT.
set -uo pipefail
. doc/device/base.sh
base_build_start
. doc/device/build.sh
. doc/device/jobscripts-timer.sh
base_build_wait
make t/gpu_parity > "$out/parity-build.log" 2>&1 || tail -20 "$out/parity-build.log"
GPU_PARITY_ONLY="*g*" timeout 200 ./t/gpu_parity > "$out/parity.log" 2>&1
echo "gpu_parity (*g*): status $? after $SECONDS s"
grep -E "^(ok|not ok)|FAIL" "$out/parity.log" | cut -c1-160
for ((r = 0; r < ${REPEAT:-1}; r++)); do
  BENCH_LINES="^5|Gibbs chains|mcens-bench:" bench_both --case 5
done
echo "bench done at $SECONDS s"
[ "${JOBSCRIPTS:-0}" = 1 ] && jobscripts_timer
