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

# case NAME "TEXT-EDIT (sed script)" "EXPECTED MESSAGE FRAGMENT" ["VAR=VALUE"]
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
sample_every default not a divisor|/^sample_every/d;s/^production = 20/production = 25/|bad.ini:4: [run] production = 25: expected a multiple of sample_every = 10 (its default): give sample_every
bad boolean|s/^cutoff = 1.5/cutoff = 1.5\ntail_correction = perhaps/|bad.ini:10: [potential] tail_correction = '"'"'perhaps'"'"': expected yes or no
unknown ensemble|s/^\[ensemble\]/[ensemble]\ntype = muvt/|bad.ini:11: [ensemble] type = '"'"'muvt'"'"': expected one of nvt
not an INI line|s/^n = 32/n 32/|bad.ini:7: cannot parse this line
wall in a periodic box|s/^replicas = 2/replicas = 2\n[wall]\nradius = 5/|bad.ini:15: [wall] radius: a wall confines an open cluster
site species not defined|$a [molecules]\ntypes = m\ncounts = 16\ngeometry = X 0 0 0; Y 0 0 1|bad.ini:17: site species '"'"'Y'"'"': without [mixture] every site is the [potential] species
geometry file missing|$a [molecules]\ntypes = m\ncounts = 32\ngeometry = nofile.xyz|bad.ini:17: [molecules] geometry: cannot open
output directory missing|s#^output = out.h5#output = nodir/out.h5#|nodir/out.h5.lock: cannot create the lock file: No such file or directory (does the output directory exist
step beyond the box|$a [moves]\nmax_displacement = 30|bad.ini:15: [moves] max_displacement = 30: expected at most half the box edge
cutoff inside the core|s/^cutoff = 1.5/cutoff = 1e-300/|bad.ini:9: [potential] cutoff = 1e-300: expected at least the core diameter 1
sites beyond 2^31|$a [molecules]\ntypes = a, b\ncounts = 100000000, 100000000\ngeometry = X 0 0 0;X 0 0 1;X 0 1 0;X 1 0 0;X 1 1 1;X 0 1 1;X 1 0 1;X 1 1 0;X 2 0 0;X 0 2 0;X 0 0 2\x7cX 0 0 0;X 0 0 1;X 0 1 0;X 1 0 0;X 1 1 1;X 0 1 1;X 1 0 1;X 1 1 0;X 2 0 0;X 0 2 0;X 0 0 2|bad.ini:16: [molecules] counts: the molecules have 2200000000 sites in all; expected at most 100000000
mixture beyond the bound of n|/^n = 32/d;$a [mixture]\nspecies = A, B\ncounts = 60000000, 60000000\nsigma = 1, 1\nepsilon = 1, 1|bad.ini:15: [mixture] counts add up to 120000000 particles; expected at most 100000000
state points beyond the chain limit|s/^temperature = 1.0/temperature = 1:2:100000/;s/^density = 0.5/density = 0.1:0.5:100000/|bad.ini:11: [ensemble] temperature: 100000 temperatures x 100000 density values give 10000000000 state points
RDF beyond an MPI count|s/^temperature = 1.0/temperature = 1:2:1000/;$a [rdf]\nbins = 10000000|bad.ini:15: [rdf] bins = 10000000: 1000 state points x 1 pair rows x 10000000 bins = 10000000000 histogram cells
samples beyond memory|s/^production = 20/production = 1000000000000/;s/^sample_every = 10/sample_every = 1/|bad.ini:5: [run] sample_every: one chain'"'"'s state would take 1.6e+04 GB (mostly samples
particles beyond memory (10 MB machine)|s/^n = 32/n = 100000/|bad.ini:7: [system] n: one chain'"'"'s state would take 0.0112 GB (mostly particles), more than the 0.0|MCENS_TEST_HOST_MEMORY=10000000
pooled RDF beyond memory (1 MB machine)|$a [rdf]\nbins = 1000000|bad.ini:15: [rdf] bins = 1000000: the pooled results|MCENS_TEST_HOST_MEMORY=1000000
walker paths beyond memory (1 GB machine)|s/^temperature = 1.0/temperature = 1:2:100\nexchange_every = 10/;s/^replicas = 2/replicas = 100/;s/^production = 20/production = 1000000/;s/^sample_every = 10/sample_every = 1/|bad.ini:12: [ensemble] exchange_every: the walkers'"'"' paths (/chains/state) of 10000 chains x 1000000 samples need 40 GB|MCENS_TEST_HOST_MEMORY=1000000000
molecules that cannot fit the density|s/^density = 0.5/density = 1000/;s/^cutoff = 1.5/cutoff = none/;$a [molecules]\ntypes = m\ncounts = 16\ngeometry = X 0 0 0; X 0 0 0.1|bad.ini:12: [ensemble] density = 1000 cannot hold the 16 molecules
mass_density that cannot hold n, named as given|s/^density = 0.5/mass_density = 2.5/;s/^cutoff = 1.5/cutoff = 1.0/|bad.ini:12: [ensemble] mass_density = 2.5 cannot hold n = 32
a mass density given as density|s/^n = 32/n = 32\nunits = real/;s/^density = 0.5/density = 1400/|(if that is a mass density in kg/m^3, give it as [ensemble] mass_density)
molecule larger than its box|$a [molecules]\ntypes = m\ncounts = 16\ngeometry = X 0 0 0; X 0 0 2|bad.ini:17: [molecules] geometry: molecule m is 2 sigma across; the box of edge 3.175 (at density 0.5) needs at least 4: the molecule plus the cutoff
two sites in one place|$a [molecules]\ntypes = m\ncounts = 16\ngeometry = X 0 0 0; X 0 0 0|bad.ini:17: [molecules] geometry: molecule m has sites 1 and 2 at the same position
cluster lattice that cannot hold it|/^density/d;s/^n = 32/n = 32\nboundary = none\nlattice_constant = 0.01/|bad.ini:9: [system] lattice_constant = 0.01 cannot hold the 32 molecules
npt at a negative pressure|s/^density = 0.5/density = 0.5\ntype = npt\npressure = -1/|bad.ini:14: [ensemble] pressure = -1: expected > 0 with type = npt'

count=$(printf '%s\n' "$cases" | wc -l)
tap_plan "$count"
# (\x7c in a case is GNU sed's escape for |, the field separator here)
# an optional fourth field sets one environment variable (a test hook) for that case
printf '%s\n' "$cases" | while IFS='|' read -r name edit want env; do
    rm -rf ./*.h5 ./*.part nodir
    printf '%s\n' "$good" | sed "$edit" > bad.ini
    (if [ -n "$env" ]; then export "${env?}"; fi; run_np 2 -q bad.ini) > out.txt 2>&1; rc=$?
    leftovers=$(ls ./*.h5 ./*.part nodir 2>/dev/null)
    [ $rc -ne 0 ] && grep -qF -- "$want" out.txt && [ -z "$leftovers" ]
    status=$?
    ok $status "$name: '$want', exit $rc, no output"
    [ $status -eq 0 ] || diag < out.txt
done
exit 0
