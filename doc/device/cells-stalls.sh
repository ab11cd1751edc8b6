#!/usr/bin/env bash
# GPU call: where the large-chain cell path's two kernels spend their time (issue 14, shape F).
# Nsight Compute on three launches each (LAUNCHES / 2) of the energy kernel (cells_trial_energy_kernel) and the decide kernel
# (cells_decide_kernel) of mcens-bench case 3's shape (one chain of N = 1e6, rc 2.5, K = 1024,
# single), with the caches and clocks left as the run has them: duration, warp instructions,
# issue rate, every stall reason per issued instruction, the memory units' throughput and hit
# rates (speed of light, memory workload), and the source lines with the most stall samples (built with -lineinfo; cells-lines.py). Prints a digest; the full report is
# $OUT/cells-stalls.txt, the per-line counts $OUT/cells-trials.csv and cells-accept.csv.
set -uo pipefail
export NVCCFLAGS="-lineinfo"
. doc/device/build.sh
printf '[run]\nseed = 8\nprecision = %s\nequilibration = 0\nproduction = 2\nsample_every = 2\n[system]\nn = 1000000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\n' "${PRECISION:-single}" > f.ini
rm -f f.h5 f.h5.ckpt
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
timeout 400 "$NCU" --cache-control none --clock-control none --kernel-name regex:"cells_(trials|accept)_kernel" \
  --launch-skip 200 --launch-count ${LAUNCHES:-6} --warp-sampling-interval 0 --section LaunchStats --section Occupancy --section WarpStateStats \
  --section SchedulerStats --section SourceCounters --section InstructionStats --section SpeedOfLight \
  --section MemoryWorkloadAnalysis \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__inst_executed.max,sm__cycles_active.max,regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
  -o "$out/cells" -f ./mcens -q -o f.h5 f.ini > "$out/cells-stalls.log" 2>&1
"$NCU" -i "$out/cells.ncu-rep" > "$out/cells-stalls.txt" 2>&1
# per source line (each kernel's launches together): stall samples and instructions executed
for kernel in trials accept; do
  "$NCU" -i "$out/cells.ncu-rep" --page source --csv --print-source cuda,sass --kernel-name regex:cells_$kernel \
    > "$out/cells-$kernel.csv" 2>&1
  python3 doc/device/cells-lines.py "$out/cells-$kernel.csv" 25
done
grep -E "^  void [a-z_]+_kernel|stalled_|inst_executed|cycles_active|gpu__time|Executed Ipc|No Eligible|Eligible Warps|Active Warps|Registers|Achieved Occ|Theoretical Occ|Throughput|Hit Rate|Mem Busy|Max Bandwidth|Mem Pipes" "$out/cells-stalls.txt" |
  awk '!/stalled_/ || $NF+0 > 0.1' | sed 's/  */ /g' | head -140
echo "done at $SECONDS s"
