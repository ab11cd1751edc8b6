#!/bin/sh
# Command line: help, version, dry run, output override, refusing to overwrite, rank count.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 19
cp "$T_SRCDIR/small.ini" .

"$MCENS" --help > out.txt 2>&1; rc=$?
grep -q "usage: mcens" out.txt; ok $((rc + $?)) "--help prints usage and exits 0"

"$MCENS" --version > out.txt 2>&1; rc=$?
grep -q "^mcens [0-9]" out.txt; ok $((rc + $?)) "--version prints the version"

"$MCENS" > out.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "expected exactly one CONFIG" out.txt; ok $? "no CONFIG: usage error, exit 2"

"$MCENS" --stop-after 0 small.ini > out.txt 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "stop-after 0: expected seconds, above 0" out.txt; ok $? "--stop-after 0: usage error, exit 2"

run_np 1 nosuch.ini > out.txt 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "nosuch.ini: cannot open" out.txt; ok $? "missing config file named in the error"

run_np 2 --dry-run small.ini > out.txt 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "state points: 3 x 2 replicas = 6 chains" out.txt &&
    grep -qE "^rank 1/2 .*chains 3-5, backend (cpu|gpu)" out.txt && grep -q "lattice = fcc    ; default" out.txt &&
    [ ! -e small.h5 ] && [ ! -e small.h5.part ]
ok $? "--dry-run prints plan, ranks and defaults, writes nothing"
diag < out.txt
# only the keys that apply: none of [mixture], [molecules] or [wall], Morse's or npt's, in a
# one-species LJ NVT run, and their count said; a key the config gives is shown all the same
! grep -qE "^(\[mixture\]|\[molecules\]|\[wall\]|morse_alpha|pressure|max_rotation|start_file) " out.txt &&
    grep -q "^max_displacement = " out.txt &&
    grep -qE "^\([0-9]+ keys that do not apply to this run are not shown" out.txt
ok $? "--dry-run leaves out the keys that do not apply, and says how many"

# the wall-time estimate: a run of a second or two takes what --dry-run said within a factor of 3
# (its calibration is a third of a second of the same chains' sweeps on the same backend; what it
# leaves out, exchange, checkpoints and the output, is small here)
sed -e "s/^n = 64/n = 216/" -e "s/^production = 200/production = 5000/" small.ini > timed.ini
run_np 2 --dry-run timed.ini > out.txt 2>&1
estimate=$(sed -n 's/^time: about \([0-9.e+]*\) s on this machine with 2 ranks.*/\1/p' out.txt)
run_np 2 -q -o timed.h5 timed.ini > run.txt 2>&1
took=$("$PYTHON3" -c 'import h5py, sys; print(h5py.File(sys.argv[1])["parameters"].attrs["run_seconds"])' timed.h5)
"$PYTHON3" -c 'import sys; e, t = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (t / 3 < e < 3 * t))' \
    "${estimate:-nan}" "${took:-nan}"
ok $? "--dry-run's wall time ($estimate s) is within a factor of 3 of the run's ($took s in /parameters@run_seconds)" ||
    grep "^time:" out.txt | diag

# --energy on atoms (t/charges.sh has molecules with charges against NIST): each chain's total on 2
# ranks is the engine's energy of the same starting lattice (a run whose one sweep of moves of
# 1e-12 changes nothing that shows), /chains/energy per particle times n
sed -e 's/^production = 200/production = 1/' -e 's/^equilibration = 100/equilibration = 0/' \
    -e 's/^sample_every = 10/sample_every = 1/' small.ini > still.ini
printf '[moves]\nmax_displacement = 1e-12\n' >> still.ini
run_np 2 --energy -o still-energy.h5 still.ini > energy.txt 2>&1 && run_np 2 -q -o still.h5 still.ini > run.txt 2>&1 &&
    grep -q "^energy of each chain's starting configuration" energy.txt &&
    "$PYTHON3" -c '
