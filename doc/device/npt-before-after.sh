#!/usr/bin/env bash
# GPU call: issue 14's shape B before and after the npt volume moves went into the chain kernel.
# Builds this tree and the commit before the change (its `git archive` in .base/base.tar, carried),
# then runs the same NPT and NVT configs (32 chains per SM of N = 500, rho 0.8, T = 1, P = 1, rc 3,
# single) through both `mcens` binaries, whole program, and prints their summary lines; then this
# tree's `mcens-bench --case 6`.
set -uo pipefail
. doc/device/build.sh
base=/tmp/base; rm -rf $base; mkdir -p $base; tar -xf .base/base.tar -C $base
(cd $base && ln -s "$kit" .devkit && autoreconf -fi > "$out/base-autoreconf.log" 2>&1 && ./configure > "$out/base-configure.log" 2>&1 &&
  make git_revision.h > "$out/base-build.log" 2>&1 && make -j"$(nproc)" mcens >> "$out/base-build.log" 2>&1) || { echo "base build failed"; tail -n 5 "$out"/base-*.log; exit 1; }
chains=4224 # 32 per SM of 132 (H100, H200), as mcens-bench --case 6
for ens in npt nvt; do
  printf '[run]\nequilibration = 0\nproduction = 400\nsample_every = 100\nprecision = single\n[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntype = %s\ntemperature = 1\ndensity = 0.8\n%sreplicas = %d\n' \
    $ens "$([ $ens = npt ] && echo 'pressure = 1\n')" $chains | sed 's/\\n/\n/g' > $ens.ini
  for tree in $base .; do
    rm -f $ens-*.h5*
    mpirun -np 1 $tree/mcens -o $ens-run.h5 $ens.ini > $ens.txt 2>&1
    echo "$ens $( [ $tree = . ] && echo after || echo before): $(grep -E 'moves/s' $ens.txt)"
  done
done
./mcens-bench --case 6 --out "$out/bench6.tsv" > "$out/bench6.txt" 2>&1; tail -5 "$out/bench6.txt"
echo "done at $SECONDS s"
