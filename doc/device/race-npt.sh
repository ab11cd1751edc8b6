#!/usr/bin/env bash
# GPU call: build; compute-sanitizer racecheck and memcheck on the chain kernel (t/gpu_run.sh's
# chains.ini, nvt and npt, single and double); t/gpu_run.sh's single-precision npt drift case with
# its kernel-shape and moved-volume checks; mcens-bench's case 6. (doc/performance.md version 31)
set -uo pipefail
. doc/device/build.sh
. doc/device/sanitize.sh
py=python3
chains='[run]\nbackend = gpu\nprecision = %s\nequilibration = 2\nproduction = 4\nsample_every = 2\n[system]\nn = 108\n[potential]\ncutoff = 2.5\n[ensemble]\n'
sanitize_precisions "${chains}temperature = 1\ndensity = 0.8\nreplicas = 4\n"
sanitize_precisions "${chains}type = npt\npressure = 1\ntemperature = 1\ndensity = 0.8\nreplicas = 4\n"
printf '[run]\nseed = 31\nbackend = gpu\nprecision = single\nequilibration = 0\nproduction = 50\nsample_every = 5\n[system]\nn = 500\n[potential]\ncutoff = 3\n[ensemble]\ntype = npt\npressure = 1\ntemperature = 1\ndensity = 0.8\nreplicas = 4\n' > d.ini
rm -f d.h5; ./mcens -q -o d.h5 d.ini; echo "npt single drift run: status $?"
$py t/h5check.py paths d.h5 many-chains-npt; echo "paths: $?"
$py t/h5check.py moved_volume d.h5 0.8; echo "moved_volume: $?"
./mcens-bench --case 6 2>&1 | grep -E "^6|case 6" | cut -c1-120
echo "done at $SECONDS s"
