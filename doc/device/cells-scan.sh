#!/usr/bin/env bash
# GPU call: where a batch of the large-chain cell path (shape F: N = 1e6, rc 2.5, K = 1024) spends
# its time: CUDA events around its three kernels and clock64() phases inside them
# (doc/device/cells-phases.py --clocks makes the instrumented copy of cuda/cu_cells.cu, built here
# and then put back), single and double; then mcens-bench --case 3 of the tree as it is.
set -uo pipefail
. doc/device/build.sh
printf '[run]\nseed = 8\nprecision = %s\nequilibration = 0\nproduction = 2\nsample_every = 2\n[system]\nn = 1000000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\n' single > fs.ini
sed 's/single/double/' fs.ini > fd.ini
cp cuda/cu_cells.cu /tmp/cu_cells.cu
python3 doc/device/cells-phases.py ${PHASES_FLAGS---clocks} > /tmp/cells_phases.cu && cp /tmp/cells_phases.cu cuda/cu_cells.cu
make -j16 mcens > "$out/build-phases.log" 2>&1 || tail -5 "$out/build-phases.log"
for f in fs fd; do rm -f $f.h5; ./mcens -q -o $f.h5 $f.ini > $f.txt 2>&1; grep "cells phases" $f.txt | tail -1; grep "phases [AB]" $f.txt | head -${SHOW:-6}; done
cp /tmp/cu_cells.cu cuda/cu_cells.cu
echo "phases done at $SECONDS s"
make -j16 mcens mcens-bench > /dev/null 2>&1 && ./mcens-bench --case 3 2>&1 | grep -E "^3 N"
echo "done at $SECONDS s"
