#!/usr/bin/env bash
# Issue 43 on the GPU: build; t/gpu_parity's grand-canonical and Gibbs cases (GPU_PARITY_ONLY, default
# "*g*"), then TESTS (default t/gcmc.sh and t/restart.sh, whose gcmc runs take the GPU there);
# then examples/tmmc.ini in full on the GPU (128 chains, one block each), stopped after
# EXAMPLE_TIMEOUT s. $OUT gets tmmc-gpu.h5 and every log in logs.tgz.
set -uo pipefail
. doc/device/build.sh
export GPU_PARITY_ONLY="${GPU_PARITY_ONLY:-*g*}"
timeout "${PARITY_TIMEOUT:-200}" ./t/gpu_parity > parity.log 2>&1
echo "gpu_parity ($GPU_PARITY_ONLY): status $? after $SECONDS s"
grep -E "^(ok|not ok)|^# (gcmc|gibbs)|FAIL|rror" parity.log | cut -c1-220
start=$SECONDS
timeout "${SUITE_TIMEOUT:-200}" make -j8 check TESTS="${TESTS:-t/gcmc.sh t/restart.sh}" > tests.log 2>&1
echo "tests: status $? after $((SECONDS - start)) s"
grep -E "^(FAIL|ERROR)" tests.log | cut -c1-200
echo "$(grep -c '^PASS' tests.log) passed, $(grep -c '^FAIL' tests.log) failed, $(grep -c '^SKIP' tests.log) skipped"
grep -h "gcmc" t/restart.log 2>/dev/null | head -3
start=$SECONDS
timeout "${EXAMPLE_TIMEOUT:-150}" ./mcens -o "$out/tmmc-gpu.h5" examples/tmmc.ini > run-tmmc.log 2>&1
echo "tmmc example on the GPU: status $? after $((SECONDS - start)) s"
grep -E "moves/s|paths|backend|^ +[0-9]+ " run-tmmc.log | cut -c1-160
tar czf "$out/logs.tgz" parity.log tests.log run-tmmc.log $(ls test-suite.log t/*.log 2>/dev/null)
