#!/bin/bash
# Checkpoints and exact restart: a run stopped at a random sweep (kill -9 of one rank, a stop
# signal, SIGTERM to mpirun) and continued with --restart, on another number of ranks, ends with
# /chains, /results and the trajectory (frames every few samples) bit-identical to an uninterrupted
# run, for every kind of chain (atoms with
# cell lists, a mixture with Widom, NPT, molecules in NPT with Widom, an open cluster, and replica
# exchange among atoms with cell lists, along a pressure ladder and in a cluster, Gibbs-ensemble
# mixtures of atoms and of molecules, and grand-canonical windows); --extend
# equals a longer run; checkpoints that cannot continue the run are refused and left as they are
# (t/gpu_shape.sh: a continued run keeps the GPU its kernels were shaped for).
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 34

# a random sweep in [lo, hi), printed so that a failure can be replayed
random_sweep() { echo $(( $1 + $(od -An -N2 -tu2 /dev/urandom) % ($2 - $1) )); }
# restart_case NAME TOTAL_SWEEPS [NP NP_RESTART]: uninterrupted on NP ranks (2); killed (the last
# rank, SIGKILL) at a random sweep on NP ranks; continued on NP_RESTART ranks (3); compared
restart_case() {
    # (not np: run_np sets that)
    name=$1 total=$2 ranks=${3:-2} ranks2=${4:-3} at=$(random_sweep $(( $2 / 2 + 1 )) "$2") # past a checkpoint
    run_np "$ranks" -q -o "$name-full.h5" "$name.ini" > "$name-full.txt" 2>&1
    MCENS_TEST_KILL_AT=$((ranks - 1)):$at run_np "$ranks" -q -o "$name.h5" "$name.ini" > "$name-killed.txt" 2>&1
    killed=$?
    run_np "$ranks2" -q --restart -o "$name.h5" "$name.ini" > "$name-restart.txt" 2>&1
    restarted=$?
    echo "$name: rank $((ranks - 1)) killed after sweep $at of $total (status $killed), restart status $restarted" | diag
    [ $killed -ne 0 ] && [ $restarted -eq 0 ] && h5check same_results "$name-full.h5" "$name.h5"
    ok $? "$name: killed at sweep $at of $total on $ranks ranks, restarted on $ranks2: bit-identical to an uninterrupted run" ||
        cat "$name-killed.txt" "$name-restart.txt" | tail -20 | diag
}

# cells.ini: gpu_batch_trials = 1024 keeps its 4 chains of 1000 on the chain kernel's cell lists
# on a GPU (else the few-chains path, all pairs, would take them)
cat > cells.ini <<'EOF'
[run]
seed = 3
gpu_batch_trials = 1024
equilibration = 40
production = 80
sample_every = 4
checkpoint_every = 1e-6
[system]
n = 1000
[potential]
cutoff = 2.0
[ensemble]
temperature = 2.0, 2.5
density = 0.5
replicas = 2
[output]
snapshot_every = 2
EOF
cat > mixture.ini <<'EOF'
[run]
seed = 4
equilibration = 30
production = 60
sample_every = 3
checkpoint_every = 1e-6
[potential]
cutoff = 2.5
tail_correction = yes
[mixture]
species = A, B
counts = 60, 40
sigma = 1, 1.2
epsilon = 1, 0.8
[ensemble]
temperature = 1.5, 2.5
density = 0.4
replicas = 2
widom = 20
[output]
snapshot_every = 4
EOF
cat > npt.ini <<'EOF'
[run]
seed = 5
equilibration = 60
production = 90
sample_every = 3
checkpoint_every = 1e-6
[system]
n = 108
[potential]
cutoff = 2.5
tail_correction = yes
[ensemble]
type = npt
temperature = 2.0
pressure = 1.0, 2.0
density = 0.5
replicas = 2
[output]
snapshot_every = 3
EOF
cat > molecules.ini <<'EOF'
[run]
seed = 6
equilibration = 40
production = 60
sample_every = 3
checkpoint_every = 1e-6
[molecules]
types = A2
counts = 64
geometry = A 0 0 -0.25; A 0 0 0.25
[potential]
cutoff = 2.5
tail_correction = yes
[ensemble]
temperature = 3.0
density = 0.3
replicas = 3
widom = 10
[output]
snapshot_every = 4
EOF
sed -e 's/^temperature = 3.0/type = npt\ntemperature = 3.0\npressure = 1.0/' -e '/^widom/d' molecules.ini > molecules_npt.ini
cat > cluster.ini <<'EOF'
[run]
seed = 7
equilibration = 40
production = 60
sample_every = 3
checkpoint_every = 1e-6
[system]
boundary = none
lattice_constant = 1.6
[molecules]
types = Ar
counts = 32
geometry = Ar 0 0 0
[potential]
cutoff = 3.0
tail_correction = no
[wall]
radius = 6
strength = 1
[ensemble]
temperature = 0.4, 0.6, 0.8
[rdf]
rmax = 3
bins = 30
[output]
snapshot_every = 5
EOF

