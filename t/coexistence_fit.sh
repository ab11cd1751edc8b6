#!/bin/sh
# mcens-analyze coexistence: the critical point fitted to synthetic Gibbs-ensemble files drawn from
# known laws with noise of known standard error (a Lennard-Jones-like case in reduced units after
# NIST's Tc = 1.31, rho_c = 0.316, and an argon-like one in K and nm^-3): the truth recovered within
# 4 reported errors, errors honest over 200 seeds, NaN points skipped, a point above Tc flagged, the
# figure, and bad input. t/coexistence_fit_check.py writes and reads the files.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
. "$T_SRCDIR/tap_analyze.sh"
tap_plan 35
ccheck() { pycheck coexistence_fit_check.py "$@"; }
sum() { cksum < "$1"; }

# 1. the Lennard-Jones-like case: 9 temperatures from 0.85 to 1.25, default output paths
ccheck synth nist.h5 nist 1; ok $? "synthetic Gibbs-ensemble file: LJ-like, Tc = 1.31, rho_c = 0.316, 9 temperatures"
before=$(sum nist.h5)
analyze coexistence nist.h5; ok $? "coexistence runs on it" || diag < err.txt
diag < out.txt
cp out.txt nist.txt
ccheck recover nist.h5 nist-coexistence.h5 nist nist.txt
ok $? "Tc, rho_c, B, A within 4 reported errors of the truth; units, covariance, points and printed values"
ccheck png nist-coexistence/coexistence.png; ok $? "nist-coexistence/coexistence.png: a phase diagram, not a blank page"
[ "$(sum nist.h5)" = "$before" ]; ok $? "the run's file is not modified"
# --tmin: the temperatures below it stay out of the fit, and the file and table say why
analyze coexistence nist.h5 --tmin 0.95 --out tmin.h5 -o tmin-fig
"$PYTHON3" - <<'PY' > tmin.txt 2>&1
import h5py, sys
run, fit = h5py.File("nist.h5", "r"), h5py.File("tmin.h5", "r")
t = run["statepoints/temperature"][:]
low = [s for s in range(len(t)) if t[s] < 0.95]
used = fit["points/statepoint"][:].tolist()
reasons = [r.decode() if isinstance(r, bytes) else r for r in fit["skipped/reason"][:]]
print("below 0.95:", low, "fitted:", used, "reasons:", reasons)
sys.exit(not (low and fit["skipped/statepoint"][:].tolist() == low and all("below --tmin" in r for r in reasons)
              and sorted(used) == [s for s in range(len(t)) if s not in low]))
PY
ok $? "--tmin 0.95: the state points below it are skipped as 'below --tmin', the others fitted" || diag < tmin.txt

# 2. real units (K, nm^-3), --out and -o
ccheck synth argon.h5 argon 2; ok $? "synthetic file in real units: argon-like, Tc = 150.7 K, rho_c = 8.07 nm^-3"
analyze coexistence argon.h5 --out argon-fit.h5 -o argon-fig; ok $? "coexistence --out argon-fit.h5 -o argon-fig" || diag < err.txt
diag < out.txt
ccheck recover argon.h5 argon-fit.h5 argon out.txt; ok $? "argon: the truth within 4 reported errors; K, nm^-3 and nm^-3 / K"
ccheck png argon-fig/coexistence.png; ok $? "argon-fig/coexistence.png"

# 3. honest errors: the fit function of the script itself, on 200 independent data sets each
ccheck honesty "$MCENS_ANALYZE" nist 200; ok $? "LJ-like, 200 seeds: pulls' rms in [0.7, 1.3], mean in [-0.3, 0.3]; mean reduced chi^2 near 1"
ccheck honesty "$MCENS_ANALYZE" argon 200; ok $? "argon-like, 200 seeds: the same"
ccheck honesty "$MCENS_ANALYZE" steep 200
ok $? "Tc extrapolated, steep diameter (Tc and rho_c correlated by -0.87), 200 seeds: the same, so Tc's error is carried into rho_c's"

