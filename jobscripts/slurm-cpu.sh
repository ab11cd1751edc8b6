#!/bin/bash
# Slurm, CPU only: one rank per core on the CPU backend (each rank runs its chains serially).
# Submit: sbatch jobscripts/slurm-cpu.sh config.ini [OUTPUT]. Stops with a checkpoint ten minutes
# before the limit and queues itself again, like slurm-gpu.sh.
#SBATCH --job-name=mcens-cpu
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=32
#SBATCH --cpus-per-task=1
#SBATCH --time=24:00:00
#SBATCH --signal=USR1@600
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=mcens-%j.log
set -euo pipefail
config=${1:?usage: sbatch slurm-cpu.sh CONFIG [OUTPUT]}
output=${2:-$(basename "$config" .ini).h5}
if [ -e "$output" ]; then echo "$output exists: the run is complete"; exit 0; fi
resume=(); [ -e "$output.ckpt" ] && resume=(--restart)
status=0
srun --cpu-bind=cores mcens "${resume[@]}" -o "$output" "$config" || status=$?
if [ "$status" -eq 3 ]; then scontrol requeue "$SLURM_JOB_ID"; fi # stopped with a checkpoint
exit "$status"
