#!/usr/bin/env bash
# GPU call for a change to the large-chain cell path (cuda/cu_cells.cu; doc/performance.md version 33):
# case 3 in .base, this tree and VARIANTS (variants.sh), then the cell path's parity and restart tests
# on this tree, then compute-sanitizer on the cell path alone in both precisions.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"
VARIANTS="${VARIANTS:-}" CASES=3 REPEAT=${REPEAT:-2} BENCH_LINES="^3 N|rror|ailed" BENCH_TIMEOUT=90 \
    bash doc/device/variants.sh
TESTS="${TESTS:-t/gpu_parity t/restart.sh}" timeout -k 5 "${TEST_TIMEOUT:-240}" bash -c '. doc/device/build.sh > /dev/null; gpu_tests'
echo "tests done at $SECONDS s"
# compute-sanitizer on the cell path alone (t/gpu_run.sh's cells.ini), both precisions, three tools
. doc/device/sanitize.sh
SANITIZE_TOOLS="memcheck racecheck initcheck" SANITIZE_TIMEOUT=120 sanitize_precisions \
  '[run]\nbackend = gpu\nprecision = %s\nequilibration = 1\nproduction = 1\nsample_every = 1\n[system]\nn = 4096\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\n[rdf]\nrmax = 2.5\n'
echo "sanitized at $SECONDS s"
