#!/usr/bin/env bash
# GPU call for molecules' batched trials (issue 14, shape D; cuda/cu_rigid_batch.cu): build; the
# molecule cases of t/gpu_parity, resident and batched (or the tests in TESTS, with GPU_PARITY_ONLY
# as given, all for every case); compute-sanitizer on one chain of 150 hexagons (batched, K = 32) in single and
# double; then one chain of examples/benzene.ini's molecules (shape D, 2000 sweeps) in single and
# double at each K in KS (gpu_batch_trials; 0 chooses), moves/s from /parameters@moves_per_second;
# then mcens-bench for the cases in CASES (none unless set).
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
export GPU_PARITY_ONLY="${GPU_PARITY_ONLY-*rigid*}"
[ "$GPU_PARITY_ONLY" = all ] && unset GPU_PARITY_ONLY
gpu_tests "t/gpu_parity"
grep -h "# rigid, " t/gpu_parity.log | cut -c1-160
echo "tests done at $SECONDS s"
sanitize_precisions '[run]\nseed = 3\nequilibration = 0\nproduction = 4\nsample_every = 2\nprecision = %s\n[molecules]\ntypes = hex\ncounts = 150\ngeometry = C 0.37 0 0; C 0.185 0.3204 0; C -0.185 0.3204 0; C -0.37 0 0; C -0.185 -0.3204 0; C 0.185 -0.3204 0\n[mixture]\nspecies = C\nsigma = 1\nepsilon = 1\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 2.5\ndensity = 0.15\n'
echo "sanitizers done at $SECONDS s"
for prec in single double; do
  for K in ${KS:-0}; do
    printf '[run]\nequilibration = 0\nproduction = 2000\nsample_every = 200\nprecision = %s\ngpu_batch_trials = %s\n[system]\nunits = real\n[mixture]\nspecies = CH\nsigma = 0.375\nepsilon = 0.46\nmass = 13.019\n[molecules]\ntypes = benzene\ncounts = 150\ngeometry = CH 0.139 0 0; CH 0.0695 0.120378 0; CH -0.0695 0.120378 0; CH -0.139 0 0; CH -0.0695 -0.120378 0; CH 0.0695 -0.120378 0\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 298\ndensity = 6.73707\n' $prec $K > d.ini
    rm -f d.h5; ./mcens -q -o d.h5 d.ini > d.txt 2>&1 || tail -3 d.txt
    python3 -c "import h5py; f = h5py.File('d.h5'); p = f['parameters'].attrs; c = f['chains']; print('D $prec K=$K: %.4g moves/s, acceptance %.4f' % (p['moves_per_second'], c['acceptance'][0]))"
  done
done
echo "scan done at $SECONDS s"
for c in ${CASES:-}; do ./mcens-bench --case $c > b$c.txt 2>&1; grep -E "^$c |all-pairs rate" b$c.txt | cut -c1-140; done
echo "all done at $SECONDS s"
