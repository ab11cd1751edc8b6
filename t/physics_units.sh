#!/bin/sh
# Real units: argon (preset) in nm, kJ/mol, K and bar against the same system in reduced units.
# The chains must make the same decisions and every result agree to rounding.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 3
cp "$T_SRCDIR/units_reduced.ini" "$T_SRCDIR/units_real.ini" .
run_np 2 -q units_reduced.ini > out.txt 2>&1; ok $? "reduced-unit run finishes" || diag < out.txt
run_np 2 -q units_real.ini > out.txt 2>&1; ok $? "real-unit argon run finishes" || diag < out.txt
h5check units reduced.h5 real.h5 0.3405 119.8 39.948
ok $? "real-unit results equal the reduced ones times their units; k_B stated"
exit 0
