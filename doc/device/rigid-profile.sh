#!/usr/bin/env bash
# GPU call: where one chain of examples/benzene.ini's molecules (shape D, batched trials, single)
# spends its time: kernel B's phases by clock64() (doc/device/rigid-phases.py makes the instrumented
# copy of cuda/cu_rigid_batch.cu, built here and then put back) at each K in KS; then Nsight
# Compute's durations of a few batched launches at the GPU's own clocks (K = 32).
set -uo pipefail
. doc/device/build.sh
ini() {
  printf '[run]\nequilibration = 0\nproduction = 400\nsample_every = 200\nprecision = single\ngpu_batch_trials = %s\n[system]\nunits = real\n[mixture]\nspecies = CH\nsigma = 0.375\nepsilon = 0.46\nmass = 13.019\n[molecules]\ntypes = benzene\ncounts = 150\ngeometry = CH 0.139 0 0; CH 0.0695 0.120378 0; CH -0.0695 0.120378 0; CH -0.139 0 0; CH -0.0695 -0.120378 0; CH 0.0695 -0.120378 0\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 298\ndensity = 6.73707\n' $1
}
cp cuda/cu_rigid_batch.cu /tmp/cu_rigid_batch.cu
python3 doc/device/rigid-phases.py > /tmp/phases.cu && cp /tmp/phases.cu cuda/cu_rigid_batch.cu
make -j16 mcens > "$out/build-phases.log" 2>&1 || tail -5 "$out/build-phases.log"
for K in ${KS:-32 64}; do ini $K > p.ini; rm -f p.h5; ./mcens -q -o p.h5 p.ini 2> p.err > /dev/null; echo "K=$K: $(grep 'rigid phases' p.err | tail -1)"; done
cp /tmp/cu_rigid_batch.cu cuda/cu_rigid_batch.cu
make -j16 mcens > /dev/null 2>&1
ini 32 > p.ini; rm -f p.h5
ncu --clock-control none -k regex:rigid_batch --launch-skip 400 --launch-count 4 --metrics gpu__time_duration.sum ./mcens -q -o p.h5 p.ini 2>&1 | grep -E "duration" | cut -c1-100
echo "done at $SECONDS s"
