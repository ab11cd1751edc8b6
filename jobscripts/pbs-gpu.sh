#!/bin/bash
# PBS Pro / OpenPBS: one node, 8 GPUs, one MPI rank per GPU. Submit: qsub -v CONFIG=config.ini jobscripts/pbs-gpu.sh
#PBS -N mcens
#PBS -l select=1:ncpus=8:mpiprocs=8:ngpus=8
#PBS -l walltime=24:00:00
#PBS -j oe
set -euo pipefail
cd "$PBS_O_WORKDIR"
mpirun -np 8 --map-by ppr:8:node --bind-to core mcens "${CONFIG:?qsub -v CONFIG=file.ini}"
