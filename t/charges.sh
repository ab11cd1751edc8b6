#!/bin/bash
# Charged sites through the whole engine (t/ewald.c checks the Ewald sum itself): NIST's SPC/E
# water reference configurations started from a file give FEASST's 11-digit totals; SPC/E water
# with replica exchange gives the same bits on 1 and 2 ranks and after a kill and a restart; an
# NPT run's volume moves keep the running energy on the recomputed one (the drift check of every
# sample); Widom insertion runs alike on any rank count; the Gibbs ensemble's boxes each with
# their Ewald sum, alike on 1 and 2 ranks and after a kill; and what charges cannot take yet is
# refused by name.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 26

# nist CONFIG MOLECULES TOTAL_K: configuration CONFIG (20 A box), NIST's Ewald parameters (alpha
# 5.6 / L, kmax 5, n^2 <= 26, 10 A cutoffs, tails on), one sweep of moves too small to matter
# (1e-12 nm, 1e-12 rad): the first sample's energy is the configuration's
nist() {
    nist_ini "$1" "$2"
    run_np 1 -q nist$1.ini > nist$1.txt 2>&1 && pycheck spce_check.py total nist$1.h5 $(($2 * 3)) "$3"
    ok $? "NIST SPC/E configuration $1 ($2 molecules): the engine's energy is FEASST's total $3 K to 1e-6" ||
        diag < nist$1.txt
}
# nist_ini CONFIG MOLECULES: nist() 's start file and config
nist_ini() {
    "$PYTHON3" "$T_SRCDIR/spce_check.py" start "$T_SRCDIR/refdata/ewald/spce_sample_config_periodic$1.txt" nist$1.start
    { printf '[run]\noutput = nist%s.h5\nseed = 1\nequilibration = 0\nproduction = 1\nsample_every = 1\nbackend = cpu\n' "$1"
      spce_model
      printf 'counts = %s\n[system]\nstart = file\nstart_file = nist%s.start\n' "$2" "$1"
      printf '[potential]\ncutoff = 1.0\ncoulomb = ewald\newald_alpha = 2.8\newald_kmax = 5\newald_ksq_max = 26\n'
      printf '[moves]\nmax_displacement = 1e-12\nmax_rotation = 1e-12\n'
      printf '[ensemble]\ntemperature = 298\ndensity = %s\n' "$(awk "BEGIN {print $2 / 8}")"; } > nist$1.ini
}
# energy CONFIG MOLECULES: mcens --energy on nist() 's config: each term against NIST's components,
# and the total against the engine's first sample of the same configuration
energy() {
    run_np 1 --energy -o energy$1.h5 nist$1.ini > energy$1.txt 2>&1 &&
        pycheck spce_check.py energy energy$1.h5 "$T_SRCDIR/refdata/ewald/spce_reference_energies_nist.tsv" "$1"
    ok $? "--energy of NIST SPC/E configuration $1: every term NIST's to 1e-5, the total their sum" ||
        diag < energy$1.txt
    pycheck spce_check.py same_total energy$1.h5 nist$1.h5 $(($2 * 3))
    ok $? "--energy of NIST SPC/E configuration $1: its total is the engine's energy of it to 1e-10"
}
# killed_and_restarted NAME FIRST COUNT WHAT: NAME.ini killed after a sweep drawn from FIRST ..
# FIRST + COUNT - 1 on 2 ranks, restarted on 1: bit-identical to NAME1.h5, its uninterrupted run
killed_and_restarted() {
    at=$(( $2 + $(od -An -N2 -tu2 /dev/urandom) % $3 ))
    MCENS_TEST_KILL_AT=1:$at run_np 2 -q -o "$1_killed.h5" "$1.ini" > "$1_killed.txt" 2>&1
    killed=$?
    run_np 1 -q --restart -o "$1_killed.h5" "$1.ini" > "$1_restarted.txt" 2>&1 && [ $killed -ne 0 ] &&
        h5check same_results "$1"1.h5 "$1_killed.h5"
    ok $? "$4: killed after sweep $at on 2 ranks, restarted on 1: bit-identical to the uninterrupted run" ||
        cat "$1_killed.txt" "$1_restarted.txt" | tail -20 | diag
}
nist 1 100 -488603.178395
nist 2 200 -1065894.9284973
energy 1 100
energy 2 200

