#!/usr/bin/env bash
# GPU call for issue 14's shape A at its final code: build; t/gpu_parity, t/gpu_run.sh and
# t/restart.sh through the GPU; compute-sanitizer on a small job on the chain kernel's cell lists
# with replica exchange, single and double; mcens-bench cases 7, 1, 6 and 8; and N = 1000 chains (8
# per SM) at 5 cells per edge, cell lists against all pairs. (The 4-cell figures of
# doc/performance.md version 16 came from a build that took the lists from 4 cells per edge.)
# Logs under $OUT.
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
gpu_tests "t/gpu_parity t/gpu_run.sh t/restart.sh"
grep -h "^# " t/gpu_parity.log | grep -i "sweeps\|exchange" | cut -c1-160
cp t/gpu_parity.log "$out/"
echo "tests done at $SECONDS s"
sanitize_precisions '[run]\nseed = 3\nequilibration = 4\nproduction = 4\nsample_every = 4\nprecision = %s\n[system]\nn = 1000\n[potential]\ncutoff = 2.1\n[ensemble]\ntemperature = 1.0, 1.05\ndensity = 0.8\nexchange_every = 2\n'
echo "sanitizers done at $SECONDS s"
./mcens-bench --case 7 --out "$out/bench7.tsv" > "$out/bench7.txt" 2>&1; tail -6 "$out/bench7.txt"
./mcens-bench --case 1 > "$out/bench1.txt" 2>&1; tail -3 "$out/bench1.txt"
threshold() { # label cutoff lists
  printf '[run]\nseed = 5\nprecision = single\nequilibration = 0\nproduction = 200\nsample_every = 50\ngpu_cell_lists = %s\n[system]\nn = 1000\n[potential]\ncutoff = %s\n[ensemble]\ntemperature = 1\ndensity = 0.8\nreplicas = 1056\n' "$3" "$2" > t.ini
  rm -f t.h5; ./mcens -q -o t.h5 t.ini > /dev/null 2>&1
  echo "$1 rc $2 lists $3: $(python3 -c "import h5py; print('%.4g' % h5py.File('t.h5')['parameters'].attrs['moves_per_second'])")"
}
threshold "m=5" 2.1 auto; threshold "m=5" 2.1 no
mixture() { # lists: shape A as a binary mixture (2000 + 2000), 528 chains
  printf '[run]\nseed = 5\nprecision = single\nequilibration = 0\nproduction = 100\nsample_every = 50\ngpu_cell_lists = %s\n[mixture]\nspecies = A, B\ncounts = 2000, 2000\nsigma = 1, 0.9\nepsilon = 1, 0.8\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\nreplicas = 528\n' "$1" > mix.ini
  rm -f mix.h5; ./mcens -q -o mix.h5 mix.ini > /dev/null 2>&1 || echo "mixture run failed"
  echo "mixture N 4000 lists $1: $(python3 -c "import h5py; print('%.4g' % h5py.File('mix.h5')['parameters'].attrs['moves_per_second'])")"
}
mixture auto; mixture no
./mcens-bench --case 6 > "$out/bench6.txt" 2>&1; tail -3 "$out/bench6.txt"
./mcens-bench --case 8 > "$out/bench8.txt" 2>&1; tail -4 "$out/bench8.txt"
echo "all done at $SECONDS s"
