#!/usr/bin/env bash
# GPU call: mcens-bench --case 5 with the Gibbs kernel built for 128, 256 and 64 threads per chain.
set -uo pipefail
. doc/device/build.sh
for t in ${THREADS:-128 256 64}; do
  make -j16 NVCCFLAGS="-DCU_GIBBS_THREADS=$t" mcens-bench > "$out/build-$t.log" 2>&1 || { tail -5 "$out/build-$t.log"; continue; }
  ./mcens-bench --case 5 > "$out/bench-$t.txt" 2>&1
  echo "threads $t: $(grep 'case 5:' "$out/bench-$t.txt") $(grep '^5 gibbs' "$out/bench-$t.txt" | tail -1)"
done
