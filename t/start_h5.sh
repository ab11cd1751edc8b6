#!/bin/sh
# [system] start = h5: runs started from the last frame of an earlier output begin exactly there
# (atoms and molecules, chain by chain and from one chain K, in the same box or scaled to another
# density), alike on 1 and 3 ranks; a file that does not fit the run is refused at setup with the
# file and what differs, and nothing is written; a compressed start that overlaps is refused or
# stopped, never run to NaN.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 45
sc() { pycheck start_check.py "$@"; }

# --- atoms: 2 densities x 2 replicas
printf '%s\n' '[run]
output = first.h5
seed = 3
equilibration = 100
production = 100
sample_every = 10
[system]
n = 256
[ensemble]
temperature = 1.5
density = 0.6, 0.7
replicas = 2' > first.ini
run_np 2 -q first.ini > first.txt 2>&1; ok $? "256 LJ atoms, 4 chains, run from the lattice" || diag < first.txt

# steps of 1e-12 and no equilibration to adapt them: nothing moves, so every chain must still hold
# its source chain's last frame, and every sample the source's final energy
sed 's/^output = .*/output = again.h5/; s/^equilibration = .*/equilibration = 0/; s/^production = .*/production = 20/;
     s/^n = 256/n = 256\nstart = h5\nstart_file = first.h5/' first.ini > again.ini
printf '[moves]\nmax_displacement = 1e-12\n' >> again.ini
run_np 2 again.ini > again.txt 2>&1; ok $? "a run starts from first.h5 chain by chain" || diag < again.txt
sc energy_from again.h5 first.h5 -1 1e-9; ok $? "each chain's energy at every sample is its source chain's final energy"
sc frames_equal again.h5 first.h5 -1 1e-9; ok $? "each chain ends at its source chain's last frame (positions to 1e-9)"
grep -q "each chain starts from the last frame of its chain in first.h5" again.txt
ok $? "the log names the start" || diag < again.txt

# start_chain = 3 (density 0.7, replica 1): three chains of another run all from that one frame
sed 's/^output = .*/output = one.h5/; s/^density = .*/density = 0.7/; s/^replicas = .*/replicas = 3/;
     s/^start_file = .*/start_file = first.h5\nstart_chain = 3/' again.ini > one.ini
run_np 2 -q one.ini > one.txt 2>&1; ok $? "3 chains from chain 3 of a 4-chain file (start_chain)" || diag < one.txt
sc energy_from one.h5 first.h5 3 1e-9; ok $? "every chain starts with chain 3's final energy"
sc frames_equal one.h5 first.h5 3 1e-9; ok $? "every chain holds chain 3's last frame"

# another density: the box is scaled affinely, and the log says so
sed 's/^output = .*/output = scaled.h5/; s/^density = .*/density = 0.65, 0.8/' again.ini > scaled.ini
run_np 2 scaled.ini > scaled.txt 2>&1; ok $? "a start at densities 0.65 and 0.8 from 0.6 and 0.7" || diag < scaled.txt
grep -q "4 of 4 chains had another box than their state point's: scaled affinely" scaled.txt
ok $? "the log says the boxes were scaled" || diag < scaled.txt
sc frames_equal scaled.h5 first.h5 -1 1e-9 box; ok $? "positions are the file's times the ratio of the boxes"
sc frames_equal scaled.h5 first.h5 -1 1e-9 1; [ $? -eq 1 ]; ok $? "negative control: unscaled positions do not match"

# rank invariance with moves that move: 1 and 3 ranks give the same chains
sed 's/^output = .*/output = np1.h5/; s/^equilibration = .*/equilibration = 20/; /^max_displacement/d' again.ini > np1.ini
sed 's/^output = .*/output = np3.h5/' np1.ini > np3.ini
run_np 1 -q np1.ini > np1.txt 2>&1 && run_np 3 -q np3.ini > np3.txt 2>&1
ok $? "the same h5 start on 1 and on 3 ranks" || diag < np1.txt np3.txt
sc same np1.h5 np3.h5 chains/energy; ok $? "/chains/energy bit-identical on 1 and 3 ranks"
# stopped by a signal on 2 ranks and restarted on 3: the restart builds the chains from the file
# again before the checkpoint replaces them, and ends where the uninterrupted run did
sed 's/^output = .*/output = stopped.h5/' np1.ini > stopped.ini
MCENS_TEST_SIGNAL_AT=0:30 run_np 2 -q stopped.ini > stopped.txt 2>&1; rc=$?
[ $rc -eq 3 ] && run_np 3 -q --restart stopped.ini >> stopped.txt 2>&1
ok $? "stopped by SIGUSR1 after 30 sweeps, restarted on 3 ranks" || diag < stopped.txt
h5check same_results np1.h5 stopped.h5; ok $? "/chains and /results bit-identical to the run uninterrupted"

