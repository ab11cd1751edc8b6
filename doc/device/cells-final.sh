#!/usr/bin/env bash
# GPU call for the large-chain cell path (issue 14, shape F, and the rank-count fix: each chain on
# its own grid, the rank's chains one after another): build; t/gpu_parity, t/gpu_run.sh and
# t/restart.sh through the GPU; compute-sanitizer on two large chains with a cutoff, exchange and Widom insertions;
# mcens-bench --case 3 and 1, or the cases in CASES (the ceiling is printed by each).
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
gpu_tests "${TESTS:-t/gpu_parity t/gpu_run.sh t/restart.sh}"
grep -h "exchange, [0-9]* chains" t/gpu_parity.log | cut -c1-160
echo "tests done at $SECONDS s"
sanitize_precisions '[run]\nseed = 3\nequilibration = 0\nproduction = 4\nsample_every = 2\nprecision = %s\n[system]\nn = 4096\n[potential]\ncutoff = 2.1\n[ensemble]\ntemperature = 1.2, 1.21\ndensity = 0.8\nexchange_every = 1\nwidom = 16\n'
echo "sanitizers done at $SECONDS s"
for c in ${CASES:-3 1}; do ./mcens-bench --case $c > b$c.txt 2>&1; grep -E "^[0-9] |all-pairs rate" b$c.txt | cut -c1-130; done
echo "bench done at $SECONDS s"
