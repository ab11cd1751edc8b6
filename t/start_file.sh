#!/bin/sh
# [system] start = file: a run started from another run's final molecules (diatomics and atoms
# mixed, so that the [molecules] order matters) begins exactly there, and a start file that is
# wrong is refused with its file:line before any output is written.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 8
# the system (shared with t/start_h5.sh)
cp "$T_SRCDIR/start_molecules.ini" first.ini
run_np 2 -q first.ini > first.txt 2>&1; ok $? "48 diatomics and 16 atoms run from the lattice" || diag < first.txt
h5check write_start first.h5 1 start.txt; ok $? "chain 1's final molecules written as a start file"

# steps of 1e-12 nm and rad with no equilibration to adapt them: nothing moves, so the run must
# still hold the start file's molecules and the first run's final energy
sed 's/^output = .*/output = again.h5/; s/^equilibration = .*/equilibration = 0/; s/^production = .*/production = 10/;
     s/^units = real/units = real\nstart = file\nstart_file = start.txt/' first.ini > again.ini
printf '[moves]\nmax_displacement = 1e-12\nmax_rotation = 1e-12\n' >> again.ini
run_np 2 -q again.ini > again.txt 2>&1; ok $? "a run starts from the start file" || diag < again.txt
h5check started_from again.h5 start.txt first.h5 1 1e-9
ok $? "every chain starts at the file's centres and orientations, with the first run's final energy"

# bad_start NAME AWK-EDIT MESSAGE: the edited start file is refused with MESSAGE, and no output
tap_bad_start() {
    awk "$2" start.txt > bad.txt
    sed 's/^output = .*/output = bad.h5/; s/^start_file = .*/start_file = bad.txt/' again.ini > bad.ini
    run_np 2 -q bad.ini > bad.out 2>&1; rc=$?
    [ $rc -ne 0 ] && grep -qF -- "$3" bad.out && [ ! -e bad.h5 ] && [ ! -e bad.h5.part ]
    ok $? "$1: refused with '$3', nothing written" || diag < bad.out
}
# line 3 is molecule 0 (after the comment and the blank line), line 51 molecule 48, the first atom
tap_bad_start "molecules out of [molecules] order" 'NR == 3 { $1 = "Ar" } { print }' \
    "bad.txt:3: molecule 0: expected type AB (the [molecules] order), got Ar"
tap_bad_start "a quaternion that is not unit" 'NR == 51 { $5 = 2 * $5 + 0.5 } { print }' \
    "bad.txt:51: expected: type x y z qw qx qy qz (finite numbers, a unit quaternion)"
tap_bad_start "a centre that is not a number" 'NR == 4 { $2 = "nan" } { print }' \
    "bad.txt:4: expected: type x y z qw qx qy qz (finite numbers, a unit quaternion)"
tap_bad_start "two atoms at one place" 'NR == 52 { split(prev, a); $2 = a[2]; $3 = a[3]; $4 = a[4] } { prev = $0; print }' \
    "overlaps molecule 48 at the start"
exit 0
