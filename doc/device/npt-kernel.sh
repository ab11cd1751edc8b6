#!/usr/bin/env bash
# GPU call for issue 14's shape B (npt volume moves inside the many-chain kernel): build; the parity
# tests, t/gpu_run.sh and t/physics_npt.sh through the GPU backend; compute-sanitizer on a small npt
# job in single and double; the benchmark's case 6 (NPT against NVT, the same run) and case 1.
# Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
gpu_tests "t/gpu_parity t/gpu_run.sh t/physics_npt.sh t/restart.sh"
grep -h "# npt\|npt_\|exchange_npt" t/gpu_parity.log | cut -c1-300
echo "tests done at $SECONDS s"
sanitize_precisions '[run]\nseed = 3\nequilibration = 20\nproduction = 20\nsample_every = 10\nprecision = %s\n[system]\nn = 200\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\ntemperature = 1.0\npressure = 1.0\ndensity = 0.7\nreplicas = 4\n'
./mcens-bench --case 6 --out "$out/bench6.tsv" > "$out/bench6.txt" 2>&1; tail -6 "$out/bench6.txt"
./mcens-bench --case 1 > "$out/bench1.txt" 2>&1; tail -3 "$out/bench1.txt"
echo "bench done at $SECONDS s"
