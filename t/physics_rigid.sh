#!/bin/sh
# The rigid-body engine against the atomic one: a Lennard-Jones fluid of 108 single-site molecules
# is the same system as 108 atoms (T = 1.2, rho = 0.75, cutoff 2.5 with tails), so U, P (through
# the molecular virial) and g(r) of the site pairs and of the centres must agree within their
# errors; a fluid with sigma 1.05 must not. Then the three molecular examples' layout, shortened.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 9
atomic='[run]
output = atomic.h5
seed = 41
equilibration = 500
production = 3000
sample_every = 10
[system]
n = 108
[potential]
cutoff = 2.5
[ensemble]
temperature = 1.2
density = 0.75
replicas = 4
[rdf]
bins = 60'
printf '%s\n' "$atomic" > atomic.ini
printf '%s\n' "$atomic" | sed 's/^output = atomic.h5/output = rigid.h5/; s/^n = 108/start = lattice/' > rigid.ini
printf '[molecules]\ntypes = atom\ncounts = 108\ngeometry = Ar 0 0 0\n' >> rigid.ini
run_np 2 -q atomic.ini > atomic.txt 2>&1; ok $? "108 atoms run (atomic engine)" || diag < atomic.txt
run_np 2 -q rigid.ini > rigid.txt 2>&1; ok $? "108 single-site molecules run (rigid-body engine)" || diag < rigid.txt
h5check mixture_pure rigid.h5 atomic.h5 Ar-Ar,centres; ok $? "single-site molecules: U, P and g(r) of sites and centres are the atoms'"
sed 's/^output = rigid.h5/output = wide.h5/' rigid.ini > wide.ini
printf '[mixture]\nspecies = Ar\nsigma = 1.05\nepsilon = 1\n' >> wide.ini
run_np 2 -q wide.ini > wide.txt 2>&1; ok $? "sigma = 1.05 single-site molecules run" || diag < wide.txt
h5check mixture_pure wide.h5 atomic.h5 Ar-Ar,centres; [ $? -eq 1 ]; ok $? "a fluid of sigma 1.05 is rejected against the atoms"
# the examples, shortened: benzene from its XYZ file, and the cluster with its wall
for ex in benzene argon_cluster; do
    sed 's/^equilibration = .*/equilibration = 20/; s/^production = .*/production = 40/; s/^sample_every = .*/sample_every = 10/; s/^temperature = 20:120:11/temperature = 40, 100/' \
        "$T_SRCDIR/../examples/$ex.ini" > $ex.ini
    cp "$T_SRCDIR/../examples/benzene.xyz" .
    run_np 2 -q $ex.ini -o $ex.h5 > $ex.txt 2>&1; rc=$?
    [ $rc -eq 0 ] && h5check rigid_layout $ex.h5; ok $? "examples/$ex.ini (shortened) runs and writes molecules, centres, orientations" || diag < $ex.txt
done
# XYZ files are read in A by the format's convention in real units (benzene.xyz is in A;
# t/same_bits.sh holds the bits it gave in nm), or in the unit their comment line names; an A has
# no size in reduced units, where a file is in sigma and one that says unit=A is refused
printf '2\nAB in nm: unit=nm\nX 0 0 0\nX 0 0 0.2\n' > nm.xyz
printf '2\nAB in A\nX 0 0 0\nX 0 0 2\n' > a.xyz
sed -e 's/^\[potential\]/[system]\nunits = real\n[potential]/' rigid.ini | awk '/^\[molecules\]/{exit} {print}' > units.ini
for g in nm a; do
    { cat units.ini; printf '[molecules]\ntypes = ab\ncounts = 108\ngeometry = %s.xyz\n' $g; } |
        sed 's/^output = .*/output = '$g'.h5/; s/^equilibration = .*/equilibration = 10/; s/^production = .*/production = 20/; s/^sample_every = .*/sample_every = 10/' > $g.ini
    run_np 1 -q $g.ini > $g.txt 2>&1
done
h5check same_results nm.h5 a.h5
ok $? "an XYZ geometry in A (the default) and the same in nm (unit=nm) give the same molecule: the same bits" || cat nm.txt a.txt | diag
printf '2\nAB in A: unit=A\nX 0 0 0\nX 0 0 2\n' > ang.xyz
sed -e 's/^units = real$/units = reduced/' -e 's/^geometry = a.xyz/geometry = ang.xyz/' a.ini > reduced.ini
"$MCENS" --dry-run reduced.ini > reduced.txt 2>&1
[ $? -eq 1 ] && grep -q "ang.xyz:2: unit=A: expected sigma in reduced units" reduced.txt
ok $? "an XYZ file that says unit=A is refused in reduced units, naming its line" || diag < reduced.txt
exit 0
