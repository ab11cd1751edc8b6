#!/usr/bin/env bash
# GPU call for issue 14's shape E (one chain of N = 50,000, no cutoff): the decide kernel's sequential
# pass as warp-wide rounds over trial-pair corrections precomputed by the energy kernel. Builds this tree;
# runs the batched-path parity cases (ONLY=pattern picks others), compute-sanitizer memcheck and
# racecheck on batched jobs with many repeated particles (N = 4096, K = 1024, single and double),
# mcens-bench --case 2 at K = 256, 512 and 1024; then, with BASE=1, the same for the commit before
# the change (its `git archive` in .base/base.tar, carried); then a copy of cu_batched.cu with
# clock64() phase counters (.base/cu_batched_prof.cu, made by doc/device/batched-phases.py) on one
# chain of N = 50,000 at K = 512 and 1024. Logs under $OUT.
set -uo pipefail
. doc/device/base.sh
[ -n "${BASE:-}" ] && base_build_start
. doc/device/build.sh
. doc/device/sanitize.sh
GPU_PARITY_ONLY="${ONLY:-*batched*}" gpu_tests "t/gpu_parity"
grep -h "^# \|^ok\|^not ok" t/gpu_parity.log | cut -c1-160 | tail -12
sanitize_precisions '[run]\nseed = 3\nequilibration = 0\nproduction = 2\nsample_every = 1\nprecision = %s\ngpu_batch_trials = 1024\n[system]\nn = 4096\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 1.0\ndensity = 0.8\n'
echo "tests and sanitizers done at $SECONDS s"
row() { grep -E "^2 N" "$1" | awk '{printf "%s %s  ", $(NF-5), $(NF-4)}'; echo; }
trees=.; [ -n "${BASE:-}" ] && { base_build_wait; trees=". $base"; }
for K in 512 1024 256; do
  for tree in $trees; do
    $tree/mcens-bench --case 2 --batch-trials $K > b.txt 2>&1; echo "K $K $( [ $tree = . ] && echo this || echo base): $(row b.txt)"
  done
done
cp cuda/cu_batched.cu /tmp/cu_batched.keep; cp .base/cu_batched_prof.cu cuda/cu_batched.cu
make -j16 mcens > "$out/build-prof.log" 2>&1 || { tail -5 "$out/build-prof.log"; exit 1; }
for K in 512 1024; do
  printf '[run]\nseed = 8\nprecision = single\nequilibration = 0\nproduction = 4\nsample_every = 4\ngpu_batch_trials = %d\n[system]\nn = 50000\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 1\ndensity = 0.8\n' $K > e.ini
  rm -f e.h5; ./mcens -q -o e.h5 e.ini 2>&1 | grep phases | head -3
done
cp /tmp/cu_batched.keep cuda/cu_batched.cu
echo "all done at $SECONDS s"
