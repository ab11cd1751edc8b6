#!/usr/bin/env bash
# Issue 47 on the GPU: charged molecules (cuda/cu_ewald.cuh). Build; t/gpu_parity's cases matching
# each pattern of PARITY (default "*spce* *rigid*": the SPC/E cases, then every molecule case);
# then mcens-bench's cases in BENCH (default "12 9": SPC/E, and benzene as a check of the molecule
# kernels' rate); then TESTS if given. $OUT gets every log in logs.tgz.
set -uo pipefail
. doc/device/build.sh
make t/gpu_parity mcens-bench > parity-build.log 2>&1 || tail -20 parity-build.log
for pattern in ${PARITY-*spce* *rigid*}; do
  start=$SECONDS
  GPU_PARITY_ONLY="$pattern" timeout "${PARITY_TIMEOUT:-200}" ./t/gpu_parity > "parity-${pattern//\*/}.log" 2>&1
  echo "gpu_parity ($pattern): status $? after $((SECONDS - start)) s"
  grep -E "^(ok|not ok)|^# (rigid|npt|Widom|no exchange|exchange)|FAIL|rror" "parity-${pattern//\*/}.log" | cut -c1-220
done
for c in ${BENCH-12 9}; do
  start=$SECONDS
  timeout "${BENCH_TIMEOUT:-200}" ./mcens-bench --case "$c" > "bench-$c.log" 2>&1
  echo "mcens-bench --case $c: status $? after $((SECONDS - start)) s"
  grep -vE "^$" "bench-$c.log" | cut -c1-200
done
[ -n "${TESTS:-}" ] && gpu_tests "$TESTS"
tar czf "$out/logs.tgz" $(ls parity-*.log bench-*.log test-suite.log t/*.log 2>/dev/null)
