#!/usr/bin/env bash
# Issue 45 on the GPU: a few medium chains batched side by side (cuda/cu_batched.cu, the
# few-chains path). Build; t/gpu_parity's cases matching each pattern of PARITY (default: the atom
# cases the path change touches); mcens-bench's cases in BENCH (default "14 2": the examples'
# few-chain sweeps on both paths, and the one large chain the batched kernels ran alone before);
# then TESTS if given. $OUT gets the logs in logs.tgz.
set -uo pipefail
. doc/device/build.sh
make t/gpu_parity mcens-bench > parity-build.log 2>&1 || tail -20 parity-build.log
for pattern in ${PARITY-*n500* *few* *overlap* *exchange_chains* *exchange_npt* *npt_chains_odd* batched_k* *chain_cells* *mixture_batched*}; do
  start=$SECONDS
  GPU_PARITY_ONLY="$pattern" timeout "${PARITY_TIMEOUT:-200}" ./t/gpu_parity > "parity-${pattern//\*/}.log" 2>&1
  echo "gpu_parity ($pattern): status $? after $((SECONDS - start)) s"
  grep -E "^(ok|not ok)|^# on |FAIL|rror" "parity-${pattern//\*/}.log" | cut -c1-220
done
for c in ${BENCH-14 2}; do
  start=$SECONDS
  timeout "${BENCH_TIMEOUT:-200}" ./mcens-bench --case "$c" ${BENCH_ARGS:-} > "bench-$c.log" 2>&1
  echo "mcens-bench --case $c: status $? after $((SECONDS - start)) s"
  grep -vE "^$" "bench-$c.log" | cut -c1-200
done
[ -n "${TESTS:-}" ] && gpu_tests "$TESTS"
tar czf "$out/logs.tgz" $(ls parity-*.log bench-*.log test-suite.log t/*.log 2>/dev/null)
