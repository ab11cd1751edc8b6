#!/bin/sh
# Binary mixture with an exact answer: two species with identical parameters under two names are
# the pure fluid (U, P and every species pair's g(r)); a mixture that is not (epsilon_AB = 0.8,
# off the Berthelot rule) must fail the same comparison. Mixtures run on the CPU backend.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 6
cp "$T_SRCDIR/mixture_pure.ini" "$T_SRCDIR/mixture_same.ini" .
run_np 2 -q mixture_pure.ini > pure.txt 2>&1; ok $? "pure fluid at T = 2, rho = 0.5 runs" || diag < pure.txt
run_np 2 -q mixture_same.ini > same.txt 2>&1; ok $? "A/B mixture of identical species runs" || diag < same.txt
h5check mixture_pure same.h5 pure.h5; ok $? "identical species: U, P, mu_ex of A and B, and g_AA, g_AB, g_BB are the pure fluid's"
h5check layout same.h5 1 2 500 100 800 2; ok $? "mixture output layout: g per species pair, /species"
sed 's/^epsilon = 1, 1/epsilon = 1, 1\npair_epsilon = A-B:0.8/; s/^production = 4000/production = 1000/; s/^output = same.h5/output = unlike.h5/' mixture_same.ini > unlike.ini
run_np 2 -q unlike.ini > unlike.txt 2>&1; ok $? "A/B mixture with epsilon_AB = 0.8 runs" || diag < unlike.txt
h5check mixture_pure unlike.h5 pure.h5; [ $? -eq 1 ]; ok $? "a mixture off the mixing rule is not the pure fluid"
exit 0