# dsf_energy CONFIG MOLECULES: mcens --energy on nist() 's config with coulomb = dsf at the default
# damping: its Coulomb terms against spce_check.py's own sum from NIST's sites, and their total
# within 1% of NIST's Ewald sum
dsf_energy() {
    [ -e nist$1.ini ] || nist_ini "$1" "$2"
    sed -e 's/^coulomb = ewald$/coulomb = dsf/' -e '/^ewald_/d' nist$1.ini > dsf$1.ini
    run_np 1 --energy -o dsf_energy$1.h5 dsf$1.ini > dsf_energy$1.txt 2>&1 &&
        pycheck spce_check.py dsf dsf_energy$1.h5 "$T_SRCDIR/refdata/ewald/spce_sample_config_periodic$1.txt" \
            "$T_SRCDIR/refdata/ewald/spce_reference_energies_nist.tsv" "$1"
    ok $? "coulomb = dsf on NIST SPC/E configuration $1 ($2 molecules): each term this script's to 1e-8, the total within 1% of the Ewald sum" ||
        diag < dsf_energy$1.txt
}
dsf_energy 1 100
dsf_energy 2 200
dsf_energy 3 300

# liquid SPC/E: 64 molecules, two temperatures, two replicas each, exchanges every 4 sweeps;
# alpha and kmax from the default precision
{ printf '[run]\noutput = water.h5\nseed = 5\nequilibration = 40\nproduction = 80\nsample_every = 4\ncheckpoint_every = 1e-6\nbackend = cpu\n'
  spce_model
  printf 'counts = 64\n[potential]\ncutoff = 0.6\ncoulomb = ewald\n'
  printf '[ensemble]\ntemperature = 298, 330\ndensity = 33.4\nreplicas = 2\nexchange_every = 4\n'; } > water.ini
run_np 1 -q -o water1.h5 water.ini > water1.txt 2>&1 && run_np 2 -q -o water2.h5 water.ini > water2.txt 2>&1 &&
    h5check same_results water1.h5 water2.h5
ok $? "SPC/E water with replica exchange: /chains and /results bit-identical on 1 and 2 ranks" ||
    cat water1.txt water2.txt | diag
"$PYTHON3" -c "
import h5py, math, sys
a = h5py.File('water1.h5', 'r')['ewald'].attrs
print('# alpha %.6g, kmax %d, ksq_max %d, %d wave vectors' % (a['alpha'], a['kmax'], a['ksq_max'], a['wave_vectors']))
sys.exit(0 if abs(a['alpha'] - math.sqrt(-math.log(1e-5)) / 0.6) < 1e-12 and a['ksq_max'] == a['kmax'] ** 2 and a['wave_vectors'] > 0 else 1)"
ok $? "/ewald records the alpha and kmax the default precision chose: alpha = sqrt(-ln 1e-5) / 0.6 nm, ksq_max = kmax^2"
h5check value water1.h5 results/energy/mean > energy.txt
awk '{u = $NF * 3} END {exit !(u > -50 && u < -30)}' energy.txt
ok $? "its energy is that of a hydrogen-bonded liquid: -30 to -50 kJ/mol per molecule" || diag < energy.txt

killed_and_restarted water 61 58 "SPC/E water"

# NPT: volume moves rescale the centres and recompute the Fourier part; each sample checks the
# running energy against a full recomputation (a drift over 1e-9 fails the run)
sed -e 's/^density = 33.4/pressure = 1/' -e 's/^exchange_every = 4/exchange_every = 0/' \
    -e 's/^\[ensemble\]/[ensemble]\ntype = npt\ndensity = 33.4/' water.ini > npt.ini
run_np 2 -q -o npt.h5 npt.ini > npt.txt 2>&1 && pycheck spce_check.py volume npt.h5
ok $? "SPC/E water in NPT: the volume moves, and the running energy stays on the recomputed one" || diag < npt.txt

