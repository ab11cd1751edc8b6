#!/bin/sh
# Every kind of config error, run under mpirun -np 2: a message naming file:line and key, a
# non-zero exit, and no output file (nor a .part) left behind.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"

good='[run]
output = out.h5
equilibration = 10
production = 20
sample_every = 10
[system]
n = 32
[potential]
cutoff = 1.5
[ensemble]
temperature = 1.0
density = 0.5
replicas = 2'

# case NAME "TEXT-EDIT (sed script)" "EXPECTED MESSAGE FRAGMENT"
cases='unknown section|s/^\[system\]/[sytem]/|bad.ini:6: unknown section [sytem]
unknown key|s/^n = 32/nparticles = 32/|bad.ini:7: unknown key '"'"'nparticles'"'"' in [system]
negative n|s/^n = 32/n = -5/|bad.ini:7: [system] n = '"'"'-5'"'"': expected an integer >= 2
malformed number|s/^temperature = 1.0/temperature = hot/|bad.ini:11: [ensemble] temperature = '"'"'hot'"'"': expected a number > 0
bad range|s/^density = 0.5/density = 0.1:0.5/|bad.ini:12: [ensemble] density
cutoff beyond half box|s/^cutoff = 1.5/cutoff = 2.1/|bad.ini:9: [potential] cutoff = 2.1: expected at most half the box edge
density cannot hold n|s/^density = 0.5/density = 2.5/;s/^cutoff = 1.5/cutoff = 1.0/|bad.ini:12: [ensemble] density = 2.5 cannot hold n = 32
missing required key|/^temperature/d|missing required key '"'"'temperature'"'"' in [ensemble]
duplicate key|s/^n = 32/n = 32\nn = 33/|bad.ini:8: [system] n given twice (first on line 7)
sample_every not a divisor|s/^sample_every = 10/sample_every = 7/|bad.ini:5: [run] sample_every = 7: expected a divisor of production = 20
bad boolean|s/^cutoff = 1.5/cutoff = 1.5\ntail_correction = perhaps/|bad.ini:10: [potential] tail_correction = '"'"'perhaps'"'"': expected yes or no
unknown ensemble|s/^\[ensemble\]/[ensemble]\ntype = muvt/|bad.ini:11: [ensemble] type = '"'"'muvt'"'"': expected one of nvt
not an INI line|s/^n = 32/n 32/|bad.ini:7: cannot parse this line
wall in a periodic box|s/^replicas = 2/replicas = 2\n[wall]\nradius = 5/|bad.ini:15: [wall] radius: a wall confines an open cluster
site species not defined|$a [molecules]\ntypes = m\ncounts = 16\ngeometry = X 0 0 0; Y 0 0 1|bad.ini:17: site species '"'"'Y'"'"': without [mixture] every site is the [potential] species
geometry file missing|$a [molecules]\ntypes = m\ncounts = 32\ngeometry = nofile.xyz|bad.ini:17: [molecules] geometry: cannot open
output directory missing|s#^output = out.h5#output = nodir/out.h5#|nodir/out.h5.lock: cannot create the lock file: No such file or directory (does the output directory exist
step beyond the box|$a [moves]\nmax_displacement = 30|bad.ini:15: [moves] max_displacement = 30: expected at most half the box edge
cutoff inside the core|s/^cutoff = 1.5/cutoff = 1e-300/|bad.ini:9: [potential] cutoff = 1e-300: expected at least the core diameter 1'

count=$(printf '%s\n' "$cases" | wc -l)
tap_plan "$count"
printf '%s\n' "$cases" | while IFS='|' read -r name edit want; do
    rm -rf ./*.h5 ./*.part nodir
    printf '%s\n' "$good" | sed "$edit" > bad.ini
    run_np 2 -q bad.ini > out.txt 2>&1; rc=$?
    leftovers=$(ls ./*.h5 ./*.part nodir 2>/dev/null)
    [ $rc -ne 0 ] && grep -qF -- "$want" out.txt && [ -z "$leftovers" ]
    status=$?
    ok $status "$name: '$want', exit $rc, no output"
    [ $status -eq 0 ] || diag < out.txt
done
exit 0