restart_case cells 120
# the restarted run records the path it continued on: cells (the CPU backend) or the chain
# kernel's cell lists (the GPU)
h5check paths cells.h5 "cells|many-chains-cells"; ok $? "a restarted run records each rank's path: cell lists"
# one large chain per rank in single precision: on a GPU, the cell-list kernels (whose cell
# order is made canonical at every round's end, so that a restart rebuilds the same lists)
sed -e 's/^n = 1000/n = 4000/' -e 's/^replicas = 2/replicas = 1/' -e '/^gpu_batch_trials/d' -e 's/^seed = 3/seed = 3\nprecision = single/' -e 's/^production = 80/production = 40/' \
    -e 's/^temperature = 2.0, 2.5/temperature = 2.0/' cells.ini > big.ini
restart_case big 80 1 1
restart_case mixture 90
restart_case npt 150
restart_case molecules 100
restart_case molecules_npt 100
restart_case cluster 100
cp cells.ini cells2.ini
restart_case cells2 120 # a second random moment
# replica exchange: walkers, their paths and the swap counters are part of the state (atoms with
# cell lists, a pressure ladder in npt, an open cluster of the rigid engine)
sed 's/^replicas = 2/replicas = 2\nexchange_every = 3/' cells.ini > cells_exchange.ini
restart_case cells_exchange 120
sed 's/^replicas = 2/replicas = 2\nexchange_every = 2\nexchange_axis = pressure/' npt.ini > npt_exchange.ini
restart_case npt_exchange 150
sed 's/^temperature = 0.4, 0.6, 0.8/temperature = 0.4, 0.6, 0.8\nexchange_every = 4/' cluster.ini > cluster_exchange.ini
restart_case cluster_exchange 100
# the Gibbs ensemble: box labels, both boxes' edges and energies, the transfer counters and the test
# insertions of each phase are part of the state (a mixture, so that transfers go per species)
cat > gibbs.ini <<'EOF'
[run]
seed = 6
equilibration = 40
production = 80
sample_every = 4
checkpoint_every = 1e-6
[system]
n = 100
[potential]
cutoff = 2.5
[mixture]
species = A, B
counts = 60, 40
sigma = 1.0, 0.9
epsilon = 1.0, 0.8
[ensemble]
type = gibbs
temperature = 0.9, 1.0
density = 0.15
replicas = 2
widom = 5
[moves]
displacement_fraction = 0.7
transfer_fraction = 0.25
volume_fraction = 0.05
EOF
restart_case gibbs 120
# molecules in the Gibbs ensemble: centres and orientations move with their box labels, and the
# rotation counters and steps are part of the state too
cat > gibbs_molecules.ini <<'EOF'
[run]
seed = 8
equilibration = 30
production = 60
sample_every = 3
checkpoint_every = 1e-6
[mixture]
species = A, B
sigma = 1.0, 0.9
epsilon = 1.0, 0.8
[molecules]
types = AB
counts = 80
geometry = A 0 0 0; B 0 0 0.6
[potential]
cutoff = 2.5
[ensemble]
type = gibbs
temperature = 1.8, 1.9
density = 0.08
replicas = 2
widom = 3
[moves]
displacement_fraction = 0.7
transfer_fraction = 0.25
volume_fraction = 0.05
EOF
restart_case gibbs_molecules 90
# the grand-canonical ensemble: slot labels, the collection matrices, the biases learned so far,
# the energy sums and visits by N, in windows spread over the ranks, and a trajectory of varying N
cat > gcmc.ini <<'EOF'
[run]
seed = 9
equilibration = 40
production = 80
sample_every = 4
checkpoint_every = 1e-6
[system]
box_length = 6
[potential]
cutoff = 2.5
[ensemble]
type = gcmc
temperature = 1.2, 1.5
lnz = -3
n_max = 60
replicas = 2
[tmmc]
windows = 3
[output]
snapshot_every = 3
EOF
restart_case gcmc 120
# ... and one stopped by an mcens from before the trajectory's id element (its OUTPUT.part without
# one; gcmc wrote the final frame alone then): the restart adds the element and ends as an
# uninterrupted run
sed '/^\[output\]/,$d' gcmc.ini > gcmc_old.ini
run_np 2 -q -o gcmc_old-full.h5 gcmc_old.ini > gcmc_old-full.txt 2>&1
MCENS_TEST_KILL_AT=1:90 run_np 2 -q -o gcmc_old.h5 gcmc_old.ini > gcmc_old-killed.txt 2>&1
"$PYTHON3" -c '
import h5py
f = h5py.File("gcmc_old.h5.part", "a")
for k in f["particles"]:
    del f["particles"][k]["id"]' > gcmc_old-edit.txt 2>&1 &&
    run_np 3 -q --restart -o gcmc_old.h5 gcmc_old.ini > gcmc_old-restart.txt 2>&1 &&
    h5check same_results gcmc_old-full.h5 gcmc_old.h5
