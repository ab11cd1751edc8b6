#!/bin/sh
# NVT energy and pressure at the supercritical reference points against the Thol et al. (2016)
# equation of state, within 3 standard errors plus the equation-of-state spread (the tolerance
# stated in the reference file). N = 500, cutoff 3 with tail corrections.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 3
cp "$T_SRCDIR/eos.ini" .
ref="$T_SRCDIR/refdata/eos_supercritical.csv"
run_np 2 -q eos.ini > out.txt 2>&1; ok $? "NVT run at T = 1.5, 2.0 x rho = 0.3, 0.5 finishes"
diag < out.txt
h5check eos eos.h5 "$ref"; ok $? "U and P agree with the equation of state at all three reference points"
# negative control: the same comparison must reject a reference 0.05 off in U
awk -F, 'BEGIN{OFS=","} /^#/ || /^T,/ {print; next} {$3 = $3 + 0.05; print}' "$ref" > shifted.csv
h5check eos eos.h5 shifted.csv; [ $? -eq 1 ]; ok $? "the comparison rejects a reference shifted by 0.05 in U"
exit 0
