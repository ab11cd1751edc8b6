#!/bin/sh
# NPT: the ln V random walk against an exact limit (ideal gas: <N/V> = P/kT, <V> = (N+1) kT/P)
# and against NVT (the run at the NVT pressure returns the NVT density; its virial pressure
# averages to the imposed one). Errors by blocking and replicas; tolerances 3 se.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 6
cp "$T_SRCDIR/npt_ideal.ini" "$T_SRCDIR/npt_nvt.ini" "$T_SRCDIR/npt.ini" .
run_np 2 -q npt_ideal.ini > ideal.txt 2>&1; ok $? "NPT ideal gas runs" || diag < ideal.txt
h5check npt_ideal ideal.h5; ok $? "ideal gas: <N/V> = P/kT and <V> = (N+1) kT/P"
run_np 2 -q npt_nvt.ini > nvt.txt 2>&1; ok $? "NVT at T = 2, rho = 0.5 runs" || diag < nvt.txt
p=$("$PYTHON3" "$T_SRCDIR/h5check.py" value nvt.h5 results/pressure/mean)
echo "pressure = $p" >> npt.ini
run_np 2 -q npt.ini > npt.txt 2>&1; ok $? "NPT at the NVT pressure ($p) runs" || diag < npt.txt
h5check npt_nvt nvt.h5 npt.h5; ok $? "NPT returns the NVT density; virial pressure = imposed"
h5check layout npt.h5 1 2 500 200 800; ok $? "NPT output has the common layout"
exit 0