ok $? "gcmc stopped by an mcens without the trajectory's id element: the restart adds it, bit-identical to an uninterrupted run" ||
    cat gcmc_old-edit.txt gcmc_old-killed.txt gcmc_old-restart.txt | tail -20 | diag

# a stop signal on one rank: every rank stops at the same round with a checkpoint, status 3
at=$(random_sweep 1 90)
MCENS_TEST_SIGNAL_AT=0:$at run_np 2 -q -o sig.h5 mixture.ini > sig.txt 2>&1
status=$?
[ $status -eq 3 ] && [ -f sig.h5.ckpt ] && [ ! -e sig.h5 ] && grep -q "stopped by signal 10" sig.txt &&
    grep -q "mcens --restart -o sig.h5 mixture.ini" sig.txt
ok $? "SIGUSR1 to rank 0 after sweep $at: status 3, a checkpoint, no output, and the command that continues" || diag < sig.txt
run_np 1 -q --restart -o sig.h5 mixture.ini > sig2.txt 2>&1 && h5check same_results mixture-full.h5 sig.h5
ok $? "... continued on 1 rank: bit-identical" || diag < sig2.txt
h5check segments sig.h5 start,restart 2,1
ok $? "... and /parameters@segments records both segments: the start to sweep $at on 2 ranks, the restart on 1"

# SIGTERM to mpirun, as a batch system sends it: Open MPI 4.1 sends the ranks SIGCONT, then
# odls_base_sigkill_timeout seconds later SIGTERM, and as long again later SIGKILL; its own status
# is then 1 (the default 1 s: a round and a checkpoint of this run take milliseconds, and a longer
# wait could let the run finish first). Rank 0's clean exit removes the lock file; the checkpoint
# must be there.
# long enough (several seconds on 2 cores) that the signal, which comes 1 to 2 s after the first
# checkpoint, finds it running: 400 sweeps once were, until the CPU's cell lists got faster. Rounds
# of 40 sweeps: a checkpoint every round of 4 made each continuation below take some 50 s
sed -e 's/^production = 80/production = 4000/' -e 's/^sample_every = 4$/sample_every = 40/' cells.ini > long.ini
sed -e 's/^production = 80/production = 4000/' -e 's/^sample_every = 4$/sample_every = 40/' \
    -e 's/^checkpoint_every = .*/checkpoint_every = 0/' cells.ini > long-full.ini
