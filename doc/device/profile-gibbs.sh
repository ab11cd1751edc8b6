#!/usr/bin/env bash
# GPU call: Nsight Compute on the first launch of the Gibbs sweep kernel: 528 chains of 500 at
# T = 0.9, 20 sweeps from the start (the boxes not yet separated).
set -uo pipefail
. doc/device/build.sh
printf '[run]\nseed = 3\nequilibration = 0\nproduction = 20\nsample_every = 20\n[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntype = gibbs\ntemperature = 0.9\ndensity = 0.2\nreplicas = 528\n' > prof.ini
rm -f prof.h5*
sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis"
timeout 250 ncu --kernel-name gibbs_sweep_kernel --launch-count 1 $sections ./mcens -q prof.ini > "$out/ncu-gibbs.txt" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Stall|Warp Cycles Per Issued|Local|Dynamic Shared|L1/TEX Hit|Issue Slots|Executed Ipc" "$out/ncu-gibbs.txt" | head -40
tail -5 "$out/ncu-gibbs.txt"
