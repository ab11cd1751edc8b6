#!/usr/bin/env bash
# GPU call closing doc/performance.md version 31 (issue 14's shape B): build; the GPU tests
# (t/gpu_parity, t/gpu_run.sh, t/restart.sh, t/gpu_shape.sh, or TESTS); compute-sanitizer
# (memcheck, racecheck) on a small npt chain job in single and double; then mcens-bench's cases
# 6 and 1. Logs in one archive under $OUT.
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
trap 'cp t/*.log "$out"/ 2>/dev/null; cd "$out" && tar czf logs.tgz --exclude logs.tgz . && find . -type f ! -name logs.tgz -delete' EXIT
gpu_tests "t/gpu_parity t/gpu_run.sh t/restart.sh t/gpu_shape.sh"
grep -h "npt\|drift" t/gpu_parity.log t/gpu_run.log | cut -c1-200
echo "tests done at $SECONDS s"
sanitize_precisions '[run]\nseed = 3\nequilibration = 20\nproduction = 20\nsample_every = 10\nprecision = %s\n[system]\nn = 200\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\ntemperature = 1.0\npressure = 1.0\ndensity = 0.7\nreplicas = 4\n'
echo "sanitizer done at $SECONDS s"
for c in 6 1; do ./mcens-bench --case $c 2>&1 | grep -E "^$c|case $c" | cut -c1-120; done
echo "bench done at $SECONDS s"
