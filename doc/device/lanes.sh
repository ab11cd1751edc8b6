#!/usr/bin/env bash
# GPU call: the lanes each kernel's warps ran with (doc/performance.md version 28). For each
# CASE:KERNEL:SKIP in LANES, Nsight Compute's source counters on one launch of the kernels whose
# names match the regex KERNEL in `mcens-bench --case CASE`, after SKIP launches (the bench launches
# the chain kernels of cases 1 and 8 only a few times), and lanes.py's summary: warp and thread
# instructions, the lanes a warp instruction ran with, the hottest runs of instructions with theirs,
# and the launch's duration.
# Reports and logs under $OUT/lanes.tgz.
set -uo pipefail
. doc/device/build.sh
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu)
for spec in ${LANES:-2:^batch_trial_energy:5 3:^cells_trial_energy:5 3:^cells_decide:5 1:^sweep_chains:1 7:^cells_chains:5 8:^rigid_sweep:1}; do
  IFS=: read -r c k skip <<< "$spec"
  name=lanes-$c-${k#^}
  timeout 300 "$NCU" --clock-control none --kernel-name "regex:$k" --launch-skip "${skip:-5}" --launch-count 1 \
    --section SourceCounters --section SpeedOfLight -o "$out/$name" ./mcens-bench --case "$c" > "$out/$name.log" 2>&1
  if [ ! -f "$out/$name.ncu-rep" ]; then
    echo "case $c, $k: no launch profiled"; tail -3 "$out/$name.log"; continue
  fi
  "$NCU" -i "$out/$name.ncu-rep" --page source --csv --print-source sass > "$out/$name.csv" 2>> "$out/$name.log"
  python3 doc/device/lanes.py "$out/$name.csv" "case $c, $k"
  "$NCU" -i "$out/$name.ncu-rep" --page details 2>&1 | grep -E "^ +Duration" | sed 's/^ */  launch /'
done
(cd "$out" && tar czf lanes.tgz lanes-* && rm -f lanes-*)
echo "done at $SECONDS s"
