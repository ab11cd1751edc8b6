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
status=0
# srun starts the ranks with Slurm's PMI; mpirun -np "$SLURM_NTASKS" works as well under Open MPI
srun --cpu-bind=cores mcens "${resume[@]}" -o "$output" "$config" || status=$?
if [ "$status" -eq 3 ]; then scontrol requeue "$SLURM_JOB_ID"; fi # stopped with a checkpoint
exit "$status"
