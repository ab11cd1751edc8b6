#!/bin/sh
# The whole program on the GPU backend: rank invariance, the equation of state, single against
# double precision, replica exchange between ranks against the CPU, charged molecules (SPC/E water
# with the Ewald sum) against the CPU and through a kill and a restart, and compute-sanitizer
# (memcheck, racecheck, initcheck) on every kernel shape (molecules under npt too, charged ones too).
# Skips where there is no GPU.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || tap_skip_all "no GPU"
tap_plan 26
sed 's/^seed = 11/seed = 11\nbackend = gpu/' "$T_SRCDIR/small.ini" > small.ini
for np in 1 2; do
    run_np $np -q -o np$np.h5 small.ini > out$np.txt 2>&1; ok $? "backend = gpu under mpirun -np $np" || diag < out$np.txt
done
h5check same np1.h5 np2.h5 chains/energy chains/pressure particles
ok $? "GPU chains are bit-identical on 1 and 2 ranks"
# a few medium chains batched side by side (6 chains of 500, fewer than the SMs): the batches'
# partial sums are shaped by the run's chains and GPU, so one rank with all and two with three agree
sed -e 's/^n = 64/n = 500/' -e 's/^equilibration = 100/equilibration = 20/' -e 's/^production = 200/production = 40/' \
    small.ini > few.ini
for np in 1 2; do run_np $np -q -o few$np.h5 few.ini > out$np.txt 2>&1 || diag < out$np.txt; done
h5check same few1.h5 few2.h5 chains/energy chains/pressure particles
ok $? "a few chains batched side by side are bit-identical on 1 and 2 ranks"
# on the chain kernel's cell lists, two densities (alone, their boxes would take 6 and 5 cells per
# edge) on one rank or one each: the grid comes from every state point's box, not the rank's chains
# (gpu_batch_trials = 1024 keeps the two chains of 1000 off the few-chains path)
sed -e 's/^n = 64/n = 1000/' -e 's/^backend = gpu/backend = gpu\ngpu_batch_trials = 1024/' -e 's/^density = .*/density = 0.5, 0.6/' -e 's/^replicas = 2/replicas = 1/' \
    -e 's/^equilibration = 100/equilibration = 20/' -e 's/^production = 200/production = 40/' small.ini > ladder.ini
for np in 1 2; do run_np $np -q -o ladder$np.h5 ladder.ini > out$np.txt 2>&1 || diag < out$np.txt; done
h5check same ladder1.h5 ladder2.h5 chains/energy chains/pressure particles
ok $? "chains on the kernel's cell lists are bit-identical on 1 and 2 ranks (two box sizes)"
# 141 chains of 1024 (more than an H100's or H200's 132 SMs in all, fewer on each of 2 ranks): the
# batched path or the chain kernel is the run's choice, not the rank's, so the files are the same
sed -e 's/^n = 64/n = 1024/' -e 's/^replicas = 2/replicas = 47/' -e 's/^equilibration = 100/equilibration = 2/' \
    -e 's/^production = 200/production = 4/' -e 's/^sample_every = 10/sample_every = 2/' small.ini > many.ini
for np in 1 2; do run_np $np -q -o many$np.h5 many.ini > out$np.txt 2>&1 || diag < out$np.txt; done
h5check same many1.h5 many2.h5 chains/energy chains/pressure particles
ok $? "141 chains of 1024 are bit-identical on 1 and 2 ranks"
# large chains with a cutoff (4096 at two densities, rc 2: 9 and 8 cells per edge) on a temperature
# ladder with exchange: each chain on its own grid whatever chains share its rank, the grid traded
# with its configuration within a rank and rebuilt after a trade between ranks
sed -e 's/^n = 64/n = 4096/' -e 's/^temperature = 1.5/temperature = 1.5, 1.51\nexchange_every = 2/' \
    -e 's/^density = .*/density = 0.6, 0.8/' -e 's/^replicas = 2/replicas = 1/' -e 's/^equilibration = 100/equilibration = 4/' \
    -e 's/^production = 200/production = 8/' -e 's/^sample_every = 10/sample_every = 2/' small.ini > large.ini
for np in 1 2 4; do run_np $np -q -o large$np.h5 large.ini > out$np.txt 2>&1 || diag < out$np.txt; done
for np in 2 4; do
    h5check same large1.h5 large$np.h5 chains/energy chains/pressure particles
    ok $? "large chains on cell grids, with exchange, are bit-identical on 1 and $np ranks"
done

