#!/bin/sh
# Trajectories (H5MD in the output file): the planned frames of every chain at the planned sweeps,
# the last one the end state recorded in the checkpoint; MDAnalysis reads them; NPT boxes and
# molecules' centres and orientations per frame; a trajectory over the size budget is refused at
# parse time; a frame write that fails stops the run and loses nothing; a fresh run does not
# replace a stopped run's state.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 13

cat > mix.ini <<'EOF'
[run]
seed = 11
equilibration = 20
production = 66
sample_every = 3
[potential]
cutoff = 2.5
[mixture]
species = A, B
counts = 40, 24
sigma = 1, 1.1
epsilon = 1, 0.9
[ensemble]
temperature = 1.5, 2.5
density = 0.5
replicas = 2
[output]
snapshot_every = 4
EOF
run_np 2 -q -o mix.h5 mix.ini > mix.txt 2>&1 && h5check h5md mix.h5 4
ok $? "a mixture on 2 ranks, a frame every 4 of 22 samples: 6 frames per chain, the last the checkpoint's state" || diag < mix.txt
no_mda="no MDAnalysis here (python3-mdanalysis)"
if have_mdanalysis; then
    h5check mdanalysis mix.h5
    ok $? "MDAnalysis reads chain 0's frames, box and time as mcens wrote them"
else skip "$no_mda: MDAnalysis reads chain 0's frames"; fi

# real units: the unit attributes are H5MD's strings, which MDAnalysis parses
sed -e 's/^\[potential\]/[system]\nunits = real\n[potential]\npreset = argon/' -e 's/^cutoff = 2.5/cutoff = 0.85/' \
    -e '/^\[mixture\]/,/^epsilon/d' -e 's/^\[ensemble\]/[system]\nn = 64\n[ensemble]/' \
    -e 's/^temperature = .*/temperature = 150/' -e 's/^density = 0.5/density = 12/' mix.ini > real.ini
if have_mdanalysis; then
    run_np 1 -q -o real.h5 real.ini > real.txt 2>&1 && h5check mdanalysis real.h5
    ok $? "MDAnalysis opens a real-unit trajectory and reads its length unit, nm" || cat real.ini real.txt | diag
else skip "$no_mda: a real-unit trajectory"; fi

sed -e 's/^snapshot_every = 4/snapshot_every = 0/' mix.ini > final.ini
run_np 3 -q -o final.h5 final.ini > final.txt 2>&1 && h5check h5md final.h5 0 && h5check same mix.h5 final.h5 chains/energy
ok $? "snapshot_every = 0: one frame, the final one, on 3 ranks; the chains are the same as with frames" || diag < final.txt

cat > npt.ini <<'EOF'
[run]
seed = 12
equilibration = 30
production = 40
sample_every = 2
[system]
n = 108
[potential]
cutoff = 2.5
tail_correction = yes
[ensemble]
type = npt
temperature = 2.0
pressure = 1.0
density = 0.5
replicas = 2
[output]
snapshot_every = 5
EOF
run_np 2 -q -o npt.h5 npt.ini > npt.txt 2>&1 && h5check h5md npt.h5 5 &&
    "$PYTHON3" -c "
import h5py, numpy as np, sys
e = h5py.File('npt.h5', 'r')['particles/chain_000001/box/edges/value'][...]
print('boxes of chain 1:', np.round(e[:, 0, 0], 4))
sys.exit(0 if len(set(e[:, 0, 0])) == len(e) else 1)" > boxes.txt
ok $? "NPT: every frame has its own box" || cat npt.txt boxes.txt | diag
diag < boxes.txt
if have_mdanalysis; then
    h5check mdanalysis npt.h5
    ok $? "... and MDAnalysis reads them"
else skip "$no_mda: NPT boxes"; fi

