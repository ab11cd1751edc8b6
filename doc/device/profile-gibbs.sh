#!/usr/bin/env bash
# GPU call: Nsight Compute on one launch of the Gibbs sweep kernel (528 chains of 500, separated
# first by an untimed run), and on the NVT many-chain kernel of the same shape for comparison.
set -uo pipefail
kit=$PWD/.devkit
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export CC=mpicc; unset CFLAGS
export CPPFLAGS="-I$kit/include" LDFLAGS="-L$kit/lib -Wl,-rpath,$kit/lib" LD_LIBRARY_PATH="$kit/lib:${LD_LIBRARY_PATH:-}"
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash .devkit/gpu-check all > "$out/gpu-check.txt" 2>&1 || { tail -30 "$out/gpu-check.txt"; exit 1; }
printf '[run]\nseed = 3\nequilibration = 0\nproduction = 20\nsample_every = 20\n[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntype = gibbs\ntemperature = 0.9\ndensity = 0.2\nreplicas = 528\n' > prof.ini
rm -f prof.h5*
sections="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis"
timeout 250 ncu --kernel-name gibbs_sweep_kernel --launch-count 1 $sections ./mcens -q prof.ini > "$out/ncu-gibbs.txt" 2>&1
grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Block Limit|Stall|Warp Cycles Per Issued|Local|Dynamic Shared|L1/TEX Hit|Issue Slots|Executed Ipc" "$out/ncu-gibbs.txt" | head -40
tail -5 "$out/ncu-gibbs.txt"
