#!/bin/bash
# Slurm, CPU only: one rank per core on the CPU backend (each rank runs its chains serially).
# Submit: sbatch jobscripts/slurm-cpu.sh config.ini
#SBATCH --job-name=mcens-cpu
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=32
#SBATCH --cpus-per-task=1
#SBATCH --time=24:00:00
#SBATCH --output=mcens-%j.log
set -euo pipefail
config=${1:?usage: sbatch slurm-cpu.sh CONFIG}
srun --cpu-bind=cores mcens "$config"
