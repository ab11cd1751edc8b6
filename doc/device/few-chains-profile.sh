#!/usr/bin/env bash
# Issue 45: where a batch of the few-chains path goes (examples/argon.ini's 12 chains of 500, single,
# K = 64): Nsight Compute on one launch of each of the batched kernels; then mcens-bench --case 14
# at each K of KS (default "32 128 256"). Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
make mcens-bench > bench-build.log 2>&1 || tail -20 bench-build.log
printf '[run]\nseed = 5\nprecision = single\nequilibration = 0\nproduction = 40\nsample_every = 40\n[system]\nn = 500\nunits = real\n[potential]\npreset = argon\ncutoff = 1.0215\ntail_correction = yes\n[ensemble]\ntemperature = 90, 150, 240\ndensity = 18, 21\nreplicas = 2\n' > a.ini
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2> /dev/null)
if [ -n "$NCU" ]; then
  for k in batch_draw_kernel batch_trial_energy_kernel batch_sums_kernel batch_decide_kernel; do
    rm -f a.h5; timeout 100 "$NCU" --kernel-name regex:$k --launch-skip 50 --launch-count 3 --section SpeedOfLight --section Occupancy \
      --section WarpStateStats --section LaunchStats ./mcens -q -o a.h5 a.ini > "$out/ncu-$k.txt" 2>&1
    echo "== $k"; grep -E "Duration|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Grid Size|Block Size" "$out/ncu-$k.txt" | head -12
  done
else echo "no ncu"; fi
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys 2> /dev/null)
if [ -n "$NSYS" ]; then
  rm -f a.h5; timeout 100 "$NSYS" profile -o "$out/a" --force-overwrite true ./mcens -q -o a.h5 a.ini > "$out/nsys.txt" 2>&1
  timeout 60 "$NSYS" stats --report cuda_gpu_kern_sum "$out/a.nsys-rep" 2>&1 | head -20 | cut -c1-200
else echo "no nsys"; fi
for K in ${KS:-32 128 256}; do
  ./mcens-bench --case 14 --batch-trials $K > b.txt 2>&1
  echo "K $K:"; grep -E "^14 .*few-chains" b.txt | cut -c1-110
done
echo "done at $SECONDS s"
