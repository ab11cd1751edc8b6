#!/usr/bin/env bash
# GPU call: where the decide kernel of the large-chain cell path (shape F: N = 1e6, rc 2.5) spends a batch:
# doc/device/cells-phases.py makes the copy of cuda/cu_cells.cu that reads clock64() after each of
# the decide kernel's block-wide steps; it is built here and the file put back. mcens-bench --case 3 with it
# at each K in KS (default "512 1024"; its last "phases B" lines are the timed runs'), then the tree
# as it is.
set -uo pipefail
. doc/device/build.sh
cp cuda/cu_cells.cu /tmp/cu_cells.cu
python3 doc/device/cells-phases.py > /tmp/cells_phases.cu && cp /tmp/cells_phases.cu cuda/cu_cells.cu
make -j16 mcens-bench > "$out/build-phases.log" 2>&1 || tail -5 "$out/build-phases.log"
for K in ${KS:-512 1024}; do
  echo "K = $K"
  ./mcens-bench --case 3 --batch-trials $K > "$out/phases-$K.txt" 2>&1
  grep -E "^3 N" "$out/phases-$K.txt" | cut -c1-90
  grep "decide phases (single" "$out/phases-$K.txt" | tail -1
  grep "decide phases (double" "$out/phases-$K.txt" | tail -1
done
cp /tmp/cu_cells.cu cuda/cu_cells.cu
echo "phases done at $SECONDS s"
make -j16 mcens mcens-bench > /dev/null 2>&1 && ./mcens-bench --case 3 2>&1 | grep -E "^3 N" | cut -c1-90
echo "done at $SECONDS s"
