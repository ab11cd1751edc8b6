#!/bin/sh
# Replica exchange ([ensemble] exchange_every): bad settings refused; the same run bit-identical on
# 1, 2 and 3 ranks, and after --extend; a failure inside an exchange step ending every rank; the
# walker bookkeeping consistent; in a supercritical fluid, where plain chains equilibrate, every
# average unchanged by exchange; each neighbour pair's swap acceptance equal to the overlap of its
# energy distributions; and a 55-atom cluster whose lattice and melt starts disagree without
# exchange (the check's power) agreeing with it (t/exchange_check.py).
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 18
echeck() { pycheck exchange_check.py "$@"; }
# refused NAME KEY=VALUE... PATTERN: the fluid config with the keys changed fails with PATTERN
refused() {
    name=$1 pattern=$2; shift 2
    cp fluid.ini "$name.ini"
    for kv in "$@"; do sed -i "s/^${kv%%=*} = .*/${kv%%=*} = ${kv#*=}/" "$name.ini"; done
    run_np 1 -q "$name.ini" > "$name.txt" 2>&1
    [ $? -ne 0 ] && grep -q "$pattern" "$name.txt" && [ ! -e "$name.h5" ]
}

cat > fluid.ini <<'INI'
[run]
output = fluid.h5
seed = 7
equilibration = 300
production = 3000
sample_every = 10
[system]
n = 64
[potential]
cutoff = 2.0
[ensemble]
type = nvt
temperature = 1.5:2.1:4
density = 0.6
replicas = 6
exchange_every = 5
exchange_axis = temperature
INI

refused one 'exchange_every = 5: expected at least two temperature values' temperature=1.5 &&
    grep -q 'one.ini:16' one.txt
ok $? "one temperature: refused, naming the file and line" || diag < one.txt
refused unsorted 'expected strictly increasing or decreasing' 'temperature=1.5, 2.1, 1.8'
ok $? "temperatures out of order: refused" || diag < unsorted.txt
refused axis 'exchange_axis = pressure: expected type = npt' exchange_axis=pressure
ok $? "a pressure ladder in nvt: refused" || diag < axis.txt

for np in 1 2 3; do
    run_np $np -q -o np$np.h5 fluid.ini > np$np.txt 2>&1
    ok $? "exchange every 5 sweeps, 4 temperatures x 6 replicas, on $np ranks" || diag < np$np.txt
done
h5check same np1.h5 np2.h5 chains/energy chains/walker chains/state chains/round_trips results/exchange/acceptance particles &&
    h5check same np1.h5 np3.h5 chains/energy chains/pressure chains/walker chains/state results/energy/mean results/rdf/g
ok $? "1, 2 and 3 ranks: bit-identical chains, walker paths, acceptance and results"
# a failure on one rank inside an exchange step (between its decisions and its trades): every rank
# stops at once with that rank's message, long before the stall deadline (300 s)
start=$(date +%s)
MCENS_TEST_FAIL_EXCHANGE=1:1000 run_np 2 -q -o failed.h5 fluid.ini > failed.txt 2>&1
status=$? took=$(( $(date +%s) - start ))
[ $status -ne 0 ] && [ $took -lt 60 ] && grep -q "rank 1: injected exchange failure at sweep 1000" failed.txt && [ ! -e failed.h5 ]
ok $? "a failure on rank 1 inside an exchange step ends the run in ${took} s with its message, no output" || diag < failed.txt
# --extend: the walkers' paths grow with the samples, as in a run that long from the start
printf '[run]\noutput = e.h5\nseed = 7\nequilibration = 50\nproduction = 100\nsample_every = 5\n[system]\nn = 64\n[potential]\ncutoff = 2.0\n[ensemble]\ntemperature = 1.5:2.1:4\ndensity = 0.6\nreplicas = 2\nexchange_every = 3\n' > e.ini
sed -e 's/^production = 100/production = 150/' -e 's/^output = e.h5/output = long.h5/' e.ini > long.ini
run_np 2 -q e.ini > e.txt 2>&1 && run_np 3 -q --extend 50 e.ini >> e.txt 2>&1 && run_np 2 -q long.ini >> e.txt 2>&1 &&
    h5check same_results long.h5 e.h5
