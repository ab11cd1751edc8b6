#!/usr/bin/env bash
# GPU call: the argon cluster with and without exchange, from the lattice and from the melt, at
# once on the one GPU (binaries from the last build in this tree, or built now).
set -uo pipefail
kit=$PWD/.devkit
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
export LD_LIBRARY_PATH="$kit/lib:${LD_LIBRARY_PATH:-}"
out=${OUT:-/tmp/out}; mkdir -p "$out"
bash .devkit/gpu-check all > "$out/gpu-check.txt" 2>&1 || { tail -20 "$out/gpu-check.txt"; exit 1; }
SECONDS=0
base() { sed -e "s/^replicas = .*/replicas = ${REPLICAS:-2}/" -e "s/^production = .*/production = ${PRODUCTION:-4000}/" examples/argon_cluster_pt.ini; }
base > pt_lattice.ini
base | sed 's/^start = lattice/start = melt/' > pt_melt.ini
sed 's/^exchange_every = .*/exchange_every = 0/' pt_lattice.ini > plain_lattice.ini
sed 's/^exchange_every = .*/exchange_every = 0/' pt_melt.ini > plain_melt.ini
for c in ${RUNS:-pt_lattice pt_melt plain_lattice plain_melt}; do
  ( timeout ${LIMIT:-560} ./mcens -o "$out/$c.h5" $c.ini > "$out/$c.txt" 2>&1; echo "$c status $? at $SECONDS s" >> "$out/status.txt" ) &
done
wait
cat "$out/status.txt"; tail -5 "$out"/pt_lattice.txt
# the files without their trajectories (the frames are most of their size)
for c in ${RUNS:-}; do
  [ -f "$out/$c.h5" ] || continue
  python3 - "$out/$c.h5" "$out/$c-small.h5" <<'PY'
import sys, h5py
src, dst = sys.argv[1], sys.argv[2]
with h5py.File(src, "r") as a, h5py.File(dst, "w") as b:
    for k in a:
        if k not in ("particles",):
            a.copy(k, b)
    for k, v in a.attrs.items():
        b.attrs[k] = v
PY
  rm -f "$out/$c.h5" "$out/$c.h5.ckpt"
done
rm -f "$out"/*.lock "$out"/t -r 2>/dev/null; rm -f "$out"/test-suite.log "$out"/make-all.log "$out"/autoreconf.log "$out"/gpus.txt
ls -la "$out"
