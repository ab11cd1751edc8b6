#!/usr/bin/env bash
# GPU call: Nsight Compute's durations of a few launches of the batched molecule kernels (shape D:
# one chain of examples/benzene.ini's molecules, single) at the GPU's own clocks, at each K in KS.
# (The decide kernel's clock64() phases of doc/performance.md version 19's first decide kernel were read with
# doc/device/rigid-phases.py as of commit 86204f4.)
set -uo pipefail
. doc/device/build.sh
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for K in ${KS:-32}; do
  printf '[run]\nequilibration = 0\nproduction = 400\nsample_every = 200\nprecision = single\ngpu_batch_trials = %s\n[system]\nunits = real\n[mixture]\nspecies = CH\nsigma = 0.375\nepsilon = 0.46\nmass = 13.019\n[molecules]\ntypes = benzene\ncounts = 150\ngeometry = CH 0.139 0 0; CH 0.0695 0.120378 0; CH -0.0695 0.120378 0; CH -0.139 0 0; CH -0.0695 -0.120378 0; CH 0.0695 -0.120378 0\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 298\ndensity = 6.73707\n' $K > p.ini
  rm -f p.h5
  timeout 300 $ncu --clock-control none -k regex:rigid_batch --launch-skip 400 --launch-count 4 \
    --metrics gpu__time_duration.sum ./mcens -q -o p.h5 p.ini > "$out/ncu-K$K.txt" 2>&1 || tail -3 "$out/ncu-K$K.txt"
  echo "K=$K (A B A B): $(grep -E "duration" "$out/ncu-K$K.txt" | awk '{print $(NF-1), $NF}' | tr '\n' ' ')"
done
echo "done at $SECONDS s"
