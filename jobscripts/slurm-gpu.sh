#!/bin/bash
# Slurm: one node, 8 GPUs, one MPI rank per GPU. mcens binds each rank to GPU (node-local rank mod
# device count) and logs the binding. Submit: sbatch jobscripts/slurm-gpu.sh config.ini
#SBATCH --job-name=mcens
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=8
#SBATCH --gpus-per-node=8
#SBATCH --cpus-per-task=1
#SBATCH --time=24:00:00
#SBATCH --output=mcens-%j.log
set -euo pipefail
config=${1:?usage: sbatch slurm-gpu.sh CONFIG}
# srun starts the ranks with Slurm's PMI; mpirun -np "$SLURM_NTASKS" works as well under Open MPI
srun --cpu-bind=cores mcens "$config"
