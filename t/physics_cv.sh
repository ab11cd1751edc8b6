#!/bin/sh
# Heat capacity from energy fluctuations (NVT) against the thermodynamic route: at T = 2 the
# configurational part C_V/N - 3/2 must equal dU/dT from the runs at T = 1.9 and 2.1.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 3
cp "$T_SRCDIR/heat_capacity.ini" .
run_np 2 -q heat_capacity.ini > out.txt 2>&1; ok $? "runs at T = 1.9, 2.0, 2.1 finish" || diag < out.txt
h5check cv_slope cv.h5; ok $? "fluctuation heat capacity agrees with dU/dT"
h5check cv_slope cv.h5 0.1; [ $? -eq 1 ]; ok $? "the comparison rejects a heat capacity 0.1 off"
exit 0