# molecules on the batched path (two chains of 150 hexagons, fewer than the SMs): kernel A's ranges
# of sites come from the run's chains, so one rank with both chains and two with one each agree
cat > hexagons.ini <<EOF
[run]
seed = 12
backend = gpu
equilibration = 10
production = 20
sample_every = 5
[molecules]
types = hex
counts = 150
geometry = C 0.37 0 0; C 0.185 0.3204 0; C -0.185 0.3204 0; C -0.37 0 0; C -0.185 -0.3204 0; C 0.185 -0.3204 0
[mixture]
species = C
sigma = 1
epsilon = 1
[potential]
cutoff = none
[ensemble]
temperature = 2.5
density = 0.15
replicas = 2
EOF
for np in 1 2; do run_np $np -q -o hex$np.h5 hexagons.ini > out$np.txt 2>&1 || diag < out$np.txt; done
h5check same hex1.h5 hex2.h5 chains/energy chains/pressure particles
ok $? "molecules on the batched path are bit-identical on 1 and 2 ranks"

# charged molecules (cuda/cu_ewald.cuh): t/charges.sh's SPC/E water on a temperature ladder with
# exchange, on 1 and 2 ranks, killed on 2 and restarted on 1, and against the CPU backend (the same
# decisions: equal acceptance and walkers, energies and pressures to rounding)
{ printf '[run]\nseed = 5\nbackend = gpu\nequilibration = 40\nproduction = 80\nsample_every = 4\ncheckpoint_every = 1e-6\n'
  spce_model
  printf 'counts = 64\n[potential]\ncutoff = 0.6\ncoulomb = ewald\n[ensemble]\ntemperature = 298, 330\ndensity = 33.4\n'
  printf 'replicas = 2\nexchange_every = 4\n'; } > water.ini
sed 's/^backend = gpu/backend = cpu/' water.ini > water_cpu.ini
# (3 ranks: chains 2, 1 and 1 a rank, so that one rank's trade is not its rank-mate's: a chain's
# structure factors recomputed only where its own sites changed, cu_ewald.cuh)
run_np 1 -q -o water1.h5 water.ini > water1.txt 2>&1 && run_np 2 -q -o water2.h5 water.ini > water2.txt 2>&1 &&
    run_np 3 -q -o water3.h5 water.ini > water3.txt 2>&1 &&
    h5check same_results water1.h5 water2.h5 && h5check same_results water1.h5 water3.h5
ok $? "SPC/E water on the GPU: /chains and /results bit-identical on 1, 2 and 3 ranks" || cat water1.txt water2.txt water3.txt | diag
at=$(( 41 + $(od -An -N2 -tu2 /dev/urandom) % 78 ))
MCENS_TEST_KILL_AT=1:$at run_np 2 -q -o water_killed.h5 water.ini > water_killed.txt 2>&1; killed=$?
run_np 1 -q --restart -o water_killed.h5 water.ini > water_restarted.txt 2>&1 && [ $killed -ne 0 ] &&
    h5check same_results water1.h5 water_killed.h5
ok $? "SPC/E water on the GPU, killed after sweep $at on 2 ranks and restarted on 1: bit-identical" ||
    cat water_killed.txt water_restarted.txt | tail -20 | diag
run_np 2 -q -o water_cpu.h5 water_cpu.ini > water_cpu.txt 2>&1 && "$PYTHON3" -c "
import h5py, numpy as np, sys
g, c = h5py.File('water1.h5', 'r'), h5py.File('water_cpu.h5', 'r')
bad = [n for n in ('chains/acceptance', 'chains/rotation_acceptance', 'chains/walker')
       if n in c and not np.array_equal(g[n][()], c[n][()])]
worst = 0.0
for n in ('results/energy/mean', 'results/pressure/mean', 'chains/energy'):
    a, b = np.asarray(g[n][()], float), np.asarray(c[n][()], float)
    worst = max(worst, float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-300))))
print('# GPU against CPU: %s equal; energies and pressures within %.2g relative' % ('acceptance and walkers' if not bad else 'NOT ' + ', '.join(bad), worst))
sys.exit(0 if not bad and worst < 1e-9 else 1)"
ok $? "SPC/E water: the GPU's decisions are the CPU's, its energies and pressures the CPU's to 1e-9" || diag < water_cpu.txt