# (mpirun itself, not under timeout(1), which would take the signal; a watchdog instead)
run_np 2 -q -o long-full.h5 long-full.ini > /dev/null 2>&1
OMPI_MCA_odls_base_sigkill_timeout=1 "$MPIRUN" -np 2 "$MCENS" -o term.h5 long.ini > term.txt 2>&1 < /dev/null &
pid=$!
(sleep 300; kill -KILL $pid) > /dev/null 2>&1 &
watchdog=$!
for _ in $(seq 100); do grep -q "^checkpoint after sweep" term.txt && break; sleep 0.1; done
sleep 0.$(( $(od -An -N1 -tu1 /dev/urandom) % 10 ))
t0=$(date +%s%N)
kill -TERM $pid
wait $pid
status=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
echo "mpirun ended $ms ms after SIGTERM with status $status" | diag
[ $status -ne 0 ] && [ -f term.h5.ckpt ] && [ ! -e term.h5.lock ] && [ $ms -lt 20000 ]
ok $? "SIGTERM to mpirun: the ranks stop cleanly with a checkpoint within 20 s" || tail -5 term.txt | diag
kill $watchdog 2> /dev/null
run_np 3 -q --restart -o term.h5 long.ini > term2.txt 2>&1 && h5check same_results long-full.h5 term.h5
ok $? "... continued on 3 ranks: bit-identical to an uninterrupted run (without checkpoints)" || diag < term2.txt

# kill -9 of one rank from outside at a random moment (perhaps inside a checkpoint write)
timeout 300 "$MPIRUN" -np 2 "$MCENS" -q -o ext.h5 long.ini > ext.txt 2>&1 < /dev/null &
pid=$!
for _ in $(seq 100); do [ -f ext.h5.ckpt ] && break; sleep 0.1; done
sleep 0.$(( $(od -An -N1 -tu1 /dev/urandom) % 10 ))
victim=$(pgrep -f "^$MCENS -q -o ext.h5" | tail -1)
kill -KILL "$victim"
t0=$(date +%s)
wait $pid
status=$?
echo "mpirun ended $(( $(date +%s) - t0 )) s after kill -9 of rank pid $victim, status $status" | diag
[ $status -ne 0 ] && [ $(( $(date +%s) - t0 )) -lt 30 ]
ok $? "kill -9 of one rank from outside: the job ends promptly with a non-zero status"
run_np 2 -q --restart -o ext.h5 long.ini > ext2.txt 2>&1 && h5check same_results long-full.h5 ext.h5
ok $? "... the last checkpoint survived and the restart is bit-identical" || diag < ext2.txt

# SIGHUP (a closed session; some launchers send it to one rank) and SIGXCPU (a CPU-time limit)
# to one rank from outside: handled as SIGTERM is, every rank stops with a checkpoint
for sig in HUP XCPU; do
    rm -f hup.h5 hup.h5.ckpt
    timeout 300 "$MPIRUN" -np 2 "$MCENS" -o hup.h5 long.ini > $sig.txt 2>&1 < /dev/null &
    pid=$!
    for _ in $(seq 100); do [ -f hup.h5.ckpt ] && break; sleep 0.1; done
    victim=$(pgrep -f "^$MCENS -o hup.h5" | tail -1)
    kill -$sig "$victim"
    wait $pid
    status=$?
    [ $status -eq 3 ] && [ -f hup.h5.ckpt ] && [ ! -e hup.h5 ] && grep -q "stopped by signal $(kill -l $sig)" $sig.txt
    ok $? "SIG$sig to one rank from outside: status $status (3), a checkpoint, no output" || tail -5 $sig.txt | diag
