#!/usr/bin/env bash
# GPU call: build, the GPU tests and the exchange tests, the exchange benchmark, a timing of the
# argon PT example. Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
make -j8 check TESTS="${TESTS:-t/gpu_parity t/gpu_run.sh t/gpu_device.sh t/exchange.sh}" > "$out/tests.log" 2>&1
grep -E "^(PASS|FAIL|SKIP|ERROR|XFAIL)" "$out/tests.log" | cut -c1-160
cp t/*.log "$out/" 2>/dev/null
echo "tests done at $SECONDS s"
if [ -z "${SKIP_BENCH:-}" ]; then
  ./mcens-bench --case 4 --out "$out/bench4.tsv" > "$out/bench4.txt" 2>&1; tail -12 "$out/bench4.txt"
  echo "bench done at $SECONDS s"
fi
if [ -n "${ARGON:-}" ]; then
  sed -e 's/^equilibration = .*/equilibration = 100/' -e 's/^production = .*/production = 200/' examples/argon_cluster_pt.ini > ap.ini
  /usr/bin/time -f "argon PT 300 sweeps x 192 chains: %e s" mpirun -np 1 ./mcens -q -o "$out/ap.h5" ap.ini 2>&1 | tail -3
fi