sed 's/^seed = 3/seed = 3\nbackend = gpu/; s/^production = 6000/production = 24000/' "$T_SRCDIR/eos.ini" > eos.ini
run_np 1 -q eos.ini > out.txt 2>&1 || diag < out.txt
h5check eos eos.h5 "$T_SRCDIR/refdata/eos_supercritical.csv"
ok $? "GPU, double: U and P agree with the equation of state"
sed 's/^seed = 3/seed = 4\nprecision = single/; s/^output = eos.h5/output = single.h5/' eos.ini > single.ini
run_np 1 -q single.ini > out.txt 2>&1 || diag < out.txt
h5check eos single.h5 "$T_SRCDIR/refdata/eos_supercritical.csv"
ok $? "GPU, single: U and P agree with the equation of state"
h5check agree eos.h5 single.h5; ok $? "single and double precision agree within their statistical errors"
# molecules: a rigid diatomic fluid (t/npt_diatomic.ini) in both precisions on the GPU
sed 's/^seed = 19/seed = 19\nbackend = gpu/; s/^output = nvt.h5/output = mol_double.h5/' "$T_SRCDIR/npt_diatomic.ini" > mol_double.ini
sed 's/^seed = 19/seed = 20\nprecision = single/; s/^output = mol_double.h5/output = mol_single.h5/' mol_double.ini > mol_single.ini
run_np 1 -q mol_double.ini > out.txt 2>&1 || diag < out.txt
run_np 1 -q mol_single.ini > out.txt 2>&1; ok $? "GPU, single: molecules run with the drift check at 1e-9" || diag < out.txt
h5check agree mol_double.h5 mol_single.h5; ok $? "molecules: single and double precision agree within their statistical errors"
# an open cluster (the argon cluster in its wall, 40 K and 100 K) in both precisions: U and C_V
sed 's/^equilibration = .*/equilibration = 200/; s/^production = .*/production = 1000/; s/^sample_every = .*/sample_every = 10/; s/^temperature = 20:120:11/temperature = 40, 100\nreplicas = 2/; s/^seed = \(.*\)/seed = \1\nbackend = gpu/' \
    "$T_SRCDIR/../examples/argon_cluster.ini" > cl_double.ini
# its own seed: with the same one a run at high T can make every decision as the double one does,
# and two copies of one trajectory would agree whatever the precision did
sed 's/^backend = gpu/backend = gpu\nprecision = single/; s/^seed = 21/seed = 22/' cl_double.ini > cl_single.ini
run_np 1 -q -o cl_double.h5 cl_double.ini > out.txt 2>&1 || diag < out.txt
run_np 1 -q -o cl_single.h5 cl_single.ini > out.txt 2>&1; ok $? "GPU, single: an open cluster runs" || diag < out.txt
h5check agree cl_double.h5 cl_single.h5 energy,heat_capacity; ok $? "open cluster: single and double agree in U and C_V within errors"

# replica exchange between ranks with one large chain each (the cell-list kernels): the GPU swaps
# as the CPU does, decision for decision
printf '[run]\nseed = 44\nequilibration = 20\nproduction = 40\nsample_every = 4\n[system]\nn = 4096\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.0, 1.005\ndensity = 0.8\nexchange_every = 2\n' > pt.ini
sed 's/^seed = 44/seed = 44\nbackend = gpu/' pt.ini > pt_gpu.ini
run_np 2 -q -o pt_cpu.h5 pt.ini > out.txt 2>&1 || diag < out.txt
run_np 2 -q -o pt_gpu.h5 pt_gpu.ini > out.txt 2>&1 || diag < out.txt
h5check same pt_cpu.h5 pt_gpu.h5 chains/walker chains/acceptance results/exchange/acceptance
ok $? "exchange between ranks on the cell-list path: the GPU's walkers and acceptance equal the CPU's"
# several chains per rank, trades within and between ranks: atoms on the many-chain kernel (kept
# there by gpu_batch_trials; t/gpu_parity trades chains on the few-chains path too), and molecules
# (the rigid kernels, whose trades go through the host)
printf '[run]\nseed = 45\ngpu_batch_trials = 1024\nequilibration = 40\nproduction = 60\nsample_every = 5\n[system]\nn = 256\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1.2:1.5:4\ndensity = 0.7\nreplicas = 2\nexchange_every = 2\n' > ptm.ini
printf '[run]\nseed = 46\nequilibration = 40\nproduction = 60\nsample_every = 5\n[molecules]\ntypes = A2\ncounts = 64\ngeometry = A 0 0 -0.25; A 0 0 0.25\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 2.5:3.1:4\ndensity = 0.3\nreplicas = 2\nexchange_every = 2\n' > ptmol.ini
bad=0
for c in ptm ptmol; do
    sed 's/^\[run\]/[run]\nbackend = gpu/' $c.ini > ${c}_gpu.ini
    sed 's/^\[run\]/[run]\nbackend = cpu/' $c.ini > ${c}_cpu.ini
    run_np 2 -q -o ${c}_cpu.h5 ${c}_cpu.ini > out.txt 2>&1 || { bad=1; diag < out.txt; }
    run_np 2 -q -o ${c}_gpu.h5 ${c}_gpu.ini > out.txt 2>&1 || { bad=1; diag < out.txt; }
    h5check same ${c}_cpu.h5 ${c}_gpu.h5 chains/walker chains/acceptance results/exchange/acceptance || bad=1
