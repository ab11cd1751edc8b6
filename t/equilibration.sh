#!/bin/sh
# Honest equilibration (issue 15): a run that starts production from the lattice with a tiny
# frozen step (no equilibration) is still relaxing, and mcens must flag it (a warning, and drifts
# beyond the run's threshold in /chains/NAME_drift, with a later stationary start); the same state
# equilibrated first must not be flagged. Runs are seeded, so the outcome is fixed; the threshold
# gives a whole run of stationary chains a 1% chance of a false flag.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 4
cat > bad.ini <<'EOF'
[run]
seed = 22
equilibration = 0
production = 3000
sample_every = 5
[system]
n = 108
[potential]
cutoff = 2.5
[ensemble]
temperature = 2.0
density = 0.6
replicas = 4
[moves]
max_displacement = 0.01
EOF
sed -e 's/^equilibration = 0/equilibration = 1000/' -e '/^max_displacement/d' bad.ini > good.ini
drift() { # drift FILE: the largest |drift| over chains and series, and the latest stationary start
    "$PYTHON3" -c "
import h5py, numpy as np
c = h5py.File('$1', 'r')['chains']
d = max(np.nanmax(np.abs(c[n][...])) for n in c if n.endswith('_drift'))
print(f'{d:.2f} {int(c[\"equilibration_sample\"][...].max())}')"
}
run_np 2 -q -o bad.h5 bad.ini > bad.txt 2>&1 && grep -q "mcens: warning: [0-9]* of 8 chain series were not stationary in production" bad.txt
ok $? "production from the lattice with a tiny step: the run warns that it was not stationary" || diag < bad.txt
set -- $(drift bad.h5)
echo "unequilibrated: largest drift $1 standard errors, latest stationary start sample $2 of 600" | diag
[ "$(echo "$1 > 3.23" | awk '{print ($1 > $3)}')" = 1 ] && [ "$2" -ge 60 ]
ok $? "... its file has drifts beyond the threshold (3.23 for 8 series) and a stationary start well into production"
run_np 2 -q -o good.h5 good.ini > good.txt 2>&1 && ! grep -q "not stationary" good.txt
ok $? "the same state after 1000 sweeps of equilibration: no warning" || diag < good.txt
set -- $(drift good.h5)
echo "equilibrated: largest drift $1 standard errors" | diag
[ "$(echo "$1" | awk '{print ($1 < 3.23)}')" = 1 ]
ok $? "... and every drift within the threshold"
exit 0
