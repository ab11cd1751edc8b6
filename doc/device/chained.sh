#!/usr/bin/env bash
# GPU call: the batched paths before and after a change to them (first used for chained launches,
# cuda/cu_launch.cuh). Builds this tree and .base (base.sh: `git archive` of the commit before,
# carried), then runs `mcens-bench --case N` for each N in CASES (default "2 3": shapes E and F)
# with both binaries, twice each, alternating; then one chain of examples/benzene.ini's molecules
# (shape D, 2000 sweeps) through both `mcens`, single and double, moves/s from
# /parameters@moves_per_second.
set -uo pipefail
. doc/device/base.sh
base_build_start
. doc/device/build.sh
base_build_wait
here=$PWD
for c in ${CASES:-2 3}; do
  for round in 1 2; do BENCH_LINES="^$c " bench_both --case $c; done
done
for prec in single double; do
  printf '[run]\nequilibration = 0\nproduction = 2000\nsample_every = 200\nprecision = %s\n[system]\nunits = real\n[mixture]\nspecies = CH\nsigma = 0.375\nepsilon = 0.46\nmass = 13.019\n[molecules]\ntypes = benzene\ncounts = 150\ngeometry = CH 0.139 0 0; CH 0.0695 0.120378 0; CH -0.0695 0.120378 0; CH -0.139 0 0; CH -0.0695 -0.120378 0; CH 0.0695 -0.120378 0\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 298\ndensity = 6.73707\n' $prec > d.ini
  for tree in $base $here; do
    rm -f d.h5 d.h5.ckpt; $tree/mcens -q -o d.h5 d.ini > d.txt 2>&1 || tail -3 d.txt
    python3 -c "import h5py; f = h5py.File('d.h5'); print('D $prec $([ $tree = $here ] && echo after || echo before): %.4g moves/s, acceptance %.4f' % (f['parameters'].attrs['moves_per_second'], f['chains']['acceptance'][0]))"
  done
done
echo "done at $SECONDS s"
