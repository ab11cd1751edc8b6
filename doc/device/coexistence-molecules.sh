#!/usr/bin/env bash
# GPU call: build, then examples/coexistence_molecules.ini with its 528 chains as given except that
# samples are every 40 sweeps (the output file then fits what comes back from the machine); the
# file goes to $OUT for `mcens-analyze coexistence` on the development machine.
set -uo pipefail
. doc/device/build.sh
sed 's/^sample_every = 20/sample_every = 40/' examples/coexistence_molecules.ini > cm.ini
/usr/bin/time -v mpirun -np 1 ./mcens -o "$out/cm.h5" cm.ini > "$out/cm.txt" 2> "$out/cm.time"
echo "status $?"; tail -25 "$out/cm.txt"; grep -E "Elapsed|Maximum resident" "$out/cm.time"
ls -la "$out"