ok $? "--extend 50 on 3 ranks after 100 sweeps of production on 2 equals a run of 150, walker paths included" || diag < e.txt
echeck paths np2.h5
ok $? "every ladder holds a permutation of its walkers at every sample; /chains/state inverts /chains/walker"
echeck overlap np2.h5
ok $? "each pair's swap acceptance is the overlap of its energy distributions"
# a ladder broken between far rungs (0.7 and 6 for 64 atoms: energy distributions that never meet)
# is named, with a rung to put between them; the ladder's other pair swaps and is not named
sed -e 's/^temperature = .*/temperature = 0.7, 6, 6.5/' -e 's/^output = .*/output = far.h5/' e.ini > far.ini
run_np 2 -q far.ini > far.txt 2>&1
[ $? -eq 0 ] && "$PYTHON3" -c "import h5py, sys; a = h5py.File('far.h5', 'r')['results/exchange/acceptance'][...]
print('#', a); sys.exit(0 if a[0] == 0 and a[1] > 0 else 1)" &&
    grep -q "warning: replica exchange between state points 0 and 1 (T 0.7 and 6) accepted none of its swaps" far.txt &&
    grep -q "e.g. T 2.049" far.txt && ! grep -q "state points 1 and 2" far.txt
ok $? "a ladder broken between T 0.7 and 6 (no swap accepted, /results/exchange/acceptance 0) is named, with a rung between" ||
    diag < far.txt
sed -e 's/^exchange_every = .*/exchange_every = 0/' -e 's/^output = .*/output = plain.h5/' fluid.ini > plain.ini
run_np 2 -q plain.ini > plain.txt 2>&1 && echeck unchanged np2.h5 plain.h5 energy pressure heat_capacity
ok $? "supercritical fluid: exchange leaves U, P and C_V unchanged within errors" || diag < plain.txt

# LJ55 in a wall: from the fcc lattice and from the melt the low-temperature chains end in
# different minima; exchange across 0.22-0.40 lets both reach the same averages
cat > cluster.ini <<'INI'
[run]
output = cluster.h5
seed = 3
equilibration = 10000
production = 30000
sample_every = 10
[system]
n = 55
boundary = none
lattice_constant = 1.587
start = lattice
[potential]
cutoff = none
tail_correction = no
[wall]
radius = 3
strength = 10
[ensemble]
temperature = 0.22:0.40:10
replicas = 2
exchange_every = 5
[rdf]
rmax = 3
bins = 30
INI
sed -e 's/^start = .*/start = melt/' -e 's/^output = .*/output = melt.h5/' cluster.ini > melt.ini
sed -e 's/^exchange_every = .*/exchange_every = 0/' -e 's/^output = .*/output = cluster0.h5/' cluster.ini > cluster0.ini
sed -e 's/^exchange_every = .*/exchange_every = 0/' -e 's/^output = .*/output = melt0.h5/' melt.ini > melt0.ini
for c in cluster0 melt0 melt; do run_np 2 -q $c.ini > $c.txt 2>&1 || diag < $c.txt; done
run_np 2 cluster.ini > cluster.txt 2>&1
ok $? "a cluster with exchange runs and prints its summary" || diag < cluster.txt
grep -q "^round trips per walker" cluster.txt && grep -q "swaps with the next rung up its ladder accepted" cluster.txt
ok $? "the summary gives the swap acceptance and the walkers' round trips" || diag < cluster.txt
echeck disagree cluster0.h5 melt0.h5 energy
ok $? "LJ55 without exchange: lattice and melt starts disagree (the next check has power)"
echeck agree cluster.h5 melt.h5 energy heat_capacity
ok $? "LJ55 with exchange: lattice and melt starts agree on U(T) and C_V(T)"
[ ! -e cluster.h5 ] || "$PYTHON3" -c "import h5py, sys; sys.exit('lindemann' in h5py.File('cluster.h5')['results'])"
ok $? "no Lindemann index with exchange (a state's samples come from several walkers)"
exit 0