done
ok $bad "exchange with 4 chains per rank, atoms and molecules: the GPU's walkers and acceptance equal the CPU's"

# single precision on each atom kernel shape, the running energy checked against a full
# recomputation every 5 sweeps at 1e-9 (mc_check_drift): a pair's r^2 rounded otherwise by a move
# kernel than by the measurement (nvcc contracting the sum of squares otherwise in the cell-list
# chain kernel's shifted separations: doc/performance.md version 27) drifted past it within 50 sweeps
# (npt chains: each sweep's volume move summed in the kernel, in single precision for plain LJ by the
# loop without the division's range check, doc/performance.md version 30, and taken as the running
# energy when accepted; h5check moved_volume asserts that some were)
bad=0
for shape in "chains 500 3 4 nvt 1024" "chain_cells 2000 2.5 140 nvt 0" "batched 4096 none 1 nvt 0" "cells 4096 2.5 1 nvt 0" \
             "chains_npt 500 3 4 npt 1024" "few_chains 500 3 4 nvt 0" "few_chains_npt 500 3 4 npt 0"; do
    set -- $shape
    npt=; [ "$5" = npt ] && npt='type = npt\npressure = 1\n'
    printf "[run]\nseed = 31\nbackend = gpu\nprecision = single\ngpu_batch_trials = %s\nequilibration = 0\nproduction = 50\nsample_every = 5\n[system]\nn = %s\n[potential]\ncutoff = %s\n[ensemble]\n${npt}temperature = 1\ndensity = 0.8\nreplicas = %s\n" $6 $2 $3 $4 > drift_$1.ini
    run_np 1 -q -o drift_$1.h5 drift_$1.ini > out.txt 2>&1 || { bad=1; diag < out.txt; }
done
h5check moved_volume drift_chains_npt.h5 0.8 || bad=1
h5check moved_volume drift_few_chains_npt.h5 0.8 || bad=1
ok $bad "GPU, single: chains (nvt and npt), chains on cell lists, a few chains batched (nvt and npt), a batched and a cell-list large chain hold the drift check at 1e-9"

