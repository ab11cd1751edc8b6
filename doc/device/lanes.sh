#!/usr/bin/env bash
# GPU call: the lanes each kernel's warps ran with (doc/performance.md version 28). For each
# CASE:KERNEL in LANES, Nsight Compute's source counters on one launch of the kernels matching the
# regex KERNEL in `mcens-bench --case CASE` (after SKIP launches, default 5), and lanes.py's summary:
# warp and thread instructions, the lanes a warp instruction ran with, the hottest runs of
# instructions with theirs. Reports under $OUT/lanes.tgz.
set -uo pipefail
. doc/device/build.sh
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
for spec in ${LANES:-2:batch_trials 3:cells_trials 1:sweep_chains 7:cells_chains 9:rigid_sweep 5:gibbs_sweep}; do
  c=${spec%%:*} k=${spec#*:}
  timeout 300 "$NCU" --clock-control none --kernel-name "regex:$k" --launch-skip "${SKIP:-5}" --launch-count 1 \
    --section SourceCounters -o "$out/lanes-$c-$k" ./mcens-bench --case "$c" > "$out/lanes-$c-$k.log" 2>&1 ||
    { echo "case $c, $k: ncu failed"; tail -3 "$out/lanes-$c-$k.log"; continue; }
  "$NCU" -i "$out/lanes-$c-$k.ncu-rep" --page source --csv --print-source sass > "$out/lanes-$c-$k.csv" 2>&1
  python3 doc/device/lanes.py "$out/lanes-$c-$k.csv" "case $c, $k"
done
(cd "$out" && tar czf lanes.tgz lanes-* && rm -f lanes-*)
echo "done at $SECONDS s"
