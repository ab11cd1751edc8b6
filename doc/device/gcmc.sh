#!/usr/bin/env bash
# Issue 43's GPU-machine call: build; examples/tmmc.ini in full on RANKS (12) CPU ranks (gcmc chains
# run on the CPU backend, which backend = auto takes for them beside a GPU) while the GPU tests in
# FIRST (t/gpu_run.sh, which did not finish under load before) run alone on the GPU, stopped after
# FIRST_TIMEOUT s; then TESTS with make -j8, stopped after SUITE_TIMEOUT s. $OUT gets tmmc.h5 and
# logs.tgz (the machine returns only a few files: every log goes into one archive).
set -uo pipefail
. doc/device/build.sh
( s=$SECONDS; mpirun -np "${RANKS:-12}" ./mcens -o "$out/tmmc.h5" examples/tmmc.ini > run-tmmc.log 2>&1
  echo "tmmc example: status $? after $((SECONDS - s)) s on ${RANKS:-12} ranks" >> run-tmmc.log ) &
example=$!
timeout "${FIRST_TIMEOUT:-330}" make check TESTS="${FIRST:-t/gpu_run.sh}" > first.log 2>&1
echo "first (${FIRST:-t/gpu_run.sh}): status $? after $SECONDS s"
grep -E "^(PASS|FAIL|ERROR|SKIP)" first.log | awk '{print $1}' | sort | uniq -c
grep -E "^(FAIL|ERROR)" first.log | cut -c1-200
wait $example
grep -E "moves/s|status|point|^ +[0-9]+ " run-tmmc.log | cut -c1-160
if [ -n "${TESTS:-}" ]; then
  start=$SECONDS
  timeout "${SUITE_TIMEOUT:-150}" make -j8 check TESTS="$TESTS" > tests.log 2>&1
  echo "tests: status $? after $((SECONDS - start)) s"
  grep -E "^(FAIL|ERROR)" tests.log | cut -c1-200
  grep -h "^not ok" t/*.log 2>/dev/null | cut -c1-160
  grep -h "# SKIP" t/*.log 2>/dev/null | cut -c1-160 | head
  echo "$(grep -c '^PASS' tests.log) passed, $(grep -c '^FAIL' tests.log) failed, $(grep -c '^SKIP' tests.log) skipped"
fi
tar czf "$out/logs.tgz" first.log run-tmmc.log $(ls tests.log test-suite.log t/*.log 2>/dev/null)
