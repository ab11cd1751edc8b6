#!/usr/bin/env bash
# GPU call: where the one-chain cell path (shape F: one chain of N = 1e6, rc 2.5, K = 1024) spends
# its time (issue 14): Nsight Compute on one launch of each of its three kernels, Nsight Systems'
# kernel summary over a short run (kernel time against wall time: the gaps between launches), and
# mcens-bench --case 3. Then the ceiling probe doc/device/ceiling-variants.cu. Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
printf '[run]\nseed = 8\nprecision = single\nequilibration = 0\nproduction = 4\nsample_every = 4\n[system]\nn = 1000000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\n' > f.ini
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2> /dev/null)
if [ -n "$NCU" ] && [ -z "${NO_NCU:-}" ]; then
  for k in cells_draw_kernel cells_trials_kernel cells_accept_kernel; do
    rm -f f.h5; timeout 200 "$NCU" --kernel-name regex:$k --launch-skip 200 --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section WarpStateStats --section LaunchStats --section SchedulerStats ./mcens -q -o f.h5 f.ini > "$out/ncu-$k.txt" 2>&1
    echo "== $k"; grep -E "SM Frequency|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per|Issued Warp Per|No Eligible|Grid Size|Block Size" "$out/ncu-$k.txt" | head -12
    grep -E "Stall|stall" "$out/ncu-$k.txt" | head -4
  done
else echo "no ncu"; fi
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2> /dev/null | head -1)
if [ -n "$NSYS" ]; then
  rm -f f.h5; /usr/bin/time -f "wall %e s" timeout 200 "$NSYS" profile -o /tmp/f --force-overwrite true ./mcens -q -o f.h5 f.ini > "$out/nsys.txt" 2>&1
  "$NSYS" stats --report cuda_gpu_kern_sum /tmp/f.nsys-rep 2>&1 | grep -E "cells_|Time \(%\)" | cut -c1-200
  "$NSYS" stats --report cuda_api_sum /tmp/f.nsys-rep 2>&1 | head -14 | cut -c1-160
else echo "no nsys"; fi
./mcens-bench --case 3 2>&1 | grep -E "^3 |measured"
echo "profile done at $SECONDS s"
nvcc -O3 -arch=sm_90 -o /tmp/cv doc/device/ceiling-variants.cu && /tmp/cv
echo "done at $SECONDS s"
