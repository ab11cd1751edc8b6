#!/bin/sh
# mcens-analyze mbar (issue 15, reweighting): the estimator against exact answers on synthetic data,
# MBAR against mcens's direct averages at the sampled temperatures (NVT and NPT) and against a
# separate direct run between two of them, the figure, and bad input. t/mbar_check.py reads the
# HDF5 files; every tolerance is a multiple of their standard errors.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
. "$T_SRCDIR/tap_analyze.sh"
have_module pymbar || tap_skip_all "no pymbar here (python3-pymbar): mcens-analyze mbar needs it"
tap_plan 22
mcheck() { pycheck mbar_check.py "$@"; }

# 1. the estimator: energies drawn exactly from known distributions (harmonic and two-level)
mcheck synth synth.h5; ok $? "synthetic file: 2 densities x 5 temperatures x 2 replicas"
analyze mbar synth.h5 --manifest synth.json; ok $? "mbar runs on it" || diag < err.txt
diag < out.txt
mcheck exact synth.h5 synth-mbar.h5
ok $? "U/N and C_V/N on the grid and at the sampled T within 4 of MBAR's standard errors of exact; cut and thinning as the file implies"

# ... and its harmonic ladder spaced too far apart: the table and the figure both warn, for that ladder alone
mcheck synth sparse.h5 sparse; ok $? "synthetic file with a sparse ladder (temperatures 1.45 apart in ratio)"
analyze mbar sparse.h5 -o sparse-fig --manifest sparse.json && grep -q "ladder_000.*poorly connected" out.txt &&
    ! grep -q "ladder_001.*poorly connected" out.txt && mcheck figures sparse.h5 sparse-fig sparse.json
ok $? "sparse ladder: the table and the figure's title warn of its poor overlap, and of no other ladder's" ||
    cat out.txt err.txt | diag

# 2. a short LJ run: three temperatures on one density, two replicas
cat > lj.ini <<'INI'
[run]
output = lj.h5
seed = 31
equilibration = 500
production = 6000
sample_every = 5
[system]
n = 64
[potential]
cutoff = 2.0
[ensemble]
temperature = 1.4, 1.7, 2.0
density = 0.6
replicas = 2
INI
sed -e 's/^output = lj.h5/output = direct.h5/' -e 's/^seed = 31/seed = 32/' \
    -e 's/^temperature = .*/temperature = 1.55/' lj.ini > direct.ini
mcens_run lj; ok $? "LJ NVT: 3 temperatures x 2 replicas run" || diag < run.txt
mcens_run direct; ok $? "LJ NVT: a separate run at T = 1.55 (between 1.4 and 1.7)" || diag < run.txt
# 61 points from 1.4 to 2.0: one every 0.01, so 1.55 is a grid point
analyze mbar lj.h5 --points 61 -o lj-fig --manifest lj-fig.json; ok $? "mbar on the LJ run" || diag < err.txt
diag < out.txt
mcheck sampled lj.h5 lj-mbar.h5
ok $? "at the sampled T: MBAR U/N and C_V/N equal mcens's /results within 3 combined sigma"
mcheck between lj.h5 lj-mbar.h5 direct.h5
ok $? "at T = 1.55: MBAR U/N and C_V/N equal the separate direct run within 3 combined sigma"

cat > npt.ini <<'INI'
[run]
output = npt.h5
seed = 33
equilibration = 500
production = 6000
sample_every = 5
[system]
n = 64
[potential]
cutoff = 2.0
[ensemble]
type = npt
temperature = 1.6, 1.8, 2.0
pressure = 2.0
density = 0.6
replicas = 2
INI
mcens_run npt; ok $? "LJ NPT: 3 temperatures at one pressure run" || diag < run.txt
analyze mbar npt.h5 -o npt-fig --manifest npt-fig.json; ok $? "mbar on the NPT run" || diag < err.txt
diag < out.txt
mcheck sampled npt.h5 npt-mbar.h5
ok $? "NPT at the sampled T: MBAR U/N, C_P/N, H/N and density equal /results within 3 combined sigma"

# 3. figures
mcheck figures lj.h5 lj-fig lj-fig.json; ok $? "NVT figure: a PNG, U/N and C_V/N panels with curve, band and direct points"
mcheck figures npt.h5 npt-fig npt-fig.json; ok $? "NPT figure: H/N, C_P/N, U/N and density panels"

# negative controls: the checks fail on an estimate moved by twice their bound (so it fails
# whichever way the value already lay within the bound)
cp synth-mbar.h5 wrong-synth.h5
"$PYTHON3" -c '
import h5py; g = h5py.File("wrong-synth.h5", "r+")["ladder_001/heat_capacity"]
m = g["mean"][:]; m[50] += 8 * g["stderr"][50]; g["mean"][...] = m'
mcheck exact synth.h5 wrong-synth.h5; [ $? -eq 1 ]; ok $? "the exact check fails on one grid C_V/N moved by 8 standard errors"
cp direct.h5 wrong-direct.h5
"$PYTHON3" -c '
import h5py, math
m = h5py.File("lj-mbar.h5", "r")["ladder_000"]; k = abs(m["temperature"][:] - 1.55).argmin()
g = h5py.File("wrong-direct.h5", "r+")["results/energy"]
g["mean"][...] = g["mean"][:] + 6 * math.hypot(m["energy/stderr"][k], g["stderr"][0])'
mcheck between lj.h5 lj-mbar.h5 wrong-direct.h5; [ $? -eq 1 ]
ok $? "the interpolation check fails on the direct U/N moved by 6 combined standard errors"

# bad input: one line naming the problem, status 1, no traceback (bad: tap_analyze.sh)
bad "a missing file" "none.h5: no such file" mbar none.h5
bad "an existing output" "lj-mbar.h5: exists; mbar writes a new file (--force to replace it)" mbar lj.h5
bad "one temperature" "direct.h5: mbar: no density has two sampled temperatures to reweight between" mbar direct.h5
cp lj.h5 noseries.h5
"$PYTHON3" -c 'import h5py; f = h5py.File("noseries.h5", "r+"); del f["chains/energy"]; f.pop("observables", None)'
bad "no energy series" "noseries.h5: no per-sample energy series (/chains/energy): nothing to reweight" mbar noseries.h5
bad "a grid below the sampled range" "lj.h5: mbar: grid 1.2 to 2 is outside the sampled range 1.4 to 2" \
    mbar lj.h5 --force --tmin 1.2
exit 0
