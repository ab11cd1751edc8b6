#!/usr/bin/env bash
# GPU call for molecules in the Gibbs ensemble (issue 16): build; the parity tests and both Gibbs
# test scripts through the GPU backend; compute-sanitizer memcheck and racecheck on a small molecular
# Gibbs job; the Gibbs benchmark (case 5: atoms and two-centre molecules against NVT chains). Logs
# under $OUT.
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
make -j8 check TESTS="${TESTS:-t/gpu_parity t/gibbs.sh t/gibbs_molecules.sh}" > "$out/tests.log" 2>&1
grep -E "^(FAIL|SKIP|ERROR|XFAIL)|gibbs_molecules" "$out/tests.log" | cut -c1-160
echo "$(grep -c '^PASS' "$out/tests.log") passed, $(grep -c '^FAIL' "$out/tests.log") failed"
grep -h "# gibbs" t/gpu_parity.log | cut -c1-400
grep -h "^# ok\|^# FAIL\|backend" t/gibbs_molecules.log | cut -c1-200 | head -30
cp t/*.log "$out/" 2>/dev/null
echo "tests done at $SECONDS s"
printf '[run]\nseed = 3\nequilibration = 10\nproduction = 10\nsample_every = 5\n[mixture]\nspecies = A, B\nsigma = 1, 0.9\nepsilon = 1, 0.8\n[molecules]\ntypes = AB, T\ncounts = 40, 30\ngeometry = A 0 0 0; B 0 0 0.6 | A 0 0 0; A 0.5 0 0; A 0.25 0.433 0\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = gibbs\ntemperature = 1.9\ndensity = 0.08\nreplicas = 2\nwidom = 3\n[moves]\ndisplacement_fraction = 0.6\ntransfer_fraction = 0.3\nvolume_fraction = 0.1\n' > san.ini
sanitize san.ini
./mcens-bench --case 5 --out "$out/bench5.tsv" > "$out/bench5.txt" 2>&1; tail -10 "$out/bench5.txt"
echo "bench done at $SECONDS s"
