#!/usr/bin/env bash
# GPU call: a batch of the large-chain cell path (shape F: N = 1e6, rc 2.5) on the global timer:
# doc/device/cells-timeline.py makes the copy of cuda/cu_cells.cu that times the energy kernel's and the
# decide kernel's steps; it is built here, mcens-bench --case 3 runs with it at each K in KS (default 1024; the
# last "timeline" lines are the timed runs'), and the file is put back.
set -uo pipefail
. doc/device/build.sh
cp cuda/cu_cells.cu /tmp/cu_cells.cu
python3 doc/device/cells-timeline.py > /tmp/cells_timeline.cu && cp /tmp/cells_timeline.cu cuda/cu_cells.cu
make -j16 mcens-bench > "$out/build-timeline.log" 2>&1 || tail -5 "$out/build-timeline.log"
for K in ${KS:-1024}; do
  ./mcens-bench --case 3 --batch-trials $K > "$out/timeline-$K.txt" 2>&1
  grep -E "^3 N" "$out/timeline-$K.txt" | cut -c1-90
  grep "timeline (single" "$out/timeline-$K.txt" | tail -1 | tr ';' '\n'
  grep "timeline (double" "$out/timeline-$K.txt" | tail -1 | tr ';' '\n'
done
cp /tmp/cu_cells.cu cuda/cu_cells.cu
echo "timeline done at $SECONDS s"