done
run_np 2 -q --restart -o hup.h5 long.ini > hup2.txt 2>&1 && h5check same_results long-full.h5 hup.h5
ok $? "... continued after SIGXCPU: bit-identical to an uninterrupted run" || diag < hup2.txt

# --extend: a finished run plus 30 sweeps equals a run 30 sweeps longer
sed -e 's/^production = 60/production = 90/' -e 's/^checkpoint_every = .*/checkpoint_every = 0/' mixture.ini > longer.ini
run_np 2 -q -o longer.h5 longer.ini > /dev/null 2>&1
cp mixture-full.h5 ext60.h5 && cp mixture-full.h5.ckpt ext60.h5.ckpt
run_np 3 -q --extend 30 -o ext60.h5 mixture.ini > extend.txt 2>&1 && h5check same_results longer.h5 ext60.h5
ok $? "--extend 30 after 60 sweeps of production equals a run of 90" || diag < extend.txt
h5check segments ext60.h5 start,extend 2,3
ok $? "... and /parameters@segments records the start on 2 ranks and the extension by 30 on 3"
run_np 1 -q --extend 7 -o ext60.h5 mixture.ini > extend2.txt 2>&1
[ $? -eq 1 ] && grep -q "multiple of \[run\] sample_every = 3" extend2.txt
ok $? "--extend by a number of sweeps that is not a multiple of sample_every is refused" || diag < extend2.txt

# checkpoints that cannot continue this run: refused, named, and left as they were
cp npt-full.h5.ckpt bad.h5.ckpt && sum0=$(md5sum < bad.h5.ckpt)
sed 's/^temperature = 2.0/temperature = 2.1/' npt.ini > other.ini
run_np 2 -q --restart -o bad.h5 other.ini > other.txt 2>&1
[ $? -eq 1 ] && grep -q "bad.h5.ckpt: written for another config: other.ini line 14 is \"temperature = 2.1\", the checkpoint's is \"temperature = 2.0\"" other.txt &&
    [ "$(md5sum < bad.h5.ckpt)" = "$sum0" ] && [ ! -e bad.h5 ]
ok $? "a checkpoint of another config is refused, naming the line; nothing written" || diag < other.txt
"$PYTHON3" -c "import h5py; f = h5py.File('bad.h5.ckpt', 'r+'); f.attrs['precision'] = 'single'"
run_np 1 -q --restart -o bad.h5 npt.ini > prec.txt 2>&1
[ $? -eq 1 ] && grep -q "written by precision single, this run has precision double" prec.txt
ok $? "a checkpoint of another precision is refused" || diag < prec.txt
"$PYTHON3" -c "import h5py; f = h5py.File('bad.h5.ckpt', 'r+'); f.attrs['precision'] = 'double'; f.attrs['mcens_version'] = '0.0'"
run_np 1 -q --restart -o bad.h5 npt.ini > version.txt 2>&1
[ $? -eq 1 ] && grep -q "written by mcens version 0.0, this run has mcens version" version.txt
ok $? "a checkpoint of another mcens version is refused" || diag < version.txt
head -c 20000 npt-full.h5.ckpt > bad.h5.ckpt && sum0=$(md5sum < bad.h5.ckpt)
run_np 2 -q --restart -o bad.h5 npt.ini > trunc.txt 2>&1
[ $? -eq 1 ] && grep -q "bad.h5.ckpt: cannot open it as HDF5 (truncated or corrupt?)" trunc.txt &&
    [ "$(md5sum < bad.h5.ckpt)" = "$sum0" ]
ok $? "a truncated checkpoint is refused and left as it is" || diag < trunc.txt
run_np 1 -q --restart -o none.h5 npt.ini > none.txt 2>&1
[ $? -eq 1 ] && grep -q "none.h5.ckpt: no checkpoint to restart from" none.txt
ok $? "--restart without a checkpoint says so" || diag < none.txt
exit 0
