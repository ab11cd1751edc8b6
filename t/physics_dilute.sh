#!/bin/sh
# Dilute-gas limit at rho = 0.001, T = 1 and 2: U/N = rho dU/drho and Z - 1 = B2 rho (exact to
# O(rho^2), about 1e-3 relative), for the full potential (cutoff 3 with tail corrections) and for
# the potential truncated at 3 without them (whose pressure needs the impulsive correction), the
# shifted schemes, and the Morse potential.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 12
ref="$T_SRCDIR/refdata/dilute_limit_B2.csv"
cp "$T_SRCDIR/dilute.ini" full.ini
sed 's/^tail_correction = yes/tail_correction = no/; s/^output = full.h5/output = trunc.h5/' full.ini > trunc.ini
run_np 2 -q full.ini > out.txt 2>&1; ok $? "dilute run with tail corrections finishes"
h5check dilute full.h5 "$ref" dUdrho_full B2_full
ok $? "full potential: U/N and Z - 1 match rho dU/drho and B2 rho"
run_np 2 -q trunc.ini > out.txt 2>&1; ok $? "dilute run of the truncated potential finishes"
h5check dilute trunc.h5 "$ref" dUdrho_rc3_trunc_noLRC B2_rc3_trunc
ok $? "truncated potential: U/N and Z - 1 (with the impulsive term) match its own B2"
# negative control: the truncated run is not the full potential (tails missing: U off by 3e-4)
h5check dilute trunc.h5 "$ref" dUdrho_full B2_full; [ $? -eq 1 ]
ok $? "the truncated run is rejected against the full-potential limit"
# the two shifted potentials at rc = 2.5 (continuous: the virial pressure is the whole pressure)
for scheme in shifted:TS force_shifted:LFS; do
    name=${scheme%%:*} col=${scheme##*:}
    sed "s/^cutoff = 3.0/cutoff = 2.5\ncutoff_scheme = $name/; s/^tail_correction = yes/tail_correction = no/; s/^output = full.h5/output = $name.h5/" full.ini > $name.ini
    run_np 2 -q $name.ini > out.txt 2>&1; ok $? "dilute run, $name at 2.5, finishes" || diag < out.txt
    h5check dilute $name.h5 "$ref" "dUdrho_rc2.5_$col" "B2_rc2.5_$col"
    ok $? "$name at 2.5: U/N and Z - 1 match rho dU/drho and B2 rho"
done
# Morse (eps 1, alpha 6, r0 1.1), cutoff 2.5 with its tail corrections: the full potential's limit
# by quadrature (t/h5check.py dilute_morse), which also checks the Morse tail formulas
sed "s/^cutoff = 3.0/type = morse\nmorse_alpha = 6\nmorse_r0 = 1.1\ncutoff = 2.5/; s/^output = full.h5/output = morse.h5/" full.ini > morse.ini
run_np 2 -q morse.ini > out.txt 2>&1; ok $? "dilute Morse run finishes" || diag < out.txt
h5check dilute_morse morse.h5 1 6 1.1; ok $? "Morse: U/N, Z - 1 and mu_ex match its B2 and dU/drho"
h5check dilute_morse morse.h5 1 6 1.15; [ $? -eq 1 ]; ok $? "the check rejects the limit of r0 = 1.15"
exit 0
