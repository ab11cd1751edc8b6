#!/bin/sh
# Binary mixture with an exact answer: two species with identical parameters under two names are
# the pure fluid (U, P and every species pair's g(r)); a mixture that is not (epsilon_AB = 0.8,
# off the Berthelot rule) must fail the same comparison. The same for Morse species (per-species
# alpha and r0; an unlike r0 of 1.2 instead of 1.1 must fail).
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 11
cp "$T_SRCDIR/mixture_pure.ini" "$T_SRCDIR/mixture_same.ini" .
run_np 2 -q mixture_pure.ini > pure.txt 2>&1; ok $? "pure fluid at T = 2, rho = 0.5 runs" || diag < pure.txt
run_np 2 -q mixture_same.ini > same.txt 2>&1; ok $? "A/B mixture of identical species runs" || diag < same.txt
h5check mixture_pure same.h5 pure.h5; ok $? "identical species: U, P, mu_ex of A and B, and g_AA, g_AB, g_BB are the pure fluid's"
h5check layout same.h5 1 2 500 100 800 2; ok $? "mixture output layout: g per species pair, /species"
sed 's/^epsilon = 1, 1/epsilon = 1, 1\npair_epsilon = A-B:0.8/; s/^production = 4000/production = 1000/; s/^output = same.h5/output = unlike.h5/' mixture_same.ini > unlike.ini
run_np 2 -q unlike.ini > unlike.txt 2>&1; ok $? "A/B mixture with epsilon_AB = 0.8 runs" || diag < unlike.txt
h5check mixture_pure unlike.h5 pure.h5; [ $? -eq 1 ]; ok $? "a mixture off the mixing rule is not the pure fluid"
sed 's/^cutoff = 3.0/type = morse\nmorse_alpha = 6\nmorse_r0 = 1.1\ncutoff = 2.5/; s/^output = pure.h5/output = mpure.h5/; s/^production = 4000/production = 2000/' \
    mixture_pure.ini > mpure.ini
sed 's/^cutoff = 3.0/type = morse\ncutoff = 2.5/; s/^sigma = 1, 1/morse_alpha = 6, 6\nmorse_r0 = 1.1, 1.1/; s/^output = same.h5/output = msame.h5/; s/^production = 4000/production = 2000/' \
    mixture_same.ini > msame.ini
run_np 2 -q mpure.ini > mpure.txt 2>&1; ok $? "pure Morse fluid runs" || diag < mpure.txt
run_np 2 -q msame.ini > msame.txt 2>&1; ok $? "A/B mixture of identical Morse species runs" || diag < msame.txt
h5check mixture_pure msame.h5 mpure.h5; ok $? "identical Morse species: U, P, mu_ex and every g(r) are the pure Morse fluid's"
sed 's/^morse_r0 = 1.1, 1.1/morse_r0 = 1.1, 1.1\npair_morse_r0 = A-B:1.2/; s/^output = msame.h5/output = munlike.h5/; s/^production = 2000/production = 1000/' msame.ini > munlike.ini
run_np 2 -q munlike.ini > munlike.txt 2>&1; ok $? "A/B Morse mixture with r0_AB = 1.2 runs" || diag < munlike.txt
h5check mixture_pure munlike.h5 mpure.h5; [ $? -eq 1 ]; ok $? "a Morse mixture off the mixing rule is not the pure fluid"
exit 0
