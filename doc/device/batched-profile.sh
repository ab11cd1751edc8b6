#!/usr/bin/env bash
# GPU call: where the batched path (one chain of N = 50,000, no cutoff, K = 512, single) spends
# its time (issue 14, shape E): Nsight Compute on one launch of each of its four kernels, then
# mcens-bench --case 2 with the energy kernel's pair blocks at BLOCKS per SM (default "2 8"; the tree's is 4).
# Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
printf '[run]\nseed = 8\nprecision = single\nequilibration = 0\nproduction = 4\nsample_every = 4\ngpu_batch_trials = 512\n[system]\nn = 50000\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 1\ndensity = 0.8\n' > e.ini
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2> /dev/null)
if [ -n "$NCU" ]; then
  for k in batch_draw_kernel batch_trial_energy_kernel batch_sums_kernel batch_decide_kernel; do
    rm -f e.h5; timeout 200 "$NCU" --kernel-name regex:$k --launch-skip 10 --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section WarpStateStats --section LaunchStats --section SchedulerStats ./mcens -q -o e.h5 e.ini > "$out/ncu-$k.txt" 2>&1
    echo "== $k"; grep -E "SM Frequency|Duration|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Issued Warp Per|No Eligible|Grid Size|Waves Per SM" "$out/ncu-$k.txt" | head -12
  done
else echo "no ncu"; fi
row() { grep -E "^2 N" "$1" | awk '{printf "%s %s  ", $(NF-5), $(NF-4)}'; echo; }
for B in ${BLOCKS:-2 8}; do
  make -j16 NVCCFLAGS="-DBATCH_BLOCKS_PER_SM=$B" mcens-bench > "$out/build-$B.log" 2>&1 || { tail -5 "$out/build-$B.log"; continue; }
  for K in 512 1024; do ./mcens-bench --case 2 --batch-trials $K > b.txt 2>&1; echo "K $K blocks/SM $B: $(row b.txt)"; done
done
echo "done at $SECONDS s"