# strong compression, 0.6 -> 1.9 (box x 0.68): runs, finite; two atoms at one place: stopped
sed 's/^output = .*/output = dense.h5/; s/^density = .*/density = 1.9/; s/^equilibration = .*/equilibration = 50/;
     s/^start_file = .*/start_file = first.h5\nstart_chain = 0/; /^max_displacement/d; s/^\[ensemble\]/[potential]\ncutoff = 2.5\n[ensemble]/' \
     again.ini > dense.ini
run_np 2 -q dense.ini > dense.txt 2>&1; ok $? "a start compressed from density 0.6 to 1.9 runs" || diag < dense.txt
sc finite dense.h5 chains/energy; ok $? "its energies are finite"
cp first.h5 same.h5
"$PYTHON3" -c "
import h5py
with h5py.File('same.h5', 'r+') as f:
    v = f['particles/chain_000000/position/value']; a = v[...]; a[-1, 1] = a[-1, 0]; v[...] = a"
sed 's/^output = .*/output = bad.h5/; s/^start_file = .*/start_file = same.h5/' dense.ini > bad.ini
run_np 2 -q bad.ini > bad.out 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "chain 0, sweep 50: running energy -\?nan differs" bad.out && [ ! -e bad.h5 ] && [ ! -e bad.h5.part ]
ok $? "two atoms at one place: the drift check stops the run at its first check, nothing written" || diag < bad.out

# bad NAME CONFIG-EDIT MESSAGE: again.ini edited by sed is refused with MESSAGE, and nothing written
tap_bad() {
    sed "s/^output = .*/output = bad.h5/; $2" "${4:-again.ini}" > bad.ini
    run_np 2 -q bad.ini > bad.out 2>&1; rc=$?
    [ $rc -ne 0 ] && grep -qF -- "$3" bad.out && [ ! -e bad.h5 ] && [ ! -e bad.h5.part ]
    ok $? "$1: refused with '$3', nothing written" || diag < bad.out
}
echo "not an output" > notes.txt
"$PYTHON3" -c "import h5py; h5py.File('plain.h5', 'w').create_dataset('x', data=[1])"
cp first.h5 old.h5 && sc edit old.h5 drop_particles
cp first.h5 renamed.h5 && sc edit renamed.h5 species X
tap_bad "a missing file" 's/^start_file = .*/start_file = missing.h5/' \
    "[system] start_file = missing.h5: cannot read it: No such file or directory"
tap_bad "a text file" 's/^start_file = .*/start_file = notes.txt/' "notes.txt: not an HDF5 file"
tap_bad "an HDF5 file mcens did not write" 's/^start_file = .*/start_file = plain.h5/' \
    "plain.h5: not an mcens output (no /parameters with an mcens_version)"
tap_bad "an mcens file without /particles" 's/^start_file = .*/start_file = old.h5/' "old.h5: no /particles"
tap_bad "another particle count" 's/^n = 256/n = 500/; s/^density = .*/density = 0.5, 0.55/' \
    "first.h5: chain 0 has 256 particles, the run has 500"
tap_bad "another species" 's/^start_file = .*/start_file = renamed.h5/' \
    "renamed.h5: chain 0, particle 0 is species X, the run's is all"
tap_bad "start_chain out of range" 's/^start_file = .*/start_file = first.h5\nstart_chain = 4/' \
    "[system] start_chain = 4: first.h5 has chains 0 to 3"
tap_bad "another chain count without start_chain" 's/^replicas = .*/replicas = 3/' \
    "first.h5: 4 chains, the run has 6: set [system] start_chain = K"
tap_bad "another length unit" 's/^n = 256/n = 256\nunits = real/; s/^temperature = .*/temperature = 150/' \
    "first.h5: lengths in sigma, the run's in nm ([system] units)"
tap_bad "start_chain without start = h5" '/^start = /d; /^start_file/d' "[system] start_chain: expected start = h5" \
    one.ini

# --- molecules: 48 diatomics and 16 atoms (the [molecules] order matters), real units
sed 's/^output = .*/output = mol1.h5/; s/^cutoff = .*/cutoff = 0.45/; s/^density = .*/density = 8, 9/' \
    "$T_SRCDIR/start_molecules.ini" > mol1.ini
run_np 2 -q mol1.ini > mol1.txt 2>&1; ok $? "48 diatomics and 16 atoms, 4 chains, run from the lattice" || diag < mol1.txt
sed 's/^output = .*/output = mol2.h5/; s/^equilibration = .*/equilibration = 0/; s/^production = .*/production = 10/;
     s/^units = real/units = real\nstart = h5\nstart_file = mol1.h5/' mol1.ini > mol2.ini
printf '[moves]\nmax_displacement = 1e-12\nmax_rotation = 1e-12\n' >> mol2.ini
run_np 3 -q mol2.ini > mol2.txt 2>&1; ok $? "molecules start from mol1.h5 chain by chain, on 3 ranks" || diag < mol2.txt
sc energy_from mol2.h5 mol1.h5 -1 1e-9; ok $? "each chain starts with its source chain's final energy"
sc frames_equal mol2.h5 mol1.h5 -1 1e-9; ok $? "each chain holds its source's centres and orientations"

