#!/usr/bin/env bash
# GPU call: .base (base.sh), this tree, and one copy of this tree per entry of VARIANTS
# ("name:nvcc flags;name2:flags2", each built with `make NVCCFLAGS=...`), then `mcens-bench --case N`
# for each N in CASES (default 6 1) in every tree, alternating, REPEAT times (default 2). Lines that
# match BENCH_LINES (default: cases' rows and ratios) labelled by tree; with RUN_INI (a config file
# in this tree), also the wall time of `mcens -q RUN_INI` in each tree; BENCH_TIMEOUT (default 300 s)
# stops a run that hangs. (doc/performance.md version 31)
set -uo pipefail
. doc/device/base.sh
base_build_start
. doc/device/build.sh
base_build_wait
trees="before:$base after:$PWD"
IFS=';' read -ra vs <<< "${VARIANTS:-}"
for v in "${vs[@]}"; do
  name=${v%%:*} flags=${v#*:} dir=/tmp/variant-$name
  rm -rf "$dir"; cp -a "$PWD" "$dir"
  (cd "$dir" && make -j16 NVCCFLAGS="$flags" mcens mcens-bench > "$out/build-$name.log" 2>&1) || { echo "variant $name: build failed"; tail -5 "$out/build-$name.log"; continue; }
  trees="$trees $name:$dir"
done
echo "built all at $SECONDS s"
ini=$PWD/${RUN_INI:-}
for ((r = 0; r < ${REPEAT:-2}; r++)); do
  for c in ${CASES:-6 1}; do
    for t in $trees; do
      (cd "${t#*:}" && timeout -k 5 "${BENCH_TIMEOUT:-300}" ./mcens-bench --case "$c" 2>&1) | grep -E "${BENCH_LINES:-^$c|NVT|NPT|npt}" | cut -c1-120 | sed "s|^|${t%%:*}: |"
    done
  done
  for t in $trees; do
    [ -n "${RUN_INI:-}" ] || break
    rm -f /tmp/run.h5 /tmp/run.h5.ckpt; start=$(date +%s.%N)
    (cd "${t#*:}" && ./mcens -q -o /tmp/run.h5 "$ini" > "$out/run-${t%%:*}.txt" 2>&1) || echo "${t%%:*}: mcens failed"
    echo "${t%%:*}: $RUN_INI $(awk "BEGIN { print $(date +%s.%N) - $start }") s"
  done
  echo "round $r done at $SECONDS s"
done
