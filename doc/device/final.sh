#!/usr/bin/env bash
# GPU call: build, t/gpu_run.sh (or TESTS=...), and what follows. Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
make -j8 check TESTS="${TESTS:-t/gpu_run.sh}" > "$out/tests.log" 2>&1
grep -E "^(PASS|FAIL|SKIP|ERROR)" "$out/tests.log" | cut -c1-170
cp t/gpu_run.log "$out/" 2>/dev/null
echo "done at $SECONDS s"