# --- a molecule of 20 sites, more than /molecules' tables had room for before (16): the tables
# widen to the largest type, and a run starts from the file
{ printf '[run]\noutput = big1.h5\nseed = 23\nequilibration = 10\nproduction = 20\nsample_every = 10\n'
  printf '[molecules]\ntypes = plate\ncounts = 12\ngeometry = A 0 0 0'
  awk 'BEGIN { for (k = 1; k < 20; k++) printf ";\n  A %.1f %.1f 0", 0.4 * (k % 5), 0.4 * int(k / 5) }'
  printf '\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 2\ndensity = 0.02\nreplicas = 2\n'; } > big1.ini
run_np 2 -q big1.ini > big1.txt 2>&1 && "$PYTHON3" -c "
import h5py, sys
f = h5py.File('big1.h5', 'r')['molecules']
print('# /molecules/site_species', f['site_species'].shape, 'site_body', f['site_body'].shape)
sys.exit(0 if f['site_species'].shape == (1, 20) and f['site_body'].shape == (1, 20, 3) and f['site_species'][0, 19] == 0 else 1)"
ok $? "a molecule of 20 sites runs; /molecules' site tables are 20 wide" || diag < big1.txt
sed 's/^output = .*/output = big2.h5/; s/^equilibration = .*/equilibration = 0/; s/^\[molecules\]/[system]\nstart = h5\nstart_file = big1.h5\n[molecules]/' \
    big1.ini > big2.ini
printf '[moves]\nmax_displacement = 1e-12\nmax_rotation = 1e-12\n' >> big2.ini
run_np 2 -q big2.ini > big2.txt 2>&1; ok $? "and a run starts from its file" || diag < big2.txt
sc energy_from big2.h5 big1.h5 -1 1e-9; ok $? "each chain starts with its source chain's final energy"
tap_bad "a molecule of 21 sites from the file of one of 20" \
    's/^geometry = A 0 0 0/geometry = A 0 0 -0.4;\n  A 0 0 0/' "big1.h5: molecule type plate has 20 sites, the run's has 21 ([molecules] geometry)" big2.ini
tap_bad "molecules compressed into overlap (density 8 -> 40)" \
    's/^density = .*/density = 40/; s/^start_file = .*/start_file = mol1.h5\nstart_chain = 1/' \
    "overlaps molecule" mol2.ini
tap_bad "another molecule geometry" 's/^geometry = .*/geometry = A 0 0 0; B 0 0 0.25 | Ar 0 0 0/' \
    "mol1.h5: site 0 of molecule type AB lies at (0, 0, -0.106667) in the molecule's frame, the run's at" mol2.ini
tap_bad "other molecule counts" 's/^counts = .*/counts = 40, 24/' \
    "mol1.h5: 48 molecules of type AB, the run has 40 ([molecules] counts)" mol2.ini
tap_bad "atoms from a file of molecules" 's/^start_file = .*/start_file = mol1.h5\nstart_chain = 0/' \
    "mol1.h5 holds molecules (/molecules), the run atoms"

# --- an open cluster of 55 argon atoms in a wall: coordinates about the origin, kept as they are
printf '%s\n' '[run]
output = cl1.h5
seed = 21
equilibration = 50
production = 50
sample_every = 10
[system]
units = real
boundary = none
lattice_constant = 0.52
[molecules]
types = argon
counts = 55
geometry = Ar 0 0 0
[potential]
rmin = 0.369
epsilon = 1.19
cutoff = 1.3
tail_correction = no
[wall]
radius = 2
strength = 1
[ensemble]
temperature = 30, 40
[rdf]
rmax = 1.3
bins = 130' > cl1.ini
run_np 2 -q cl1.ini > cl1.txt 2>&1; ok $? "an open cluster of 55 atoms, 2 chains, run from the fcc cube" || diag < cl1.txt
sed 's/^output = .*/output = cl2.h5/; s/^equilibration = .*/equilibration = 0/; s/^lattice_constant.*/start = h5\nstart_file = cl1.h5/' \
    cl1.ini > cl2.ini
printf '[moves]\nmax_displacement = 1e-12\nmax_rotation = 1e-12\n' >> cl2.ini
run_np 2 -q cl2.ini > cl2.txt 2>&1; ok $? "the cluster starts from cl1.h5" || diag < cl2.txt
sc frames_equal cl2.h5 cl1.h5 -1 1e-9 && sc energy_from cl2.h5 cl1.h5 -1 1e-9
ok $? "each chain holds its source's last frame, with its final energy"
tap_bad "a periodic run from an open cluster" \
    's/^boundary = none//; s/^\[wall\]//; s/^radius.*//; s/^strength.*//; s/^temperature = .*/temperature = 30, 40\ndensity = 20/; s/^cutoff = .*/cutoff = 0.6/; s/^rmax = .*/rmax = 0.6/' \
    "cl1.h5: chain 0's boundary is none (an open cluster), the run's is periodic ([system] boundary)" cl2.ini
exit 0
