#!/bin/sh
# Rigid molecules in the ensembles and potentials atoms have: Widom insertion of LJ and Morse
# diatomics in the dilute limit against their second virial coefficient by quadrature (beta mu_ex
# = 2 B2 rho, which also checks the molecular tail term), and NPT of a diatomic fluid against NVT
# (the run at the NVT pressure returns the NVT density; its molecular virial pressure averages to
# the imposed one). Errors by blocking and replicas; tolerances 3 se (plus the stated O(rho^2)).
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 9
cp "$T_SRCDIR/dilute_diatomic.ini" "$T_SRCDIR/npt_diatomic.ini" .
run_np 2 -q dilute_diatomic.ini > dilute.txt 2>&1; ok $? "dilute LJ diatomics with Widom insertion run" || diag < dilute.txt
h5check widom_diatomic dilute.h5 0.5 lj; ok $? "LJ diatomic: mu_ex = 2 B2 rho kT"
h5check widom_diatomic dilute.h5 0.6 lj; [ $? -eq 1 ]; ok $? "the check rejects the B2 of a bond of 0.6"
sed 's/^output = dilute.h5/output = morse.h5/; s/^cutoff = 3.0/type = morse\nmorse_alpha = 6\nmorse_r0 = 1.1\ncutoff = 2.5/' \
    dilute_diatomic.ini > morse.ini
run_np 2 -q morse.ini > morse.txt 2>&1; ok $? "dilute Morse diatomics with Widom insertion run" || diag < morse.txt
h5check widom_diatomic morse.h5 0.5 morse 1 6 1.1; ok $? "Morse diatomic: mu_ex = 2 B2 rho kT"
run_np 2 -q npt_diatomic.ini > nvt.txt 2>&1; ok $? "NVT diatomic fluid at T = 4, rho = 0.3 runs" || diag < nvt.txt
p=$("$PYTHON3" "$T_SRCDIR/h5check.py" value nvt.h5 results/pressure/mean)
sed "s/^output = nvt.h5/output = npt.h5/; s/^density = 0.3/density = 0.3\npressure = $p/; s/^temperature = 4.0/type = npt\ntemperature = 4.0/" \
    npt_diatomic.ini > npt.ini
run_np 2 -q npt.ini > npt.txt 2>&1; ok $? "NPT diatomic fluid at the NVT pressure ($p) runs" || diag < npt.txt
h5check npt_nvt nvt.h5 npt.h5; ok $? "molecular NPT returns the NVT density; virial pressure = imposed"
h5check rigid_layout npt.h5; ok $? "molecular NPT output: sites rebuilt from centres and orientations in the final box"
exit 0
