#!/usr/bin/env bash
# GPU call for issue 14's shape A (cell lists inside the many-chain kernel): build; the parity tests,
# t/gpu_run.sh and t/restart.sh through the GPU backend; compute-sanitizer on a small job on the
# chain kernel's cell lists with replica exchange (lists rebuilt after trades), single and double;
# the benchmark's case 7 (all pairs against cell lists, the run driver) and case 1 (the new
# ceiling kernel). Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
make -j8 check TESTS="${TESTS:-t/gpu_parity t/gpu_run.sh t/restart.sh}" > "$out/tests.log" 2>&1
grep -E "^(FAIL|ERROR|XFAIL)" "$out/tests.log" | cut -c1-200
echo "$(grep -c '^PASS' "$out/tests.log") passed, $(grep -c '^FAIL' "$out/tests.log") failed, $(grep -c '^SKIP' "$out/tests.log") skipped"
grep -h "^# " t/gpu_parity.log | grep -i "sweeps\|exchange" | head -12 | cut -c1-200
cp t/gpu_parity.log t/restart.log "$out/" 2> /dev/null
echo "tests done at $SECONDS s"
for prec in single double; do
  printf '[run]\nseed = 3\nequilibration = 10\nproduction = 10\nsample_every = 10\nprecision = %s\n[system]\nn = 1000\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.0:1.3:4\ndensity = 0.8\nexchange_every = 2\n' $prec > san.ini
  sanitize san.ini
done
echo "sanitizers done at $SECONDS s"
./mcens-bench --case 7 --out "$out/bench7.tsv" > "$out/bench7.txt" 2>&1; tail -9 "$out/bench7.txt"
./mcens-bench --case 1 > "$out/bench1.txt" 2>&1; tail -4 "$out/bench1.txt"
echo "bench done at $SECONDS s"