# Widom insertion of a charged molecule (t/ewald checks each test molecule's energy against a full
# recomputation): the same on 1 and 2 ranks; in water most test molecules overlap, so mu_ex may be
# +inf (status 4, the warning) in a run this short
sed -e 's/^replicas = 2/replicas = 2\nwidom = 20/' -e 's/^output = water.h5/output = widom.h5/' water.ini > widom.ini
run_np 1 -q -o widom1.h5 widom.ini > widom1.txt 2>&1; rc1=$?
run_np 2 -q -o widom2.h5 widom.ini > widom2.txt 2>&1; rc2=$?
{ [ $rc1 -eq 0 ] || [ $rc1 -eq 4 ]; } && [ $rc2 -eq $rc1 ] && h5check same_results widom1.h5 widom2.h5 &&
    "$PYTHON3" -c "import h5py, sys; sys.exit(0 if 'mu_excess' in h5py.File('widom1.h5', 'r')['results'] else 1)"
ok $? "Widom insertion of SPC/E water (status $rc1): /results/mu_excess written, the same on 1 and 2 ranks" ||
    cat widom1.txt widom2.txt | diag

# the damped shifted force with replica exchange and Widom insertion: every sample's drift check
# holds the running energy on the recomputed one; the test molecules take their own constant
# terms; the same on 1 and 2 ranks; a hydrogen-bonded liquid's energy
sed -e 's/^coulomb = ewald/coulomb = dsf/' -e 's/^output = widom.h5/output = dsf.h5/' widom.ini > dsf.ini
run_np 1 -q -o dsf1.h5 dsf.ini > dsf1.txt 2>&1; rc1=$?
run_np 2 -q -o dsf2.h5 dsf.ini > dsf2.txt 2>&1; rc2=$?
{ [ $rc1 -eq 0 ] || [ $rc1 -eq 4 ]; } && [ $rc2 -eq $rc1 ] && h5check same_results dsf1.h5 dsf2.h5 &&
    h5check value dsf1.h5 results/energy/mean > dsf_energy.txt &&
    awk '{u = $NF * 3} END {exit !(u > -50 && u < -30)}' dsf_energy.txt &&
    "$PYTHON3" -c "import h5py, sys; f = h5py.File('dsf1.h5', 'r'); sys.exit(0 if 'dsf' in f and 'ewald' not in f and 'mu_excess' in f['results'] else 1)"
ok $? "coulomb = dsf, SPC/E water with replica exchange and Widom insertion (status $rc1): 1 and 2 ranks bit-identical, -30 to -50 kJ/mol per molecule, /dsf written" ||
    cat dsf1.txt dsf2.txt dsf_energy.txt | diag

# the Gibbs ensemble: each box keeps its own structure factors through displacements, rotations,
# transfers and volume exchanges (t/gibbs_unit.c checks them against recomputations; here every
# sample's check of the running energies): SPC/E water at 500 K, the same on 1 and 2 ranks, and
# after a kill and a restart on 1
{ printf '[run]\noutput = gibbs.h5\nseed = 7\nequilibration = 40\nproduction = 80\nsample_every = 4\ncheckpoint_every = 1e-6\nbackend = cpu\n'
  spce_model
  printf 'counts = 64\n[potential]\ncutoff = 0.6\ncoulomb = ewald\n'
  printf '[ensemble]\ntype = gibbs\ntemperature = 500\ndensity = 10\nreplicas = 2\nwidom = 5\n'; } > gibbs.ini
