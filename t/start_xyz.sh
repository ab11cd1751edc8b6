#!/bin/sh
# [system] start = xyz: a run started from the last frame of an extended XYZ file begins exactly
# there: `mcens-analyze export --xyz` of an earlier run's chain round-trips (atoms, and SPC/E water
# whose centres and orientations are fitted to its sites), the Lattice giving the box and so the
# density; a packmol-style file in A without a Lattice takes [ensemble] density; the last of
# several frames is the one taken; another density scales it; a file that does not fit the run is
# refused at setup, naming the file, the line and what differs, and nothing is written.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 20
sc() { pycheck start_check.py "$@"; }
export_xyz() { PYTHONPATH="$T_SRCDIR/../python${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON3" -m mcens_analyze export "$@"; }

# --- atoms: a binary mixture, two replicas; chain 1 exported, then started from with steps of 1e-12
# and no equilibration (nothing moves: each sample's energy is the file's)
printf '%s\n' '[run]
output = atoms.h5
seed = 3
equilibration = 60
production = 60
sample_every = 10
[mixture]
species = A, B
sigma = 1, 0.9
epsilon = 1, 0.8
counts = 120, 80
[ensemble]
temperature = 1.5
density = 0.7
replicas = 2' > atoms.ini
run_np 2 -q atoms.ini > atoms.txt 2>&1 && export_xyz --xyz atoms1.xyz --chain 1 atoms.h5 > export.txt 2>&1
ok $? "200 atoms of two species run, chain 1 exported as extended XYZ" || cat atoms.txt export.txt | diag
sed 's/^output = .*/output = atoms_again.h5/; s/^equilibration = .*/equilibration = 0/; s/^production = .*/production = 20/;
     /^density = /d; s/^\[run\]/[run]\n[system]\nstart = xyz\nstart_file = atoms1.xyz\n[run]/' atoms.ini > atoms_again.ini
printf '[moves]\nmax_displacement = 1e-12\n' >> atoms_again.ini
run_np 2 atoms_again.ini > atoms_again.txt 2>&1; ok $? "atoms start from the XYZ file, its Lattice giving the density" || diag < atoms_again.txt
sc energy_from atoms_again.h5 atoms.h5 1 1e-9; ok $? "every chain's energy at every sample is chain 1's final energy"
sc frames_equal atoms_again.h5 atoms.h5 1 1e-9; ok $? "every chain ends at chain 1's last frame (positions to 1e-9)"
grep -q "start = xyz: every chain starts from the last frame of atoms1.xyz" atoms_again.txt
ok $? "the log names the start" || diag < atoms_again.txt
# one species without [mixture] has no name of the user's: a file's "Ar" is taken
printf '[run]\noutput = ar.h5\nseed = 4\nequilibration = 0\nproduction = 10\nsample_every = 10\n[system]\nstart = xyz\nstart_file = ar.xyz\nn = 200\n[ensemble]\ntemperature = 1.5\n' > ar.ini
sed -e '3,$ s/^[AB] /Ar /' atoms1.xyz > ar.xyz
run_np 1 -q ar.ini > ar.txt 2>&1; ok $? "one species without [mixture]: atoms named Ar in the file start the run" || diag < ar.txt

# --- SPC/E water (damped shifted force): centres and orientations fitted to the sites
{ printf '[run]\noutput = water.h5\nseed = 5\nequilibration = 40\nproduction = 40\nsample_every = 10\nbackend = cpu\n'
  spce_model
  printf 'counts = 64\n[potential]\ncutoff = 0.6\ncoulomb = dsf\n[ensemble]\ntemperature = 298\ndensity = 33.4\nreplicas = 2\n'; } > water.ini
run_np 2 -q water.ini > water.txt 2>&1 && export_xyz --xyz water1.xyz --chain 1 water.h5 > export.txt 2>&1
ok $? "64 SPC/E waters run, chain 1 exported" || cat water.txt export.txt | diag
sed 's/^output = .*/output = water_again.h5/; s/^equilibration = .*/equilibration = 0/; s/^production = .*/production = 20/;
     /^density = /d; s/^counts = 64/counts = 64\nstart = xyz\nstart_file = water1.xyz/' water.ini |
    sed 's/^counts = 64$/counts = 64/' > water_again.ini
printf '[moves]\nmax_displacement = 1e-12\nmax_rotation = 1e-12\n' >> water_again.ini
# ([system] start and start_file after [molecules] counts: a second [system] section)
sed -i 's/^start = xyz$/[system]\nstart = xyz/' water_again.ini
run_np 2 -q water_again.ini > water_again.txt 2>&1; ok $? "water starts from the XYZ file" || diag < water_again.txt
sc energy_from water_again.h5 water.h5 1 1e-9; ok $? "water: every sample's energy is chain 1's final energy (1e-9 kJ/mol)"
sc frames_equal water_again.h5 water.h5 1 1e-9
ok $? "water: every chain ends at chain 1's last frame (sites, centres and orientations to 1e-9)"

