#!/usr/bin/env bash
# GPU call: build, the Gibbs parity tests and t/gibbs.sh on the GPU backend, a sanitizer run of a
# small Gibbs job, the Gibbs benchmark (case 5). Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
if [ -n "${PARITY_ONLY:-}" ]; then
  ./t/gpu_parity 2>&1 | grep -E "gibbs|^(ok|not ok)|FAIL|error" | cut -c1-400 | tail -40
  echo "parity done at $SECONDS s"
fi
make -j8 check TESTS="${TESTS:-t/gpu_parity t/gibbs.sh}" > "$out/tests.log" 2>&1
grep -E "^(PASS|FAIL|SKIP|ERROR|XFAIL)" "$out/tests.log" | cut -c1-160
grep -h "# gibbs" t/gpu_parity.log | cut -c1-400
cp t/*.log "$out/" 2>/dev/null
echo "tests done at $SECONDS s"
if [ -z "${SKIP_SAN:-}" ]; then
  printf '[run]\nseed = 3\nequilibration = 20\nproduction = 20\nsample_every = 10\n[system]\nn = 120\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = gibbs\ntemperature = 0.9\ndensity = 0.15\nreplicas = 2\nwidom = 3\n[moves]\ndisplacement_fraction = 0.6\ntransfer_fraction = 0.3\nvolume_fraction = 0.1\n' > san.ini
  sanitize san.ini
fi
if [ -z "${SKIP_BENCH:-}" ]; then
  ./mcens-bench --case 5 --out "$out/bench5.tsv" > "$out/bench5.txt" 2>&1; tail -8 "$out/bench5.txt"
  echo "bench done at $SECONDS s"
fi
