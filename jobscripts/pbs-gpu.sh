#!/bin/bash
# PBS Pro / OpenPBS: one node, 8 GPUs, one MPI rank per GPU.
# Submit: qsub -v CONFIG=config.ini[,OUTPUT=out.h5] jobscripts/pbs-gpu.sh
# PBS gives no warning before the walltime, so a timer sends SIGUSR1 to mpirun (which passes it
# to the ranks) STOP_BEFORE seconds before it: mcens writes OUTPUT.ckpt and exits with status 3,
# and the job submits itself again to continue with --restart, bit-identically.
#PBS -N mcens
#PBS -l select=1:ncpus=8:mpiprocs=8:ngpus=8
#PBS -l walltime=24:00:00
#PBS -j oe
set -euo pipefail
cd "$PBS_O_WORKDIR"
config=${CONFIG:?qsub -v CONFIG=file.ini}
output=${OUTPUT:-$(basename "$config" .ini).h5}
walltime_s=$((24 * 3600)) stop_before_s=${STOP_BEFORE:-600}
if [ -e "$output" ]; then echo "$output exists: the run is complete"; exit 0; fi
resume=(); [ -e "$output.ckpt" ] && resume=(--restart)
mpirun -np 8 --map-by ppr:8:node --bind-to core mcens "${resume[@]}" -o "$output" "$config" &
mpirun_pid=$!
(sleep $((walltime_s - stop_before_s)) && kill -USR1 "$mpirun_pid") 2> /dev/null &
timer=$!
status=0
wait "$mpirun_pid" || status=$?
kill "$timer" 2> /dev/null || true
if [ "$status" -eq 3 ]; then qsub -v "CONFIG=$config,OUTPUT=$output" "$PBS_O_WORKDIR/jobscripts/pbs-gpu.sh"; fi
exit "$status"