# the cases above took the kernels they were written for (/parameters@paths, each rank's word)
bad=0
for case in drift_chains:many-chains drift_chains_npt:many-chains-npt drift_chain_cells:many-chains-cells drift_batched:large-chain \
            drift_few_chains:few-chains drift_few_chains_npt:few-chains few1:few-chains few2:few-chains \
            drift_cells:large-chain-cells np1:many-chains np2:many-chains ladder1:many-chains-cells ladder2:many-chains-cells \
            large1:large-chain-cells large4:large-chain-cells hex1:molecules-batched hex2:molecules-batched \
            pt_gpu:large-chain-cells ptm_gpu:many-chains ptmol_gpu:molecules-resident; do
    h5check paths ${case%%:*}.h5 ${case#*:} || bad=1
done
ok $bad "each case ran on the kernel shape it is meant for"

if command -v compute-sanitizer > /dev/null; then
    printf '[run]\nbackend = gpu\nequilibration = 2\nproduction = 4\nsample_every = 2\n[system]\nn = %s\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\nreplicas = %s\n' 108 4 > chains.ini
    printf '[run]\nbackend = gpu\nequilibration = 1\nproduction = 2\nsample_every = 1\n[system]\nn = 1372\n[potential]\ncutoff = 3\n[ensemble]\ntemperature = 1\ndensity = 0.8\n' > batched.ini
    printf '[run]\nbackend = gpu\nequilibration = 1\nproduction = 1\nsample_every = 1\n[system]\nn = 4096\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\n[rdf]\nrmax = 2.5\n' > cells.ini
    printf '[run]\nbackend = gpu\nequilibration = 2\nproduction = 2\nsample_every = 1\n[molecules]\ntypes = AB\ncounts = 32\ngeometry = A 0 0 0; B 0 0 0.5\n[mixture]\nspecies = A, B\nsigma = 1, 1.1\nepsilon = 1, 0.8\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\ntemperature = 3\npressure = 1\ndensity = 0.2\nreplicas = 2\n' > molecules.ini
    sed 's/^backend = gpu/backend = gpu\nprecision = single/' molecules.ini > molecules_single.ini
    # charged molecules: SPC/E under npt (trial volumes' structure factors), and with Widom in single
    { printf '[run]\nbackend = gpu\nequilibration = 2\nproduction = 2\nsample_every = 1\n'; spce_model
      printf 'counts = 32\n[potential]\ncutoff = 0.45\ncoulomb = ewald\n[ensemble]\ntype = npt\ntemperature = 298\npressure = 1\ndensity = 33.4\nreplicas = 2\n'; } > spce.ini
    sed -e 's/^type = npt/widom = 4/' -e '/^pressure = 1/d' -e 's/^backend = gpu/backend = gpu\nprecision = single/' spce.ini > spce_widom.ini
    sed 's/^temperature = 1/temperature = 1, 1.1\nexchange_every = 1/' chains.ini > exchange.ini
    # npt on the chain kernel: each sweep's volume move in the kernel, the trial coordinates in place
    sed 's/^temperature = 1/type = npt\npressure = 1\ntemperature = 1/' chains.ini > npt_chains.ini
    # the chain kernel's cell lists (N = 1000, rc 2.1: 5 cells per edge), rebuilt after trades (its
    # gpu_batch_trials keeps the 8 chains off the few-chains path)
    sed -e 's/^n = 108/n = 1000/' -e 's/^cutoff = 2.5/cutoff = 2.1/' -e 's/^\[run\]/[run]\ngpu_batch_trials = 1024/' exchange.ini > chain_cells.ini
    # a few chains batched side by side: a binary mixture of 300 under npt, three chains
    printf '[run]\nbackend = gpu\nequilibration = 1\nproduction = 2\nsample_every = 1\n[mixture]\nspecies = A, B\nsigma = 1, 0.9\nepsilon = 1, 0.8\ncounts = 200, 100\n[potential]\ncutoff = 2.5\n[ensemble]\ntype = npt\npressure = 1\ntemperature = 1\ndensity = 0.8\nreplicas = 3\n' > few_chains.ini
    # ... at two staged chains of 512 threads an SM (N = 3000 in double: 72 kB of positions; its
    # gpu_batch_trials keeps it off the batched path; t/gpu_parity also runs the third block)
    sed -e 's/^n = 108/n = 3000/' -e 's/^\[run\]/[run]\ngpu_batch_trials = 1024/' -e 's/^production = 4/production = 2/' -e 's/^replicas = 4/replicas = 1/' exchange.ini > chain_cells_two.ini
    # ... and a binary mixture there (3000 atoms in double; its kernel looks up each partner's species)
    printf '[run]\nbackend = gpu\ngpu_batch_trials = 1024\nequilibration = 2\nproduction = 2\nsample_every = 1\n[mixture]\nspecies = A, B\nsigma = 1, 0.9\nepsilon = 1, 0.8\ncounts = 1500, 1500\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 1\ndensity = 0.8\n' > chain_cells_mix_two.ini
    # initcheck: no kernel reads device memory that nothing wrote (a kernel's unwritten slots of a
    # table, say, would then carry an earlier batch's values)
    for tool in memcheck racecheck initcheck; do
        bad=0
        for cfg in chains npt_chains few_chains batched cells molecules molecules_single spce spce_widom exchange chain_cells chain_cells_two chain_cells_mix_two; do
            rm -f mcens.h5 mcens.h5.ckpt
            compute-sanitizer --tool $tool --error-exitcode 9 "$MCENS" -q $cfg.ini > san.txt 2>&1 || bad=1
            grep -q "ERROR SUMMARY: 0 errors\|RACECHECK SUMMARY: 0 hazards" san.txt || bad=1
            [ $bad -eq 0 ] || diag < san.txt
        done
        ok $bad "compute-sanitizer $tool: no errors on the chain kernel (nvt, npt), a few chains batched (a mixture under npt), the batched, cell and molecule kernels (charged ones too), with exchange, and on the chain kernel's cell lists (four and two chains an SM, a mixture's too)"
    done
else
    skip "compute-sanitizer not installed"; skip "compute-sanitizer not installed"; skip "compute-sanitizer not installed"
fi
exit 0
