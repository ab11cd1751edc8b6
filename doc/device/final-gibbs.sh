#!/usr/bin/env bash
# GPU call: build, the parity tests, the full coexistence example with its timing; a small copy of
# its results (statepoints, results, parameters, species, per-chain separation and boxes) comes back.
set -uo pipefail
. doc/device/build.sh
echo "commit $(git rev-parse --short HEAD 2>/dev/null)"
if [ -z "${SKIP_PARITY:-}" ]; then
  make -j8 check TESTS="t/gpu_parity" > "$out/tests.log" 2>&1
  grep -E "^(FAIL|ERROR)" "$out/tests.log"; grep -c "^PASS" "$out/tests.log"
  grep -h "# gibbs\|# coordinate bound" t/gpu_parity.log | cut -c1-400
  echo "parity done at $SECONDS s"
fi
rm -f coexistence.h5 coexistence.h5.*
/usr/bin/time -f "example: %e s wall" ./mcens examples/coexistence.ini > "$out/example.txt" 2>&1
tail -28 "$out/example.txt"
python3 - <<'PY'
import h5py, os
out = os.environ.get("OUT", "/tmp/out")
with h5py.File("coexistence.h5", "r") as f, h5py.File(os.path.join(out, "coexistence-results.h5"), "w") as g:
    for name in ("statepoints", "results", "parameters", "species"):
        f.copy(name, g)
    for a, v in f.attrs.items(): g.attrs[a] = v
    c = g.create_group("chains")
    for name in ("separation", "box_length", "statepoint", "replica", "transfer_acceptance", "volume_acceptance",
                 "displacement_acceptance"):
        f.copy("chains/" + name, c)
print("small copy written")
PY
echo "done at $SECONDS s"