# a packmol-style file: A (the XYZ default in real units), no Lattice, no unit; density given
"$PYTHON3" -c "
lines = open('water1.xyz').read().split('\n')
n = int(lines[0])
out = ['%d' % n, 'written by a packmol-like tool']
for l in lines[2:2 + n]:
    s, x, y, z = l.split()
    out.append('%s %.12f %.12f %.12f' % (s, 10 * float(x), 10 * float(y), 10 * float(z)))
open('packmol.xyz', 'w').write('\n'.join(out) + '\n')"
sed 's/^output = .*/output = packmol.h5/; s/^start_file = .*/start_file = packmol.xyz/; s/^\[ensemble\]/[ensemble]\ndensity = 33.4/' \
    water_again.ini > packmol.ini
run_np 1 -q packmol.ini > packmol.txt 2>&1 && sc energy_from packmol.h5 water.h5 1 1e-6
ok $? "an A file without Lattice or unit, density given: chain 1's final energy (1e-6 kJ/mol: 12 decimals of A)" ||
    diag < packmol.txt

# two frames: the last is taken (the first is the start of chain 0)
export_xyz --xyz water0.xyz --chain 0 water.h5 > export.txt 2>&1 && cat water0.xyz water1.xyz > two.xyz &&
    sed 's/^output = .*/output = two.h5/; s/^start_file = .*/start_file = two.xyz/' water_again.ini > two.ini &&
    run_np 1 -q two.ini > two.txt 2>&1 && sc energy_from two.h5 water.h5 1 1e-9
ok $? "of two frames, the last is taken" || diag < two.txt

# another density than the Lattice's: every chain's centres scaled affinely to its box
sed 's/^output = .*/output = dense.h5/; s/^\[ensemble\]/[ensemble]\ndensity = 34/; s/^max_displacement = .*/max_displacement = 0.01/' \
    water_again.ini > dense.ini
run_np 1 -q dense.ini > dense.txt 2>&1; ok $? "density 34 from the file's 33.4: scaled, and the run goes on" || diag < dense.txt

# --- refused, naming the file, the line and what differs; nothing written
tap_bad() {
    "$PYTHON3" -c "$2" > bad.xyz
    sed "s/^output = .*/output = bad.h5/; s/^start_file = .*/start_file = bad.xyz/" "${4:-water_again.ini}" > bad.ini
    run_np 1 -q bad.ini > bad.out 2>&1; rc=$?
    [ $rc -eq 1 ] && grep -qF -- "$3" bad.out && [ ! -e bad.h5 ] && [ ! -e bad.h5.part ]
    ok $? "$1: refused with '$3', nothing written" || diag < bad.out
}
# (the Python lines edit water1.xyz: line 0 the count, 1 the comment, site i at line 2 + i)
read_xyz="L = open('water1.xyz').read().rstrip('\n').split('\n')"
tap_bad "sites swapped" "$read_xyz
L[2 + 15], L[2 + 16] = L[2 + 16], L[2 + 15]; print('\n'.join(L))" "bad.xyz:18: site 15 is H, expected O: site 0 of molecule 5 (type water)"
tap_bad "a bent molecule" "$read_xyz
s, x, y, z = L[2 + 16].split(); L[2 + 16] = '%s %r %s %s' % (s, float(x) + 0.01, y, z); print('\n'.join(L))" \
    "molecule 5 (type water): a site lies"
tap_bad "a box that is not cubic" "$read_xyz
L[1] = L[1].replace('Lattice=\"', 'Lattice=\"1.5 0.0 0.0 0.0 '); print('\n'.join(L))" "bad.xyz:2: Lattice:"
tap_bad "a site too few" "$read_xyz
L[0] = str(int(L[0]) - 1); print('\n'.join(L[:-1]))" "bad.xyz:1: 191 sites, expected 192"
tap_bad "sigma in real units" "$read_xyz
L[1] = L[1].replace('unit=nm', 'unit=sigma'); print('\n'.join(L))" "bad.xyz:2: unit=sigma: expected A (the default) or nm"
tap_bad "no box and no density" "$read_xyz
L[1] = 'no lattice here unit=nm'; print('\n'.join(L))" "bad.xyz:2: no Lattice (the box): give one"
sed 's/^\[ensemble\]/[ensemble]\ntype = gibbs\ndensity = 20/' water_again.ini > gibbs.ini
tap_bad "the Gibbs ensemble" "$read_xyz
print('\n'.join(L))" "[system] start = xyz: type = gibbs starts on a lattice or at random" gibbs.ini
exit 0
