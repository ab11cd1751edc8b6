#!/usr/bin/env bash
# GPU call closing issue 14's shape E work (one large chain: corrections precomputed for every
# pair of trials, windows of 32 decided by warp votes, alt rows for repeated particles): build;
# t/gpu_parity, t/gpu_run.sh and t/restart.sh through the GPU; compute-sanitizer on a batched job
# with many repeated particles, single and double; mcens-bench cases 2 (and the launch-per-move
# baseline), 3 and 1. Results on stdout; the test log as $OUT/tests.log.
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
gpu_tests "t/gpu_parity t/gpu_run.sh t/restart.sh"
echo "tests done at $SECONDS s"
sanitize_precisions '[run]\nseed = 3\nequilibration = 0\nproduction = 2\nsample_every = 1\nprecision = %s\ngpu_batch_trials = 1024\n[system]\nn = 4096\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 1.0\ndensity = 0.8\n'
echo "sanitizers done at $SECONDS s"
for c in 2 3 1; do ./mcens-bench --case $c > b$c.txt 2>&1; grep -E "^[0-9] |^case|^GPU" b$c.txt | cut -c1-130; done
echo "all done at $SECONDS s"
