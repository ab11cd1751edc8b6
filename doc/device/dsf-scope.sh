#!/usr/bin/env bash
# GPU call of issue 47's second stop. Builds this tree and .base (the commit before the S(k)
# recompute fix, 9c99357); then
#  1. t/gpu_parity's SPC/E cases (Ewald and DSF) and mcens-bench cases 12 (Ewald) and 13 (DSF);
#  2. t/gpu_run.sh's SPC/E water with exchange on 1 and 3 ranks, with either tree's mcens: the
#     same bits after the fix, and (the test's own check) whether they differed before it.
# Progress goes to stdout line by line (no pipe that holds it back: a call that runs out of time
# still shows how far it came).
set -uo pipefail
. doc/device/base.sh
base_build_start
. doc/device/build.sh
base_build_wait
make t/gpu_parity mcens-bench > parity-build.log 2>&1 || tail -20 parity-build.log
GPU_PARITY_ONLY='*spce*' timeout 200 ./t/gpu_parity > parity.log 2>&1
echo "gpu_parity *spce*: status $?"; grep -E "^(ok|not ok)" parity.log
for c in 12 13; do timeout 200 ./mcens-bench --case $c 2>&1 | grep -E "^(W|1[23]) |^case 1[23]"; done
echo "--- S(k) recompute scope: SPC/E water with exchange on 1 and 3 ranks"
mkdir -p /tmp/scope && cd /tmp/scope || exit 1
{ printf '[run]\nseed = 5\nbackend = gpu\nequilibration = 40\nproduction = 80\nsample_every = 4\n'
  sed -n '/^spce_model() {/,/^}/p' "$OLDPWD/t/tap.sh" | sed '1,2d;$d' | sed '$d'
  printf 'counts = 64\n[potential]\ncutoff = 0.6\ncoulomb = ewald\n[ensemble]\ntemperature = 298, 330\ndensity = 33.4\n'
  printf 'replicas = 2\nexchange_every = 4\n'; } > water.ini
for tree in "$base" "$OLDPWD"; do
  for np in 1 3; do timeout 120 mpirun -np $np "$tree/mcens" -q -o w$np.h5 water.ini > w$np.txt 2>&1 || tail -3 w$np.txt; done
  echo "$([ "$tree" = "$base" ] && echo before || echo after): $(PYTHONPATH=$OLDPWD/t python3 $OLDPWD/t/h5check.py same_results w1.h5 w3.h5 2>&1 | tail -2 | tr '\n' ' ')"
  rm -f w*.h5
done
cd "$OLDPWD"
echo "done at $SECONDS s"
