#!/usr/bin/env bash
# Issue 43 on the GPU: build (and t/gpu_parity, which `make all` leaves out); its cases matching
# GPU_PARITY_ONLY (default "*g*": gcmc and Gibbs); with RESTART=1 a gcmc run on the GPU killed at a
# sweep (rank 1 of 2, MCENS_TEST_KILL_AT) and restarted on 3 ranks against an uninterrupted one
# (t/restart.sh's gcmc case, which as a whole did not finish in 150 s there); then TESTS if given;
# then with EXAMPLE=1 examples/tmmc.ini in full on the GPU (128 chains, one block each), stopped
# after EXAMPLE_TIMEOUT s. $OUT gets tmmc-gpu.h5 and every log in logs.tgz.
set -uo pipefail
. doc/device/build.sh
make t/gpu_parity > parity-build.log 2>&1 || tail -20 parity-build.log
export GPU_PARITY_ONLY="${GPU_PARITY_ONLY:-*g*}"
timeout "${PARITY_TIMEOUT:-200}" ./t/gpu_parity > parity.log 2>&1
echo "gpu_parity ($GPU_PARITY_ONLY): status $? after $SECONDS s"
grep -E "^(ok|not ok)|^# (gcmc|gibbs)|FAIL|rror" parity.log | cut -c1-220
if [ "${RESTART:-0}" = 1 ]; then
  printf '[run]\nseed = 9\nequilibration = 40\nproduction = 80\nsample_every = 4\ncheckpoint_every = 1e-6\n[system]\nbox_length = 6\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = gcmc\ntemperature = 1.2, 1.5\nlnz = -3\nn_max = 60\nreplicas = 2\n[tmmc]\nwindows = 3\n' > gcmc-restart.ini
  mpirun -np 2 ./mcens -q -o full.h5 gcmc-restart.ini > restart.log 2>&1
  MCENS_TEST_KILL_AT=1:${KILL_AT:-83} mpirun -np 2 ./mcens -q -o cut.h5 gcmc-restart.ini >> restart.log 2>&1; killed=$?
  mpirun -np 3 ./mcens -q --restart -o cut.h5 gcmc-restart.ini >> restart.log 2>&1; restarted=$?
  python3 t/h5check.py same_results full.h5 cut.h5 >> restart.log 2>&1; same=$?
  echo "gcmc restart on the GPU: killed status $killed, restart status $restarted, same results status $same"
  grep -E "paths|backend" restart.log | head -2 | cut -c1-160
fi
if [ -n "${TESTS:-}" ]; then
  start=$SECONDS
  timeout "${SUITE_TIMEOUT:-200}" make -j8 check TESTS="$TESTS" > tests.log 2>&1
  echo "tests: status $? after $((SECONDS - start)) s"
  grep -E "^(FAIL|ERROR)" tests.log | cut -c1-200
  echo "$(grep -c '^PASS' tests.log) passed, $(grep -c '^FAIL' tests.log) failed, $(grep -c '^SKIP' tests.log) skipped"
fi
if [ "${EXAMPLE:-0}" = 1 ]; then
  start=$SECONDS
  timeout "${EXAMPLE_TIMEOUT:-150}" ./mcens -o "$out/tmmc-gpu.h5" examples/tmmc.ini > run-tmmc.log 2>&1
  echo "tmmc example on the GPU: status $? after $((SECONDS - start)) s"
  grep -E "moves/s|paths|backend|^ +[0-9]+ " run-tmmc.log | cut -c1-160
fi
tar czf "$out/logs.tgz" $(ls parity.log restart.log tests.log run-tmmc.log test-suite.log t/*.log 2>/dev/null)