# 4. state points without two phases, without an error, and above Tc
ccheck synth skip.h5 nist 3 nan=0,4 noerr=2 above=1; ok $? "a file with 2 unseparated state points, one without errors, one above Tc"
analyze coexistence skip.h5; ok $? "coexistence runs on it" || diag < err.txt
diag < out.txt
cp out.txt skip.txt
ccheck skipped skip.h5 skip-coexistence.h5 skip.txt; ok $? "NaN and error-less points are not fitted; /skipped and the table say why"
ccheck above skip.h5 skip-coexistence.h5 skip.txt; ok $? "the point above the fitted Tc is flagged in the file, the table and a warning"
ccheck recover skip.h5 skip-coexistence.h5 nist skip.txt; ok $? "with them, Tc and rho_c are still within 4 reported errors of the truth"
ccheck png skip-coexistence/coexistence.png; ok $? "skip-coexistence/coexistence.png"

# negative controls: each check fails, and for the reason it exists
# fails MESSAGE: the last ccheck exited 1 with a FAIL line containing MESSAGE
fails() { [ $pyrc -eq 1 ] && printf '%s\n' "$pyout" | grep "^FAIL: " | grep -qF -- "$1"; }
cp nist-coexistence.h5 wrong-tc.h5
"$PYTHON3" -c '
import h5py; d = h5py.File("wrong-tc.h5", "r+")["parameters/Tc"]; d[()] = d[()] + 8 * d.attrs["stderr"]'
ccheck recover nist.h5 wrong-tc.h5 nist nist.txt; fails "errors from the truth"; ok $? "the recovery check fails on Tc moved by 8 errors"
cp nist-coexistence.h5 wrong-rhoc.h5
"$PYTHON3" -c '
import h5py; d = h5py.File("wrong-rhoc.h5", "r+")["parameters/rho_c"]; d[()] = d[()] - 8 * d.attrs["stderr"]'
ccheck recover nist.h5 wrong-rhoc.h5 nist nist.txt; fails "errors from the truth"; ok $? "the recovery check fails on rho_c moved by 8 errors"
ccheck honesty "$MCENS_ANALYZE" nist 200 scale=2; fails "not honest"; ok $? "the honesty check fails when the noise is twice the errors the files state"
ccheck honesty "$MCENS_ANALYZE" nist 200 beta=0.35; fails "not honest"; ok $? "the honesty check fails on data of exponent 0.35 (the fit's 0.326)"
ccheck honesty "$MCENS_ANALYZE" steep 200 tcfixed=1; fails "rho_c: rms"
ok $? "the honesty check fails on rho_c's error taken as if Tc were known (not propagated)"
ccheck skipped nist.h5 nist-coexistence.h5 nist.txt; fails "nothing to check"; ok $? "the skip check fails on a file with nothing to skip"
"$PYTHON3" -c 'from PIL import Image; Image.new("RGB", (1200, 800), "white").save("blank.png")'
ccheck png blank.png; fails "a blank figure"; ok $? "the figure check fails on a blank PNG"

# bad input: one line naming the problem, status 1, no traceback (bad: tap_analyze.sh)
before=$(sum nist-coexistence.h5)
bad "an existing output" "nist-coexistence.h5: exists; coexistence writes a new file (--force to replace it)" \
    coexistence nist.h5
[ "$(sum nist-coexistence.h5)" = "$before" ]; ok $? "the existing output is left as it was"
analyze coexistence nist.h5 --force; ok $? "--force replaces it" || diag < err.txt
before=$(sum nist.h5)
bad "--out naming the run's file" "nist.h5: is the run's file; coexistence writes a new file" \
    coexistence nist.h5 --out nist.h5 --force
[ "$(sum nist.h5)" = "$before" ]; ok $? "the run's file is left as it was"
ccheck synth few.h5 nist 4 nan=0,1,2,3,4,5,6 > /dev/null
bad "two temperatures" "few.h5: coexistence: 2 of 9 state points have finite liquid and vapour densities with standard errors (/results/liquid_density, /results/vapour_density); the fit needs at least 3 (no replica separated into two phases at T = 0.85, 0.9, 0.95, 1, 1.05, 1.1, 1.15)" \
    coexistence few.h5
ccheck synth novap.h5 nist 5 drop=vapour_density > /dev/null
bad "no vapour density" "novap.h5: coexistence: no /results/vapour_density: not a Gibbs-ensemble run ([ensemble] type = gibbs)" \
    coexistence novap.h5
bad "a missing file" "none.h5: no such file" coexistence none.h5
analyze summary nist.h5; ok $? "summary still reads the file (no /statepoints/box_length)" || diag < err.txt
exit 0
