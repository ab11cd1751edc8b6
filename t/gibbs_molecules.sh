#!/bin/sh
# The Gibbs ensemble of rigid molecules (issue 16): bad input refused before any output; an ideal
# gas of diatomics against its exact distributions (as for atoms: orientations carry no weight);
# one-site molecules, which take every molecular code path (molecule moves, transfers in a random
# orientation, centre scaling, the molecular virial, test molecules), against NIST's SAT-TMMC
# Lennard-Jones coexistence at T = 0.9; two-centre LJ diatomics (cut and shifted), for which no
# reference data are at hand, against the conditions of coexistence (equal pressures, equal chemical
# potentials of the two phases); 1 and 2 ranks bit-identical. t/gibbs_check.py reads the HDF5 files.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 11

# two-centre LJ: sites of sigma = epsilon = 1 at 0.5 sigma apart, cut at 2.5 and shifted (a continuous
# potential: its virial pressure is the one the volume exchanges equalise, with no tail or impulsive
# term to approximate, so the liquid's and the vapour's pressures must agree)
cat > base.ini <<'EOF'
[run]
output = base.h5
seed = 31
equilibration = 3000
production = 12000
sample_every = 20
[mixture]
species = A
sigma = 1
epsilon = 1
[molecules]
types = AA
counts = 200
geometry = A 0 0 0; A 0 0 0.5
[potential]
cutoff = 2.5
cutoff_scheme = shifted
[ensemble]
type = gibbs
temperature = 1.7
density = 0.12
replicas = 4
widom = 20
EOF

refused() { refused_edit base "$@"; } # refused NAME SED EXPECTED-TEXT
refused few_molecules 's/^counts = 200/counts = 50/' "few_molecules.ini:13: [molecules] counts: 50 molecules; expected at least 64"
refused open_cluster 's/^\[potential\]/[system]\nboundary = none\nlattice_constant = 1.6\n[potential]/; s/^density = 0.12//; s/^widom = 20//' \
    "open_cluster.ini:16: [ensemble] type = gibbs: the Gibbs ensemble exchanges volume and particles between two periodic boxes"
refused start_file 's/^\[potential\]/[system]\nstart = file\nstart_file = x.txt\n[potential]/' \
    "start_file.ini:16: [system] start = file: type = gibbs starts on a lattice or at random (melt) in each box"

# 1. the ideal gas of diatomics (epsilon = 0): 6 chains of 100 molecules
sed -e 's/^epsilon = 1/epsilon = 0/' -e 's/^counts = 200/counts = 100/' -e 's/^density = 0.12/density = 0.1/' \
    -e 's/^cutoff = 2.5/cutoff = 3.0/' -e 's/^replicas = 4/replicas = 6/' -e 's/^widom = 20//' \
    -e 's/^equilibration = 3000/equilibration = 200/' -e 's/^production = 12000/production = 3000/' \
    -e 's/^sample_every = 20/sample_every = 2/' -e 's/^output = base.h5/output = ideal.h5/' base.ini > ideal.ini
printf '[moves]\ndisplacement_fraction = 0.5\ntransfer_fraction = 0.4\nvolume_fraction = 0.1\n' >> ideal.ini
run_np 2 -q ideal.ini > ideal.txt 2>&1
ok $? "ideal diatomics: runs" || diag < ideal.txt
gcheck ideal ideal.h5 3.0
ok $? "ideal diatomics: box densities, V0 uniform, n0 binomial, transfer acceptance exact"

# 2. one-site molecules: LJ at rc = 3 with tails, 300 molecules, T = 0.9, against SAT-TMMC
cat > one_site.ini <<'EOF'
[run]
output = one_site.h5
seed = 21
equilibration = 3000
production = 12000
sample_every = 20
[mixture]
species = Ar
sigma = 1
epsilon = 1
[molecules]
types = Ar
counts = 300
geometry = Ar 0 0 0
[potential]
cutoff = 3.0
[ensemble]
type = gibbs
temperature = 0.9
density = 0.2
start_densities = 0.7, 0.02
replicas = 4
widom = 20
EOF
run_np 2 -q one_site.ini > one_site.txt 2>&1
ok $? "one-site molecules, T = 0.9: runs" || diag < one_site.txt
gcheck nist one_site.h5 "$T_SRCDIR/refdata/nist_sat_tmmc_rc3_lrc.csv"
ok $? "one-site molecules: densities, P_sat, U/N and beta mu of both phases agree with NIST SAT-TMMC"

# 3. two-centre LJ at T = 1.7: separated, rotations accepted, coexistence conditions met
run_np 2 -q base.ini > base.txt 2>&1
ok $? "two-centre LJ, 200 molecules, T = 1.7 x 4 replicas: runs" || diag < base.txt
"$PYTHON3" - > base-check.txt 2>&1 <<'PY'
import h5py, sys
c = h5py.File("base.h5", "r")["chains"]
sep, rot = c["separation"][:], c["rotation_acceptance"][:]
print("separation per chain", sep, "rotation acceptance", rot)
sys.exit(not ((sep > 3).all() and ((rot > 0.05) & (rot < 0.95)).all()))
PY
ok $? "two-centre LJ: every chain separated, rotations accepted" || diag < base-check.txt
gcheck coexistence base.h5
ok $? "two-centre LJ: the liquid's and the vapour's pressures and chemical potentials agree"

# 4. the same per-chain results on 1 and on 2 ranks
sed -e 's/^production = 12000/production = 200/' -e 's/^equilibration = 3000/equilibration = 100/' \
    -e 's/^counts = 200/counts = 80/' -e 's/^density = 0.12/density = 0.08/' base.ini > ranks.ini
run_np 1 -q -o ranks1.h5 ranks.ini > ranks1.txt 2>&1 && run_np 2 -q -o ranks2.h5 ranks.ini > ranks2.txt 2>&1 &&
    h5check same_results ranks1.h5 ranks2.h5
ok $? "1 and 2 ranks: bit-identical chains and results"
exit 0
