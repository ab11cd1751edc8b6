#!/bin/sh
# The spherical wall of an open cluster: non-interacting particles (epsilon = 0) in a wall of
# radius 1 and k = 20 at kT = 1 sample the Boltzmann distribution of their radius (the final
# positions of 300 independent chains, a Kolmogorov-Smirnov test) and its mean energy; the same
# positions must fail against k = 40.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 3
cat > wall.ini <<'INI'
[run]
output = wall.h5
seed = 17
equilibration = 200
production = 400
sample_every = 4
[system]
n = 2
boundary = none
lattice_constant = 0.5
[potential]
epsilon = 0
cutoff = none
tail_correction = no
[wall]
radius = 1
strength = 20
[ensemble]
temperature = 1
replicas = 300
[rdf]
rmax = 2
bins = 20
INI
run_np 2 -q wall.ini > wall.txt 2>&1; ok $? "300 chains of two ideal particles in the wall run" || diag < wall.txt
h5check wall wall.h5 1 20; ok $? "radii follow r^2 exp(-k (r - R)^2 / 2kT) beyond R; the mean wall energy is exact"
[ -f wall.h5 ] && ! h5check wall wall.h5 1 40; ok $? "the same radii are rejected for k = 40"
exit 0
