#!/usr/bin/env bash
# GPU call: the many-chain cell-list path's parity tests alone (GPU_PARITY_ONLY, default *cell*),
# compute-sanitizer on a job with half-cutoff cells (reach 2) and trades, and mcens-bench case 7
# at the default build and at each set of nvcc flags in VARIANTS ('|'-separated, e.g.
# "-DCELL_THREADS_REACH2=256|-DLOADS_IN_FLIGHT=8"). Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
make -j16 t/gpu_parity > "$out/parity-build.log" 2>&1 || tail -5 "$out/parity-build.log"
GPU_PARITY_ONLY="${ONLY:-*cell*}" ./t/gpu_parity > "$out/parity.txt" 2>&1
grep -E "^(ok|not ok)|^# .*(sweeps|exchange)|error|Failure|PASSED|FAILED" "$out/parity.txt" | cut -c1-220
echo "parity done at $SECONDS s"
if [ -z "${NO_SAN:-}" ]; then
  printf '[run]\nseed = 3\nequilibration = 4\nproduction = 4\nsample_every = 4\nprecision = single\n[system]\nn = 2000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.0, 1.05\ndensity = 0.8\nexchange_every = 2\n' > san.ini
  sanitize san.ini
fi
./mcens-bench --case 7 > "$out/bench7.txt" 2>&1; tail -6 "$out/bench7.txt"
IFS='|' read -r -a flags <<< "${VARIANTS:-}"
for f in "${flags[@]}"; do
  make -j16 NVCCFLAGS="$f" mcens-bench > "$out/build-variant.log" 2>&1 || { tail -5 "$out/build-variant.log"; continue; }
  ./mcens-bench --case 7 > "$out/bench7-variant.txt" 2>&1
  echo "$f: $(grep 'cell lists, GPU' "$out/bench7-variant.txt" | tail -2 | awk '{print $(NF-4)}' | tr '\n' ' ')"
done
echo "done at $SECONDS s"
