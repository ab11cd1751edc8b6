#!/bin/sh
# Every example that t/same_bits.sh does not run, shortened so that none of them rots: 100 + 200
# sweeps, 2 replicas, a range of state points cut to its two ends, at most 500 particles or
# molecules; each must run on 2 ranks with status 0 and write U/N finite at every state point.
# This keeps the examples parsing and running; whether each full example gives stationary
# averages as shipped can only be seen by running it whole (mcens's stationarity warning).
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
shapes="argon argon_cluster argon_cluster_melt argon_molecules co2 coexistence_molecules phase_diagram spce throughput tmmc widom"
tap_plan 11
cp "$T_SRCDIR"/../examples/*.xyz . 2>/dev/null
for ex in $shapes; do
    # same_bits's shortening (tap.sh), then further: no output key, ranges to their two ends, at
    # most 500 particles or molecules
    shorten_example $ex | awk '/^output *=/{next}
         /^(temperature|density|pressure) *= *[-0-9.e]+:[-0-9.e]+:[0-9]+/{sub(/:[0-9]+(:log)?$/, ":2"); print; next}
         /^(n|counts) *= *[0-9]+$/{split($0,a,"="); print a[1] "= " (a[2] + 0 > 500 ? 500 : a[2] + 0); next}
         {print}' > $ex.ini
    run_np 2 -q -o $ex.h5 $ex.ini > $ex.log 2>&1
    status=$?
    [ $status -eq 0 ] && "$PYTHON3" -c 'import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r"); u = f["results/%s/mean" % ("energy" if "results/energy" in f else "box0_energy")][...]
sys.exit(0 if u.size and np.isfinite(u).all() else 1)' $ex.h5
    ok $? "$ex: shortened, runs on 2 ranks (status $status) and writes a finite U/N (Gibbs: box 0's) at every state point" ||
        { diff "$T_SRCDIR/../examples/$ex.ini" $ex.ini; tail -5 $ex.log; } 2>&1 | diag
done
exit 0
