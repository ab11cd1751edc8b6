#!/usr/bin/env bash
# GPU call: where the many-chain cell kernel's instructions and stalls go (issue 14, shape A).
# Nsight Compute on one launch of examples/phase_diagram.ini's shape (528 chains of N = 4000, in
# PRECISION, default single): the instruction mix, every stall reason per issued instruction, the
# memory units' throughput and hit rates, and the source lines (built with -lineinfo;
# cells-lines.py) with the most stall samples. Prints a digest; the full report is
# $OUT/stalls.txt, the per-line counts $OUT/chain-cells.csv.
set -uo pipefail
export NVCCFLAGS="-lineinfo"
. doc/device/build.sh
printf '[run]\nseed = 8\nprecision = %s\nequilibration = 0\nproduction = 20\nsample_every = 20\n[system]\nn = 4000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\nreplicas = 528\n' "${PRECISION:-single}" > a.ini
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
timeout 400 "$NCU" --kernel-name regex:cells_chains_kernel --launch-count 1 --section InstructionStats \
  --section WarpStateStats --section SchedulerStats --section LaunchStats --section SourceCounters \
  --section MemoryWorkloadAnalysis --section SpeedOfLight \
  --warp-sampling-interval 0 \
  --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_fp32_pred_on.sum,smsp__sass_thread_inst_executed_op_fp64_pred_on.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_global_ld.sum,smsp__sass_inst_executed_op_generic_ld.sum,smsp__sass_thread_inst_executed_op_integer_pred_on.sum,smsp__sass_thread_inst_executed_op_conversion_pred_on.sum,smsp__sass_thread_inst_executed_op_control_pred_on.sum,smsp__sass_thread_inst_executed_op_misc_pred_on.sum,smsp__thread_inst_executed_per_inst_executed.ratio \
  -o "$out/chain-cells" -f ./mcens -q -o ncu.h5 a.ini > "$out/stalls.log" 2>&1
"$NCU" -i "$out/chain-cells.ncu-rep" > "$out/stalls.txt" 2>&1
"$NCU" -i "$out/chain-cells.ncu-rep" --page source --csv --print-source cuda,sass > "$out/chain-cells.csv" 2>&1
python3 doc/device/cells-lines.py "$out/chain-cells.csv" 30
grep -E "stalled_|inst_executed|Executed Ipc|No Eligible|Eligible Warps|Active Warps|Duration|op_|Throughput|Hit Rate|Registers" "$out/stalls.txt" | awk '$NF+0 > 0.05 || /inst_executed|Ipc|Eligible|Duration|op_|Throughput|Hit Rate|Registers/' | sed 's/  */ /g' | head -80
echo "done at $SECONDS s"
