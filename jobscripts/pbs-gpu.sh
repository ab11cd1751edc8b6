#!/bin/bash
# PBS Pro / OpenPBS: one node, 8 GPUs, one MPI rank per GPU, a run continued job after job until
# it is done. Submit from anywhere: qsub -v CONFIG=config.ini[,OUTPUT=out.h5] path/to/pbs-gpu.sh
# (relative paths are taken from the directory qsub was run in).
# Each job first queues its successor (-W depend=afterany), which starts whenever this job ends,
# however it ends: a job that finishes or fails removes it; a job killed at the walltime (or with
# its node) leaves it, and the successor continues from the last checkpoint with --restart,
# bit-identically ([run] checkpoint_every says how much can be lost). PBS gives no warning before
# the walltime, so mcens is given its time (--stop-after) to stop STOP_BEFORE seconds before it,
# read from the job itself (qstat), so it is stated once, below: mcens writes OUTPUT.ckpt and
# exits with status 3, and the successor continues. (Not a signal to mpirun: Open MPI 4.1.6 does
# not pass SIGUSR1 on to the ranks, measured on the GPU machine.) A failed run (any other
# status) leaves OUTPUT.failed, and no successor runs after it until that file is removed;
# MAX_JOBS (default 50) bounds the chain.
#PBS -N mcens
#PBS -l select=1:ncpus=8:mpiprocs=8:ngpus=8
#PBS -l walltime=24:00:00
#PBS -j oe
set -euo pipefail
cd "${PBS_O_WORKDIR:?not inside a PBS job: submit with qsub}"
config=${CONFIG:?qsub -v CONFIG=file.ini}
output=${OUTPUT:-$(basename "$config" .ini).h5}
job=${JOB:-1} max_jobs=${MAX_JOBS:-50} stop_before_s=${STOP_BEFORE:-600}
if [ -e "$output" ]; then echo "$output exists: the run is complete"; exit 0; fi
if [ -e "$output.failed" ]; then
    echo "$output.failed exists: an earlier job failed ($(cat "$output.failed")); remove it to continue"
    exit 1
fi
# the walltime this job was given, HH:MM:SS, from the server (the header's value, or qsub -l's)
walltime=$(qstat -f "$PBS_JOBID" 2> /dev/null | sed -n 's/^ *Resource_List.walltime = //p' | head -1)  || walltime=
walltime_s=$(echo "${walltime:-}" | awk -F: 'NF == 3 { print ($1 * 60 + $2) * 60 + $3 }')
# the successor: this script again (PBS runs a spooled copy of it, $0), from stdin, so that it
# need not know where the file was submitted from
next=
if [ "$job" -lt "$max_jobs" ]; then
    next=$(qsub -W depend=afterany:"$PBS_JOBID" \
        -v "CONFIG=$config,OUTPUT=$output,JOB=$((job + 1)),MAX_JOBS=$max_jobs,STOP_BEFORE=$stop_before_s" < "$0")
else
    echo "job $job of at most $max_jobs: no successor queued (MAX_JOBS)"
fi
resume=(); [ -e "$output.ckpt" ] && resume=(--restart)
RANKS_PER_NODE=8 JOB_TAG=$PBS_JOBID # the mpirun line's
# >>> MPS: the same block in slurm-gpu.sh and pbs-gpu.sh (a batch system runs a copy of the script,
# which cannot source a file beside it; t/jobscripts.sh checks that the two stay the same).
# More ranks than GPUs on the node: NVIDIA MPS, so that the ranks of one GPU run their kernels side
# by side instead of time-slicing it (measured on 4 H200s: -np 8 ran examples/throughput.ini at
# 0.54x of -np 4 without MPS). The daemon runs in this job's own directories, exported so that the
# ranks find it, and stops with the script; mcens's log says per rank whether its GPU is shared and
# served by MPS. (One node: a job over several nodes needs the daemon on each.)
gpus=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU ') || gpus=0
if [ "$gpus" -gt 0 ] && [ "$RANKS_PER_NODE" -gt "$gpus" ] && command -v nvidia-cuda-mps-control > /dev/null; then
    export CUDA_MPS_PIPE_DIRECTORY=${TMPDIR:-/tmp}/mcens-mps.$JOB_TAG CUDA_MPS_LOG_DIRECTORY=${TMPDIR:-/tmp}/mcens-mps.$JOB_TAG.log
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    if nvidia-cuda-mps-control -d; then
        trap 'echo quit | nvidia-cuda-mps-control' EXIT
        echo "$RANKS_PER_NODE ranks on $gpus GPUs: NVIDIA MPS started"
    else
        echo "$RANKS_PER_NODE ranks on $gpus GPUs: the MPS daemon did not start; the ranks of a GPU time-slice it"
    fi
fi
# <<< MPS
# the time left before STOP_BEFORE, counted from mcens's start (this script has run SECONDS)
stop=()
if [ -n "$walltime_s" ] && [ "$walltime_s" -gt $((stop_before_s + SECONDS)) ]; then
    stop=(--stop-after $((walltime_s - stop_before_s - SECONDS)))
else
    echo "walltime '${walltime:-unknown}' not read or not above STOP_BEFORE = $stop_before_s s: no --stop-after;" \
        "a job killed at the walltime continues from its last checkpoint"
fi
status=0
mpirun -np 8 --map-by ppr:8:node --bind-to core mcens "${resume[@]}" "${stop[@]}" -o "$output" "$config" || status=$?
case $status in
3) if [ -n "$next" ]; then echo "stopped with a checkpoint: job $((job + 1)) ($next) continues"
   else echo "stopped with a checkpoint; MAX_JOBS reached: submit again to continue"; fi ;;
0 | 4) [ -z "$next" ] || qdel "$next" ;; # 4: finished and written, with a warning in the log
*) echo "status $status in job $job ($PBS_JOBID)" > "$output.failed"
   [ -z "$next" ] || qdel "$next" ;;
esac
exit "$status"
