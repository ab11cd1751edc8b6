#!/usr/bin/env bash
# The whole test suite on the GPU machine at full parallelism (issue 44: the tests must pass with the
# machine loaded, not only alone): build; the tests in FIRST alone first (e.g. FIRST="t/gpu_parity
# t/gpu_run.sh": the GPU tests, which under the whole suite's load did not finish in 420 s), then
# `make -j$(nproc) check` of TESTS (default: every test) at once, stopped after SUITE_TIMEOUT s
# (default 420); then `mcens-bench --case N` for each N in CASES (default none). On one GPU every
# test runs its chains there: some twenty processes time-slice it unless MPS=1 (measured: 320
# tests' results in 420 s, and 12 long ones unfinished after 330 s without MPS). $OUT gets
# tests.log (first.log), test-suite.log and the log of every test that did not pass.
set -uo pipefail
. doc/device/build.sh
nvidia-smi -L
# MPS=1: the tests' processes share the GPU through NVIDIA MPS (without it some twenty processes
# time-slice one GPU and each small run waits most of its time: 12 tests did not finish in 330 s)
if [ "${MPS:-0}" = 1 ]; then
  export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
  mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
  nvidia-cuda-mps-control -d && echo "MPS started" || echo "MPS did not start"
  trap 'echo quit | nvidia-cuda-mps-control' EXIT
fi
if [ -n "${FIRST:-}" ]; then
  timeout "${FIRST_TIMEOUT:-300}" make -j"$(nproc)" check TESTS="$FIRST" > "$out/first.log" 2>&1
  echo "first ($FIRST): status $? after $SECONDS s"
  grep -E "^(FAIL|ERROR)" "$out/first.log" | cut -c1-200
  echo "$(grep -c '^PASS' "$out/first.log") passed, $(grep -c '^FAIL' "$out/first.log") failed, $(grep -c '^SKIP' "$out/first.log") skipped"
  for f in $FIRST; do cp --parents "${f%.*}.log" "$out/" 2>/dev/null; done
fi
start=$SECONDS
# what runs, and how busy the GPU is, every 60 s while the suite runs
( while sleep 60; do date; uptime; nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
  ps -eo etimes,pcpu,args --sort=-pcpu | grep -E "mcens|python|t/" | grep -v grep | head -40 | cut -c1-200; done ) > "$out/ps.txt" 2>&1 &
sampler=$!
timeout "${SUITE_TIMEOUT:-420}" make -j"$(nproc)" check ${TESTS:+TESTS="$TESTS"} > "$out/tests.log" 2>&1
echo "suite: status $? after $((SECONDS - start)) s"
kill $sampler
grep -E "^(FAIL|ERROR|XFAIL)" "$out/tests.log" | cut -c1-200
grep -h "^not ok" t/*.log 2>/dev/null | cut -c1-160
grep -h "# SKIP" t/*.log 2>/dev/null | cut -c1-160 | head -20
echo "$(grep -c '^PASS' "$out/tests.log") passed, $(grep -c '^FAIL' "$out/tests.log") failed, $(grep -c '^SKIP' "$out/tests.log") skipped"
[ -f test-suite.log ] && cp test-suite.log "$out/"
# the logs of the tests that failed, and with TESTS given, of every one of them (a partial log says how far
# a test got before the timeout)
for f in $(grep -E "^(FAIL|ERROR)" "$out/tests.log" | awk '{print $2}') ${TESTS:-}; do cp --parents "${f%.*}.log" "$out/" 2>/dev/null; done
for c in ${CASES:-}; do timeout 120 ./mcens-bench --case "$c" 2>&1 | grep -E "^[0-9]|case [0-9]|mcens-bench:" | cut -c1-130; done
