#!/bin/sh
# The Gibbs ensemble (issue 16, [ensemble] type = gibbs): bad input refused before any output;
# the ideal gas against its exact distributions; Lennard-Jones coexistence (rc = 3 sigma with tail
# corrections) against NIST's SAT-TMMC data at T = 0.9 and 1.0; a mixture of identical species
# against the pure fluid; a supercritical run flagged, not averaged; 1 and 2 ranks bit-identical.
# t/gibbs_check.py reads the HDF5 files; its tolerances are quantiles of the stated error bars.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 18

cat > base.ini <<'EOF'
[run]
output = base.h5
seed = 11
equilibration = 4000
production = 16000
sample_every = 20
[system]
n = 500
[potential]
cutoff = 3.0
[ensemble]
type = gibbs
temperature = 0.9, 1.0
density = 0.2
replicas = 4
widom = 20
EOF

# 1. bad input: status 1, the message names file, line and key, and nothing is written
refused() { refused_edit base "$@"; } # refused NAME SED EXPECTED-TEXT
refused fractions 's/^widom = 20/widom = 20\n[moves]\ntransfer_fraction = 0.2\nvolume_fraction = 0.01/' \
    "fractions.ini:19: [moves] displacement_fraction + transfer_fraction + volume_fraction = 0.85 + 0.2 + 0.01"
refused few_particles 's/^n = 500/n = 40/' "few_particles.ini:8: [system] n: 40 particles; expected at least 64"
refused two_densities 's/^density = 0.2/density = 0.2, 0.3/' \
    "two_densities.ini:14: [ensemble] density: expected one total density"
refused no_transfers 's/^widom = 20/widom = 20\n[moves]\ndisplacement_fraction = 0.99\ntransfer_fraction = 0\nvolume_fraction = 0.01/' \
    "no_transfers.ini:19: [moves] transfer_fraction = 0: expected > 0 with type = gibbs"
refused fractions_in_nvt 's/^type = gibbs/type = nvt/; s/^widom = 20/widom = 20\n[moves]\nvolume_fraction = 0.01/' \
    "fractions_in_nvt.ini:18: [moves] volume_fraction: expected [ensemble] type = gibbs"
refused start_not_between 's/^density = 0.2/density = 0.2\nstart_densities = 0.7, 0.3/' \
    "start_not_between.ini:15: [ensemble] start_densities: expected two densities (box 0, box 1) with the total density 0.2 between them"
refused start_small_box 's/^density = 0.2/density = 0.2\nstart_densities = 0.9, 0.19/' \
    "start_small_box.ini:15: [ensemble] start_densities: box 0"
refused single 's/^seed = 11/seed = 11\nprecision = single/' "single.ini:4: [run] precision = single: type = gibbs runs in double"

# start_densities: box 0 starts as the liquid's guess, box 1 as the vapour's, and they fill V
sed -e 's/^density = 0.2/density = 0.2\nstart_densities = 0.7, 0.02/' -e 's/^equilibration = 4000/equilibration = 0/' \
    -e 's/^production = 16000/production = 20/' -e 's/^output = base.h5/output = start.h5/' base.ini > start.ini
run_np 1 -q start.ini > start.txt 2>&1 && "$PYTHON3" - > start-check.txt 2>&1 <<'PY'
import h5py, sys
c = h5py.File("start.h5", "r")["chains"]
# n0 / 0.7 + (500 - n0) / 0.02 = 2500: n0 = 466.2, rounded 466; 20 sweeps move the boxes little
n0, v0, v1 = c["box0_particles"][0, 0], c["box0_volume"][0, 0], c["box1_volume"][0, 0]
print("after 20 sweeps: box 0 holds", n0, "in", v0, "; box 1", v1, "; total", v0 + v1)
sys.exit(not (abs(n0 - 466) <= 10 and abs(v0 / (466 / 0.7) - 1) < 0.1 and abs(v0 + v1 - 2500) < 1e-9 * 2500))
PY
ok $? "start_densities = 0.7, 0.02: box 0 starts with 466 of 500 at 0.7, the boxes fill the total volume" || diag < start-check.txt

# 2. the ideal gas: 8 independent chains of 100 particles
cat > ideal.ini <<'EOF'
[run]
output = ideal.h5
seed = 5
equilibration = 200
production = 4000
sample_every = 2
[system]
n = 100
[potential]
epsilon = 0
cutoff = 3.0
[ensemble]
type = gibbs
temperature = 1.0
density = 0.1
replicas = 8
[moves]
displacement_fraction = 0.5
transfer_fraction = 0.4
volume_fraction = 0.1
EOF
run_np 2 -q ideal.ini > ideal.txt 2>&1
ok $? "ideal gas: runs" || diag < ideal.txt
gcheck ideal ideal.h5 3.0
ok $? "ideal gas: box densities N/V, V0 uniform between the smallest boxes, n0 binomial, transfer acceptance exact"

# 3. LJ against SAT-TMMC
run_np 2 -q base.ini > base.txt 2>&1
ok $? "LJ, 500 particles, T = 0.9 and 1.0 x 4 replicas: runs" || diag < base.txt
gcheck separated base.h5
ok $? "LJ: every chain separated into liquid and vapour"
gcheck nist base.h5 "$T_SRCDIR/refdata/nist_sat_tmmc_rc3_lrc.csv"
ok $? "LJ: liquid and vapour densities, P_sat, U/N and beta mu of both phases agree with NIST SAT-TMMC"

# 4. the same fluid as a mixture of two identical species (half each): the same coexistence
sed -e 's/^output = base.h5/output = twin.h5/' -e 's/^seed = 11/seed = 12/' -e 's/^temperature = 0.9, 1.0/temperature = 0.9/' \
    -e 's/^n = 500//' base.ini > twin.ini
printf '[mixture]\nspecies = A, B\ncounts = 250, 250\nsigma = 1, 1\nepsilon = 1, 1\n' >> twin.ini
run_np 2 -q twin.ini > twin.txt 2>&1
ok $? "identical species A, B: runs" || diag < twin.txt
gcheck same_phases base.h5 twin.h5
ok $? "identical species A, B reproduce the pure fluid's coexistence at T = 0.9"

# 5. above the critical temperature (about 1.31) the boxes hold one phase: flagged, not averaged
sed -e 's/^output = base.h5/output = hot.h5/' -e 's/^temperature = 0.9, 1.0/temperature = 1.6/' -e 's/^replicas = 4/replicas = 2/' \
    -e 's/^density = 0.2/density = 0.3/' -e 's/^production = 16000/production = 3000/' -e 's/^equilibration = 4000/equilibration = 1000/' \
    base.ini > hot.ini
run_np 2 hot.ini > hot.txt 2>&1
gcheck not_separated hot.h5 && grep -q " 0/2 " hot.txt
ok $? "T = 1.6: no chain separated, liquid and vapour results NaN, the summary says 0/2" || diag < hot.txt

# 6. the same per-chain results on 1 and on 2 ranks
sed -e 's/^production = 16000/production = 400/' -e 's/^equilibration = 4000/equilibration = 200/' -e 's/^n = 500/n = 200/' \
    -e 's/^density = 0.2/density = 0.1/' base.ini > ranks.ini
run_np 1 -q -o ranks1.h5 ranks.ini > ranks1.txt 2>&1 && run_np 2 -q -o ranks2.h5 ranks.ini > ranks2.txt 2>&1 &&
    h5check same_results ranks1.h5 ranks2.h5
ok $? "1 and 2 ranks: bit-identical chains and results"
exit 0