import h5py, numpy as np, sys
e, r = h5py.File(sys.argv[1])["energy"], h5py.File(sys.argv[2])
engine = r["chains/energy"][:, 0] * 64
total = e["total"][:]
print("# totals", total, "engine", engine)
sys.exit(not (len(total) == 6 and np.allclose(total, engine, rtol=1e-9, atol=0) and
              np.allclose(total, e["dispersion"][:] + e["tail"][:], rtol=1e-15) and "coulomb_real" not in e))' \
        still-energy.h5 still.h5
ok $? "--energy: each chain's total on 2 ranks is the engine's energy of its start, dispersion plus tail" ||
    cat energy.txt run.txt | diag
run_np 1 --energy -o gibbs-energy.h5 "$T_SRCDIR/../examples/coexistence.ini" > energy.txt 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "Gibbs ensemble's two boxes are not evaluated" energy.txt && [ ! -e gibbs-energy.h5 ] &&
    [ ! -e gibbs-energy.h5.part ]
ok $? "--energy refuses a Gibbs ensemble (status $rc), writing nothing" || diag < energy.txt

run_np 2 -q -o other.h5 small.ini > out.txt 2>&1; rc=$?
[ $rc -eq 0 ] && [ -f other.h5 ] && [ ! -e small.h5 ] && [ ! -e other.h5.part ]
ok $? "-o overrides [run] output; no .part left behind"
h5check parameters other.h5 small.ini; ok $? "/parameters holds the config text as given"

sum_before=$(md5sum other.h5)
run_np 2 -q -o other.h5 small.ini > out.txt 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "other.h5 exists; refusing to overwrite" out.txt &&
    [ "$(md5sum other.h5)" = "$sum_before" ] && [ ! -e other.h5.part ]
ok $? "an existing output is refused and left untouched"

sed 's/^seed = 11/seed = 11\noverwrite = yes/' small.ini > ow.ini
run_np 2 -q -o other.h5 ow.ini > out.txt 2>&1; rc=$?
[ $rc -eq 0 ] && [ "$(md5sum other.h5)" != "$sum_before" ]
ok $? "overwrite = yes replaces it"

run_np 7 -q small.ini > out.txt 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "7 ranks but only 6 chains" out.txt && [ ! -e small.h5 ]
ok $? "more ranks than chains is an error that says so"

MCENS_TEST_FAIL_RANK=1 run_np 3 -q small.ini > out.txt 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "rank 1: .*injected failure" out.txt && [ ! -e small.h5 ] && [ ! -e small.h5.part ]
ok $? "a failure on one rank ends the whole job with its message, no output, no hang"
diag < out.txt
"$MCENS" --config-reference > ref.md
# the README's table from its header to its last row, the header included (a header repeated
# inside it once showed as junk rows that a comparison of the rows alone let through)
awk '/^\| section \| key \| default \| meaning \|$/ {on = 1} on && !/^\|/ {exit} on' "$T_SRCDIR/../README.md" > readme-keys.md
cmp -s ref.md readme-keys.md; ok $? "README's config reference is exactly mcens --config-reference, header included"
"$MCENS" --output-reference > out-ref.md
missing=$(grep -vxF -f "$T_SRCDIR/../README.md" out-ref.md)
[ -s out-ref.md ] && [ -z "$missing" ]; ok $? "README's output layout has every row of mcens --output-reference" || printf '%s\n' "$missing" | diag
# the test hooks: every one the tests set is in mcens's table, and every one in the table is used
"$MCENS" --test-hooks | cut -f1 | cut -d= -f1 | sort > hooks-table.txt
grep -ho 'MCENS_TEST_[A-Z][A-Z_]*' "$T_SRCDIR"/*.sh "$T_SRCDIR"/*.c | sort -u > hooks-used.txt
[ -s hooks-table.txt ] && cmp -s hooks-table.txt hooks-used.txt
ok $? "mcens --test-hooks lists exactly the hooks the tests use" || diff hooks-table.txt hooks-used.txt | diag
exit 0
