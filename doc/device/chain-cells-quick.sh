#!/usr/bin/env bash
# GPU call: the many-chain cell-list path's parity tests alone (GPU_PARITY_ONLY) and mcens-bench
# case 7 at the default block shape and at the shapes in VARIANTS (threads:loads, comma-separated).
set -uo pipefail
. doc/device/build.sh
make -j16 t/gpu_parity > "$out/parity-build.log" 2>&1 || tail -5 "$out/parity-build.log"
GPU_PARITY_ONLY="${ONLY:-*cell*}" ./t/gpu_parity > "$out/parity.txt" 2>&1
grep -E "^(ok|not ok)|^# .*(sweeps|exchange)|error|Failure" "$out/parity.txt" | cut -c1-220
echo "parity done at $SECONDS s"
./mcens-bench --case 7 > "$out/bench7.txt" 2>&1; tail -7 "$out/bench7.txt"
variants=${VARIANTS:-}
for v in ${variants//,/ }; do
  set -- ${v%:*} ${v#*:}
  touch cuda/cu_chain_cells.cu
  make -j16 NVCCFLAGS="-DCELL_CHAIN_THREADS=$1 -DLOADS_IN_FLIGHT=$2" mcens-bench > "$out/build-$1-$2.log" 2>&1 || { tail -5 "$out/build-$1-$2.log"; continue; }
  ./mcens-bench --case 7 > "$out/bench7-$1-$2.txt" 2>&1
  echo "threads $1 loads $2: $(grep 'cell lists, GPU' "$out/bench7-$1-$2.txt" | tail -2 | awk '{print $(NF-4)}' | tr '\n' ' ')"
done
echo "done at $SECONDS s"
