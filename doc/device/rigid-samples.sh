#!/usr/bin/env bash
# GPU call: molecules' samples (RDF counts, an open cluster's Lindemann sums) taken on the device
# instead of on the host from fetched positions (issue 14: the argon-cluster row, case 8). Builds
# this tree and the commit before (its `git archive` in .base/base.tar, carried) at once; runs
# t/gpu_parity, t/gpu_run.sh and t/restart.sh through the GPU; compute-sanitizer on a small cluster
# with samples; then mcens-bench --case 8 of both trees. Results on stdout.
set -uo pipefail
base=/tmp/base; rm -rf $base; mkdir -p $base; tar -xf .base/base.tar -C $base
kit0=$PWD/.devkit
(cd $base && ln -s "$kit0" .devkit && export CC=mpicc CPPFLAGS="-I$kit0/include" LDFLAGS="-L$kit0/lib -Wl,-rpath,$kit0/lib" &&
  autoreconf -fi > /tmp/base-autoreconf.log 2>&1 && ./configure > /tmp/base-configure.log 2>&1 &&
  make git_revision.h > /tmp/base-build.log 2>&1 && make -j6 mcens-bench >> /tmp/base-build.log 2>&1; echo $? > /tmp/base-rc) &
. doc/device/build.sh
. doc/device/sanitize.sh
gpu_tests "t/gpu_parity t/gpu_run.sh t/restart.sh"
grep -h "^not ok" t/*.log | cut -c1-160
grep -h "rigid samples" t/gpu_parity.log | sort | uniq -c | cut -c1-160
echo "tests done at $SECONDS s"
printf '[run]\nseed = 3\nequilibration = 4\nproduction = 8\nsample_every = 2\nprecision = double\n[system]\nboundary = none\nlattice_constant = 1.55\n[molecules]\ntypes = ar\ncounts = 108\ngeometry = Ar 0 0 0\n[potential]\ncutoff = 3\ntail_correction = no\n[wall]\nradius = 3\nstrength = 5\n[ensemble]\ntemperature = 0.3, 1.2\n' > san.ini
sanitize san.ini 2>&1 | grep "^sanitizer"
echo "sanitizers done at $SECONDS s"
wait; echo "base build: rc $(cat /tmp/base-rc)"
for tree in /tmp/base .; do
  $tree/mcens-bench --case 8 > b8.txt 2>&1
  echo "$( [ $tree = . ] && echo this || echo base): $(grep -E '^8 |^case 8' b8.txt | cut -c1-140 | tr '\n' ' ')"
done
echo "all done at $SECONDS s"
