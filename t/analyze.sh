#!/bin/sh
# mcens-analyze on small real runs (NVT sweep, NPT, a diatomic mixture with Widom insertion, an
# open cluster): its table, CSV and XYZ equal the datasets, its figures are PNGs with the panels
# and curves the file implies (t/analyze_check.py), and bad input gives one message and status 1.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
. "$T_SRCDIR/tap_analyze.sh"
tap_plan 29
acheck() { pycheck analyze_check.py "$@"; }

cat > nvt.ini <<'INI'
[run]
output = nvt.h5
seed = 3
equilibration = 100
production = 400
sample_every = 5
[system]
n = 64
[potential]
cutoff = 2.0
[ensemble]
temperature = 1.5, 2.0
density = 0.5, 0.7
replicas = 2
exchange_every = 5
[rdf]
bins = 40
[output]
snapshot_every = 20
INI
mcens_run nvt; ok $? "NVT: 2 x 2 state points x 2 replicas run" || diag < run.txt

analyze summary nvt.h5; ok $? "summary runs" || diag < err.txt
cp out.txt nvt-summary.txt; diag < nvt-summary.txt
acheck summary nvt.h5 nvt-summary.txt; ok $? "summary: a row per state point, U/N and its standard error as in the file, * where blocking did not converge"
analyze export nvt.h5 --csv nvt.csv; ok $? "export --csv runs" || diag < err.txt
acheck csv nvt.h5 nvt.csv; ok $? "CSV: state points, means, errors and flags equal the datasets exactly"
analyze export nvt.h5 --xyz nvt.xyz --chain 5; ok $? "export --xyz --chain 5 runs" || diag < err.txt
acheck xyz nvt.h5 nvt.xyz 5; ok $? "XYZ: every frame's lattice, species and positions equal /particles/chain_000005"
analyze plot nvt.h5 -o nvt-fig --manifest nvt-fig.json; ok $? "plot runs" || diag < err.txt
acheck figures nvt.h5 nvt-fig nvt-fig.json
ok $? "NVT figures: g(r) with replica bands, U/N, P, C_V/N, acceptance, energy series with cuts"

cat > npt.ini <<'INI'
[run]
output = npt.h5
seed = 4
equilibration = 200
production = 400
sample_every = 5
[system]
n = 108
[potential]
cutoff = 2.0
[ensemble]
type = npt
temperature = 2.0
pressure = 0.5, 1.5
density = 0.5
replicas = 2
[rdf]
bins = 40
INI
mcens_run npt; ok $? "NPT: 2 pressures x 2 replicas run" || diag < run.txt
analyze plot npt.h5 -o npt-fig --manifest npt-fig.json && acheck figures npt.h5 npt-fig npt-fig.json
ok $? "NPT figures: against P, with density and enthalpy panels and a density series" || diag < err.txt
analyze export npt.h5 --csv npt.csv && acheck csv npt.h5 npt.csv
ok $? "NPT CSV has the pressure column and equals the datasets" || diag < err.txt

cat > mol.ini <<'INI'
[run]
output = mol.h5
seed = 5
equilibration = 100
production = 200
sample_every = 5
[mixture]
species = A, B
sigma = 1.0, 1.1
epsilon = 1.0, 0.8
[molecules]
types = AB, B
counts = 24, 16
geometry = A 0 0 -0.3; B 0 0 0.3 | B 0 0 0
[potential]
cutoff = 2.0
[ensemble]
temperature = 2.0
density = 0.3
replicas = 2
widom = 10
[rdf]
bins = 40
[output]
snapshot_every = 10
INI
mcens_run mol; ok $? "molecules: diatomics and atoms with Widom insertion run" || diag < run.txt
analyze export mol.h5 --csv mol.csv --xyz mol.xyz --chain 1 && acheck csv mol.h5 mol.csv
ok $? "molecules CSV: mu_excess one column per molecule type, all equal to the datasets" || diag < err.txt
acheck xyz mol.h5 mol.xyz 1; ok $? "molecules XYZ: the sites of chain 1 with their species"
analyze plot mol.h5 -o mol-fig --manifest mol-fig.json && acheck figures mol.h5 mol-fig mol-fig.json
ok $? "molecules figures: a g(r) panel per site pair and the centres, a mu_ex panel per type" || diag < err.txt

