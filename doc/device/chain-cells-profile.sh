#!/usr/bin/env bash
# GPU call: where the many-chain kernel's cell-list path spends its time (issue 14, shape A).
# Nsight Compute on one launch of examples/phase_diagram.ini's chains (528 of N = 4000, single),
# then mcens-bench case 7 with the kernel built at other block sizes and loads in flight
# (CELL_CHAIN_THREADS, LOADS_IN_FLIGHT in cuda/cu_chain_cells.cu). Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
printf '[run]\nseed = 8\nprecision = single\nequilibration = 0\nproduction = 100\nsample_every = 50\n[system]\nn = 4000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\nreplicas = 528\n[rdf]\nbins = 125\nrmax = 2.5\n' > a.ini
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2> /dev/null)
if [ -n "$NCU" ] && [ -z "${NO_NCU:-}" ]; then
  timeout 300 "$NCU" --kernel-name regex:cells_chains_kernel --launch-count 1 --section SpeedOfLight --section Occupancy \
    --section WarpStateStats --section SchedulerStats --section LaunchStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis ./mcens -q -o ncu.h5 a.ini > "$out/ncu.txt" 2>&1
  grep -E "Duration|Throughput|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles|Issued Warp|No Eligible|Active Warps|Eligible Warps|Registers|Shared Memory Config|Block Limit|L1/TEX Hit|L2 Hit|Executed Ipc" "$out/ncu.txt" | head -60
  grep -A3 -i "stall\b\|warp state" "$out/ncu.txt" | grep -i "est\|stall" | head -20
else echo "no ncu"; fi
echo "profile done at $SECONDS s"
variants=${VARIANTS:-128:8,128:4,256:8} # threads:loads
for v in ${variants//,/ }; do
  set -- ${v%:*} ${v#*:}
  make -j16 NVCCFLAGS="-DCELL_CHAIN_THREADS=$1 -DLOADS_IN_FLIGHT=$2" mcens-bench > "$out/build-$1-$2.log" 2>&1 || { tail -5 "$out/build-$1-$2.log"; continue; }
  ./mcens-bench --case 7 > "$out/bench7-$1-$2.txt" 2>&1
  echo "threads $1 loads $2: $(grep 'cell lists, GPU' "$out/bench7-$1-$2.txt" | tail -2 | awk '{print $(NF-4)}' | tr '\n' ' ')"
done
echo "variants done at $SECONDS s"
