#!/usr/bin/env bash
# GPU call: molecules' samples (RDF counts, an open cluster's Lindemann sums) taken on the device
# instead of on the host from fetched positions (issue 14: the argon-cluster row, case 8). Builds
# this tree and the commit before (its `git archive` in .base/base.tar, carried) at once; runs
# t/gpu_parity, t/gpu_run.sh and t/restart.sh through the GPU; compute-sanitizer on a small cluster
# with samples; then mcens-bench --case 8 of both trees. Results on stdout.
set -uo pipefail
. doc/device/base.sh
base_build_start
. doc/device/build.sh
. doc/device/sanitize.sh
gpu_tests "t/gpu_parity t/gpu_run.sh t/restart.sh"
grep -h "rigid samples" t/gpu_parity.log | sort | uniq -c | cut -c1-160
echo "tests done at $SECONDS s"
printf '[run]\nseed = 3\nequilibration = 4\nproduction = 8\nsample_every = 2\nprecision = double\n[system]\nboundary = none\nlattice_constant = 1.55\n[molecules]\ntypes = ar\ncounts = 108\ngeometry = Ar 0 0 0\n[potential]\ncutoff = 3\ntail_correction = no\n[wall]\nradius = 3\nstrength = 5\n[ensemble]\ntemperature = 0.3, 1.2\n' > san.ini
sanitize san.ini 2>&1 | grep "^sanitizer"
echo "sanitizers done at $SECONDS s"
base_build_wait
for tree in /tmp/base .; do
  $tree/mcens-bench --case 8 > b8.txt 2>&1
  echo "$( [ $tree = . ] && echo this || echo base): $(grep -E '^8 |^case 8' b8.txt | cut -c1-140 | tr '\n' ' ')"
done
echo "all done at $SECONDS s"
