#!/bin/sh
# Honest equilibration (issue 15): a run that starts production from the lattice with a tiny
# frozen step (no equilibration) is still relaxing, and mcens must flag it (a warning, and drifts
# beyond the run's threshold in /chains/NAME_drift, with a later stationary start); the same state
# equilibrated first must not be flagged. Runs are seeded, so the outcome is fixed; the threshold
# gives a whole run of stationary chains a 1% chance of a false flag.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 7
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

# start = melt for atoms: random points no two closer than 0.7 lattice spacings (frozen with a step
# of 1e-12 and no equilibration, the last frame is the start), not the lattice, and too dense refused
printf '[run]\nseed = 5\nequilibration = 0\nproduction = 1\nsample_every = 1\n[system]\nn = 256\nstart = melt\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.5\ndensity = 0.6\nreplicas = 3\n[moves]\nmax_displacement = 1e-12\n' > melt.ini
run_np 2 -q -o melt.h5 melt.ini > melt.txt 2>&1 && "$PYTHON3" -c "
import h5py, numpy as np, sys
f = h5py.File('melt.h5', 'r')
L = f['particles/chain_000000/box/edges/value'][-1][0, 0]
nn = (4 / 0.6) ** (1 / 3) / 2 ** 0.5          # fcc nearest-neighbour distance at this density
worst, on_lattice = np.inf, 0
for g in f['particles']:
    x = f['particles'][g]['position/value'][-1]
    d = x[:, None, :] - x[None, :, :]
    d -= L * np.round(d / L)
    r = np.sqrt((d ** 2).sum(-1)) + np.eye(len(x)) * 1e9
    worst = min(worst, r.min())
    on_lattice += np.sum(np.isclose(np.sort(r, axis=1)[:, 11], nn, rtol=1e-6))  # 12 neighbours at nn
print(f'# closest pair {worst:.4f} (0.7 spacings: {0.7 * nn:.4f}); particles with a lattice shell: {on_lattice}')
sys.exit(0 if worst >= 0.7 * nn * (1 - 1e-12) and on_lattice == 0 else 1)" | diag
ok $? "start = melt (atoms): random points at least 0.7 lattice spacings apart, no lattice order" || diag < melt.txt
"$PYTHON3" -c "
import h5py, numpy as np, sys
e = h5py.File('melt.h5', 'r')['chains/energy'][...]
sys.exit(0 if len(set(e[:, 0])) == 3 else 1)"
ok $? "... each chain its own random start"
sed 's/^density = 0.6/density = 1.1/' melt.ini > dense.ini
run_np 1 -q -o dense.h5 dense.ini > dense.txt 2>&1 && "$PYTHON3" -c "
import h5py, numpy as np, sys
e = h5py.File('dense.h5', 'r')['chains/energy'][...]
print('# U/N at the start, density 1.1:', np.round(e[:, 0], 2))
sys.exit(0 if np.all(np.isfinite(e)) else 1)" | diag
ok $? "start = melt at density 1.1 (denser than the LJ solid at freezing): placed, finite energies" || diag < dense.txt
exit 0
