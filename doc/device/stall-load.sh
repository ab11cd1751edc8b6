#!/usr/bin/env bash
# Issue 44's item 5 on the GPU machine: t/faults.sh's stopped-rank case (2 ranks, stall_timeout =
# 2, one rank SIGSTOPped once its run is under way) alone and beside 14 busy 2-rank CPU runs (28
# processes on 16 cores), the stalled job's waiting rank and the load's ranks spinning in MPI
# (OMPI_MCA_mpi_yield_when_idle=0) or yielding (1, as make check now sets): seconds from SIGSTOP to
# the job's end, each capped at 90 s. Progress line by line on stdout.
set -uo pipefail
. doc/device/build.sh
root=$PWD
mkdir -p /tmp/stall && cd /tmp/stall || exit 1
printf '[run]\nseed = 9\nequilibration = 40\nproduction = 40000\nsample_every = 4\ncheckpoint_every = 0\nstall_timeout = 2\n[system]\nn = 200\n[potential]\ncutoff = 2.5\n[ensemble]\ntemperature = 2.0\ndensity = 0.5, 0.6\nreplicas = 2\n' > stall.ini
sed -e 's/^production = .*/production = 200000/' -e '/^backend/d' -e 's/^\[run\]/[run]\nbackend = cpu/' "$root/examples/argon.ini" > busy.ini
stall_once() { # LABEL YIELD
  rm -f stall.h5*
  OMPI_MCA_mpi_yield_when_idle=$2 mpirun -np 2 "$root/mcens" -o stall.h5 stall.ini > stall.txt 2>&1 < /dev/null &
  local pid=$! t=0
  for _ in $(seq 100); do [ -f stall.h5.lock ] && break; sleep 0.1; done
  sleep 1
  local victim=$(pgrep -P $pid -f "mcens -o stall.h5" | tail -1)
  kill -STOP "$victim"
  local t0=$SECONDS
  while kill -0 $pid 2> /dev/null && [ $((SECONDS - t0)) -lt 90 ]; do sleep 0.2; done
  local ended=$((SECONDS - t0)) alive=0
  kill -0 $pid 2> /dev/null && alive=1 && kill -KILL $pid
  kill -KILL "$victim" 2> /dev/null; wait $pid 2> /dev/null
  echo "$1: $([ $alive = 1 ] && echo "NOT ended after $ended s (killed)" || echo "ended $ended s after SIGSTOP"); $(grep -E 'did not report|did not finish|stall' stall.txt | head -1 | cut -c1-140)"
}
stall_once "alone, yield 1" 1
for load in 0 1; do
  pids=""
  for k in $(seq 14); do
    OMPI_MCA_mpi_yield_when_idle=$load timeout 400 mpirun -np 2 "$root/mcens" -q -o busy$k.h5 busy.ini > busy$k.txt 2>&1 < /dev/null &
    pids="$pids $!"
  done
  sleep 8
  echo "load (its ranks' yield $load): $(uptime | sed 's/.*load/load/')"
  [ $load = 0 ] && stall_once "under spinning load, stalled job's yield 0" 0
  stall_once "under load (yield $load), stalled job's yield 1" 1
  kill $pids 2> /dev/null; pkill -f busy.ini; sleep 1; rm -f busy*.h5*
done
echo "done at $SECONDS s"
