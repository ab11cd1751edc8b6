#!/usr/bin/env bash
# One GPU-machine call for the session of charges in gcmc and the Gibbs ensemble (issues 43, 47):
# build; t/gpu_parity's gcmc and Gibbs cases; `mcens-bench --case 11` (gcmc chains on the GPU)
# REPEAT times (default 2); `mcens-bench --case cpu` (its G3 row: the densest gcmc window, one
# core); then at once, with GIBBS_SPCE=1, SPC/E water in the Gibbs ensemble at 525 K on
# GIBBS_RANKS CPU ranks (default 14; doc/device/gibbs-spce.ini with a replica a rank and 2500 +
# 4000 sweeps, stopped after GIBBS_TIMEOUT s: as run once, it reached 36% in 300 s beside the
# tests) beside t/jobscripts.sh (jobscripts-timer.sh). Everything comes back in $OUT/results.tgz.
set -uo pipefail
. doc/device/build.sh
. doc/device/jobscripts-timer.sh
make t/gpu_parity > "$out/parity-build.log" 2>&1 || tail -20 "$out/parity-build.log"
GPU_PARITY_ONLY="*g*" timeout 200 ./t/gpu_parity > "$out/parity.log" 2>&1
echo "gpu_parity (*g*): status $? after $SECONDS s; $(grep -c '^ok' "$out/parity.log") ok, $(grep -c '^not ok' "$out/parity.log") not ok"
for ((r = 0; r < ${REPEAT:-2}; r++)); do
  timeout 120 ./mcens-bench --case 11 2>&1 | grep -E "^11|all-pairs rate|mcens-bench:" | cut -c1-130
done
timeout 150 ./mcens-bench --case cpu 2>&1 | grep -E "^[A-Z][0-9] |mcens-bench:" | cut -c1-130
echo "bench done at $SECONDS s"
if [ "${GIBBS_SPCE:-0}" = 1 ]; then
  start=$SECONDS
  sed -e "s/^replicas = .*/replicas = ${GIBBS_RANKS:-14}/" -e 's/^equilibration = .*/equilibration = 2500/' \
      -e 's/^production = .*/production = 4000/' doc/device/gibbs-spce.ini > /tmp/gibbs-spce.ini
  timeout "${GIBBS_TIMEOUT:-280}" mpirun -np "${GIBBS_RANKS:-14}" ./mcens -o "$out/gibbs-spce.h5" /tmp/gibbs-spce.ini \
    > "$out/gibbs-spce.log" 2>&1 &
  gibbs=$!
fi
[ "${JOBSCRIPTS:-0}" = 1 ] && jobscripts_timer
if [ -n "${gibbs:-}" ]; then
  wait "$gibbs"; echo "Gibbs SPC/E: status $? after $((SECONDS - start)) s"
  grep -E "^ +0 |moves/s" "$out/gibbs-spce.log" | cut -c1-200
fi
# a call brings back a few files only: everything in one archive
(cd "$out" && tar czf /tmp/results.tgz --exclude=results.tgz . && rm -rf ./* && mv /tmp/results.tgz .)
