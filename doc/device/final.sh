#!/usr/bin/env bash
set -uo pipefail
kit=$PWD/.devkit
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export LD_LIBRARY_PATH="$kit/lib:${LD_LIBRARY_PATH:-}"
out=${OUT:-/tmp/out}; mkdir -p "$out"
SECONDS=0
bash .devkit/gpu-check all > "$out/gpu-check.txt" 2>&1 || { tail -20 "$out/gpu-check.txt"; exit 1; }
echo "built at $SECONDS s"
make -j8 check TESTS="${TESTS:-t/gpu_run.sh}" > "$out/tests.log" 2>&1
grep -E "^(PASS|FAIL|SKIP|ERROR)" "$out/tests.log" | cut -c1-170
cp t/gpu_run.log "$out/" 2>/dev/null
echo "done at $SECONDS s"
