#!/usr/bin/env bash
# GPU call: where the batched path (one chain of N = 50,000, no cutoff, K = 512, single) spends
# its time (issue 14, shape E): Nsight Systems' kernel summary of a short run, Nsight Compute on one
# launch of each kernel, and compute-sanitizer racecheck on a batched job. Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
printf '[run]\nseed = 3\nequilibration = 0\nproduction = 2\nsample_every = 1\nprecision = single\ngpu_batch_trials = 1024\n[system]\nn = 4096\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 1.0\ndensity = 0.8\n' > san.ini
sanitize san.ini
printf '[run]\nseed = 8\nprecision = single\nequilibration = 0\nproduction = 4\nsample_every = 4\ngpu_batch_trials = 512\n[system]\nn = 50000\n[potential]\ncutoff = none\n[ensemble]\ntemperature = 1\ndensity = 0.8\n' > e.ini
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2> /dev/null | head -1)
if [ -n "$NSYS" ]; then
  rm -f e.h5; timeout 200 "$NSYS" profile -o e-prof --force-overwrite true --stats=false ./mcens -q -o e.h5 e.ini > /dev/null 2>&1
  "$NSYS" stats --report cuda_gpu_kern_sum --format csv e-prof.nsys-rep 2> /dev/null | cut -c1-220 | head -12
else echo "no nsys"; fi
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2> /dev/null)
if [ -n "$NCU" ]; then
  for k in batch_trials_kernel batch_accept_kernel; do
    rm -f e.h5; timeout 200 "$NCU" --kernel-name regex:$k --launch-skip 10 --launch-count 1 --section SpeedOfLight --section Occupancy \
      --section WarpStateStats --section LaunchStats --section SchedulerStats ./mcens -q -o e.h5 e.ini > "$out/ncu-$k.txt" 2>&1
    echo "== $k"; grep -E "Duration|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per|Executed Ipc A|No Eligible|Grid Size|Waves Per SM" "$out/ncu-$k.txt" | head -12
  done
else echo "no ncu"; fi
echo "done at $SECONDS s"
