#!/usr/bin/env bash
# GPU call: mcens-bench --case 5 with the Gibbs kernel built for 128, 256 and 64 threads per chain.
set -uo pipefail
kit=$PWD/.devkit
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export CC=mpicc; unset CFLAGS
export CPPFLAGS="-I$kit/include" LDFLAGS="-L$kit/lib -Wl,-rpath,$kit/lib" LD_LIBRARY_PATH="$kit/lib:${LD_LIBRARY_PATH:-}"
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash .devkit/gpu-check all > "$out/gpu-check.txt" 2>&1 || { tail -30 "$out/gpu-check.txt"; exit 1; }
for t in ${THREADS:-128 256 64}; do
  touch cuda/cu_gibbs.cu
  make -j16 NVCCFLAGS="-DCU_GIBBS_THREADS=$t" mcens-bench > "$out/build-$t.log" 2>&1 || { tail -5 "$out/build-$t.log"; continue; }
  ./mcens-bench --case 5 > "$out/bench-$t.txt" 2>&1
  echo "threads $t: $(grep 'case 5:' "$out/bench-$t.txt") $(grep '^5 gibbs' "$out/bench-$t.txt" | tail -1)"
done