cat > cluster.ini <<'INI'
[run]
output = cluster.h5
seed = 6
equilibration = 100
production = 200
sample_every = 5
[system]
n = 55
boundary = none
lattice_constant = 1.55
[potential]
cutoff = none
tail_correction = no
[wall]
radius = 6
strength = 5
[ensemble]
temperature = 0.2, 0.4, 0.6
[rdf]
rmax = 4
bins = 40
INI
mcens_run cluster; ok $? "open cluster: 3 temperatures run" || diag < run.txt
analyze summary cluster.h5 && acheck summary cluster.h5 out.txt && grep -q "not defined for this system (NaN): pressure" out.txt
ok $? "cluster summary: no pressure column, and says why" || diag < err.txt
analyze plot cluster.h5 -o cl-fig --manifest cl-fig.json && acheck figures cluster.h5 cl-fig cl-fig.json
ok $? "cluster figures: U/N, C_V/N and Lindemann against T, no pressure panel" || diag < err.txt
analyze export cluster.h5 --csv cl.csv --xyz cl.xyz --chain 2 && acheck csv cluster.h5 cl.csv && acheck xyz cluster.h5 cl.xyz 2
ok $? "cluster CSV and XYZ (no Lattice, pbc F) equal the datasets" || diag < err.txt

cat > gibbs.ini <<'INI'
[run]
output = gibbs.h5
seed = 6
equilibration = 300
production = 600
sample_every = 10
[system]
n = 200
[potential]
cutoff = 3.0
tail_correction = yes
[ensemble]
type = gibbs
temperature = 0.9, 1.0
density = 0.25
replicas = 2
widom = 10
[moves]
displacement_fraction = 0.85
transfer_fraction = 0.148
volume_fraction = 0.002
INI
mcens_run gibbs; ok $? "Gibbs: 2 temperatures x 2 replicas run" || diag < run.txt
analyze plot gibbs.h5 -o gibbs-fig --manifest gibbs-fig.json && acheck figures gibbs.h5 gibbs-fig gibbs-fig.json
ok $? "Gibbs figures: liquid and vapour of each quantity (density, energy, pressure, chemical potential) on one panel, acceptance on 0 to 1, liquid and vapour density series" ||
    cat err.txt | diag

# negative controls: the checks fail on a wrong value
"$PYTHON3" - nvt.csv <<'PY'
import csv, math, sys
rows = list(csv.reader(open(sys.argv[1])))
rows[2][3] = repr(math.nextafter(float(rows[2][3]), math.inf))  # U/N of state point 1, one ulp up
csv.writer(open("wrong.csv", "w"), lineterminator="\n").writerows(rows)
PY
acheck csv nvt.h5 wrong.csv; [ $? -eq 1 ]; ok $? "the CSV check fails on one value one ulp off"
acheck figures npt.h5 nvt-fig nvt-fig.json; [ $? -eq 1 ]; ok $? "the figure check fails on another file's figures"
"$PYTHON3" - nvt.xyz <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
lines[5] = lines[5].replace(" ", " -", 1)  # one coordinate of the first frame negated
open("wrong.xyz", "w").write("\n".join(lines))
PY
acheck xyz nvt.h5 wrong.xyz 5; [ $? -eq 1 ]; ok $? "the XYZ check fails on one coordinate changed"

# bad input: one line naming the file and the problem, status 1, no traceback (bad: tap_analyze.sh)
bad "not HDF5" "nvt.ini: not an HDF5 file, so not an mcens output" summary nvt.ini
"$PYTHON3" -c 'import h5py; h5py.File("other.h5", "w")["x"] = 1'
bad "HDF5 but not mcens" "other.h5: not an mcens output" plot other.h5
cp nvt.h5 broken.h5
"$PYTHON3" -c 'import h5py; del h5py.File("broken.h5", "r+")["results/energy/stderr"]'
bad "a missing dataset" "broken.h5: missing dataset /results/energy/stderr" export broken.h5 --csv x.csv
bad "a bad chain index" "nvt.h5: no chain 8: the file has chains 0 to 7" export nvt.h5 --xyz x.xyz --chain 8
exit 0
