#!/bin/bash
# Slurm: one node, 8 GPUs, one MPI rank per GPU. mcens binds each rank to GPU (node-local rank mod
# device count) and logs the binding. Submit: sbatch jobscripts/slurm-gpu.sh config.ini [OUTPUT]
# Ten minutes before the time limit Slurm sends SIGUSR1 to every rank: mcens finishes its round,
# writes OUTPUT.ckpt and exits with status 3; the job then queues itself again and continues
# with --restart, bit-identically, until the run is done (at most the work since the last
# checkpoint is lost even if the node dies: [run] checkpoint_every).
#SBATCH --job-name=mcens
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --cpus-per-task=1
#SBATCH --time=24:00:00
#SBATCH --signal=USR1@600
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=mcens-%j.log
set -euo pipefail
config=${1:?usage: sbatch slurm-gpu.sh CONFIG [OUTPUT]}
output=${2:-$(basename "$config" .ini).h5}
if [ -e "$output" ]; then echo "$output exists: the run is complete"; exit 0; fi
resume=(); [ -e "$output.ckpt" ] && resume=(--restart)
RANKS_PER_NODE=${SLURM_NTASKS_PER_NODE:-${SLURM_NTASKS:-8}} JOB_TAG=${SLURM_JOB_ID:-$$}
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
status=0
# srun starts the ranks with Slurm's PMI; mpirun -np "$SLURM_NTASKS" works as well under Open MPI
srun --cpu-bind=cores mcens "${resume[@]}" -o "$output" "$config" || status=$?
if [ "$status" -eq 3 ]; then scontrol requeue "$SLURM_JOB_ID"; fi # stopped with a checkpoint
exit "$status"