cat > mol.ini <<'EOF'
[run]
seed = 13
equilibration = 20
production = 30
sample_every = 3
[molecules]
types = A2
counts = 48
geometry = A 0 0 -0.25; A 0 0 0.25
[potential]
cutoff = 2.5
[ensemble]
temperature = 3.0
density = 0.25
replicas = 2
[output]
snapshot_every = 2
EOF
run_np 2 -q -o mol.h5 mol.ini > mol.txt 2>&1 && h5check h5md mol.h5 2 && h5check rigid_layout mol.h5 &&
    "$PYTHON3" -c "
import h5py, numpy as np, sys
f = h5py.File('mol.h5', 'r'); g = f['particles/chain_000001']
ok = g['centre/value'].shape == (5, 48, 3) and g['orientation/value'].shape == (5, 48, 4)
ok &= np.array_equal(g['molecule'][...], f['molecules/site_molecule'][...])
print('# centres', g['centre/value'].shape, 'orientations', g['orientation/value'].shape)
sys.exit(0 if ok else 1)" | diag
ok $? "molecules: each frame holds sites, centres and orientations that rebuild the sites" || diag < mol.txt

# the size budget
sed -e 's/^snapshot_every = 4/snapshot_every = 1\nsnapshot_budget = 1e-5/' mix.ini > big.ini
run_np 1 -n big.ini > big.txt 2>&1
[ $? -eq 1 ] && grep -q "big.ini:18: \[output\] snapshot_every = 1 gives 22 frames of 4 chains, 0.000142 GB, over \[output\] snapshot_budget = 1e-05 GB" big.txt
ok $? "a trajectory over snapshot_budget is refused at parse time, with the file, line and sizes" || diag < big.txt
printf 'force = yes\n' >> big.ini
run_np 1 -n big.ini > force.txt 2>&1 && grep -q "trajectory: 22 frames" force.txt
ok $? "... and accepted with force = yes; --dry-run gives the frame count" || diag < force.txt

# a frame write that fails on one rank (a full disk) after a checkpoint: the job ends with the
# message, OUTPUT.part keeps the frames the checkpoint counts, and --restart completes the run
sed -e 's/^sample_every = 3/sample_every = 3\ncheckpoint_every = 1e-6/' mix.ini > fault.ini
run_np 2 -q -o mixc.h5 fault.ini > /dev/null 2>&1
MCENS_TEST_FAIL_WRITE=1:.h5.part run_np 2 -q -o fault.h5 fault.ini > fault.txt 2>&1
status=$?
[ $status -eq 1 ] && grep -q "fault.h5.part: cannot write frame 0 of the trajectory (injected" fault.txt && [ -f fault.h5.part ] &&
    [ -f fault.h5.ckpt ] && [ ! -e fault.h5 ]
ok $? "a failed frame write ends the run with its message; OUTPUT.part and the checkpoint stay" || diag < fault.txt
run_np 3 -q --restart -o fault.h5 fault.ini > fault2.txt 2>&1 && h5check same_results mixc.h5 fault.h5
ok $? "... and --restart on 3 ranks completes it bit-identically, frames included" || diag < fault2.txt

# a stopped run's state is not replaced by a fresh run
MCENS_TEST_SIGNAL_AT=0:40 run_np 2 -q -o stop.h5 fault.ini > stop.txt 2>&1
run_np 2 -q -o stop.h5 fault.ini > fresh.txt 2>&1
[ $? -eq 1 ] && grep -q "stop.h5.ckpt exists: the state of an earlier run of stop.h5; continue that run with --restart" fresh.txt &&
    [ -f stop.h5.part ] && [ ! -e stop.h5 ]
ok $? "a fresh run refuses to replace a stopped run's checkpoint and trajectory" || diag < fresh.txt
run_np 2 -q --restart -o stop.h5 fault.ini > stop2.txt 2>&1 && h5check same_results mixc.h5 stop.h5
ok $? "... which --restart then completes bit-identically" || diag < stop2.txt
exit $tap_failed