# (widom: test molecules into each box, whose Fourier part is taken from that box's S(k); the
# liquid's may all overlap in a run this short, +inf with status 4)
run_np 1 -q -o gibbs1.h5 gibbs.ini > gibbs1.txt 2>&1; rc1=$?
run_np 2 -q -o gibbs2.h5 gibbs.ini > gibbs2.txt 2>&1; rc2=$?
{ [ $rc1 -eq 0 ] || [ $rc1 -eq 4 ]; } && [ $rc2 -eq $rc1 ] && h5check same_results gibbs1.h5 gibbs2.h5 && "$PYTHON3" -c "
import h5py, math, sys
f = h5py.File('gibbs1.h5', 'r')
c = f['chains']
moves = c['transfer_acceptance'][:].min(), c['volume_acceptance'][:].min()
mu = f['results/chemical_potential/mean'][0]
print('# acceptance of transfers %.3g, of volume exchanges %.3g (the smallest over the chains); mu %s kJ/mol' % (moves + (mu,)))
sys.exit(0 if min(moves) > 0 and math.isfinite(mu[1]) else 1)"
ok $? "SPC/E water in the Gibbs ensemble (status $rc1): transfers, volume exchanges and test molecules, 1 and 2 ranks bit-identical" ||
    cat gibbs1.txt gibbs2.txt | diag
killed_and_restarted gibbs 41 78 "SPC/E water in the Gibbs ensemble"
# and with the damped shifted force: a transfer carries the molecule's own constant terms from box
# to box (every sample's drift check, and its Widom test molecules')
sed -e 's/^coulomb = ewald/coulomb = dsf/' gibbs.ini > dsf_gibbs.ini
run_np 1 -q -o dsf_gibbs.h5 dsf_gibbs.ini > dsf_gibbs.txt 2>&1; rc=$?
{ [ $rc -eq 0 ] || [ $rc -eq 4 ]; } && "$PYTHON3" -c "
import h5py, sys
c = h5py.File('dsf_gibbs.h5', 'r')['chains']
print('# transfer acceptance %s' % c['transfer_acceptance'][...].ravel())
sys.exit(0 if (c['transfer_acceptance'][...] > 0).all() else 1)"
ok $? "coulomb = dsf, SPC/E water in the Gibbs ensemble (status $rc): transfers accepted, the running energies on the recomputed ones" ||
    diag < dsf_gibbs.txt

# refused, by name, before any output
refused_edit water no_coulomb 's/^coulomb = ewald/coulomb = none/' "[mixture] charge: charged sites need [potential] coulomb = ewald"
refused_edit water not_neutral 's/^charge = -0.8476, 0.4238/charge = -0.8, 0.4238/' "net charge is"
refused_edit water no_charges 's/^charge = .*/charge = 0, 0/' "[potential] coulomb = ewald: every charge is 0"
refused_edit water dsf_keys 's/^coulomb = ewald/coulomb = dsf\newald_kmax = 5/' "[potential] ewald_kmax: expected [potential] coulomb = ewald"
refused_edit water kmax 's/^coulomb = ewald/coulomb = ewald\newald_precision = 1e-12\newald_alpha = 40/' "ewald_precision = 1e-12"
refused_edit gibbs gpu 's/^backend = cpu/backend = gpu/' "[run] backend = gpu: the GPU backend has no charged sites of molecules in the Gibbs or grand-canonical ensemble yet"
# ions as one-site molecules: a neutral system, but a Gibbs transfer would charge both boxes
{ printf '[run]\noutput = ions.h5\nseed = 7\nequilibration = 4\nproduction = 8\nsample_every = 4\nbackend = cpu\n[system]\nunits = real\n'
  printf '[mixture]\nspecies = Na, Cl\nsigma = 0.25, 0.44\nepsilon = 0.5, 0.4\nmass = 23, 35.45\ncharge = 1, -1\n'
  printf '[molecules]\ntypes = Na, Cl\ncounts = 32, 32\ngeometry = Na 0 0 0 | Cl 0 0 0\n'
  printf '[potential]\ncutoff = 0.6\ncoulomb = ewald\n[ensemble]\ntype = gibbs\ntemperature = 2000\ndensity = 10\n'; } > ions.ini
run_np 1 -q ions.ini > ions.txt 2>&1; rc=$?
[ $rc -eq 1 ] && grep -qF "molecule type 'Na' has net charge 1; the Gibbs ensemble moves whole molecules, so each must be neutral" ions.txt &&
    [ ! -e ions.h5 ]
ok $? "refused: charged molecule types in the Gibbs ensemble" || diag < ions.txt
exit 0
