#!/usr/bin/env bash
# t/jobscripts.sh's first six cases on the GPU machine, the PBS job script traced (bash -x) and case
# 6's limit 60 s: where the timer's SIGUSR1 goes (case 6 failed there twice, the run never told of
# it). Prints the trace's timer and signal lines. Source build.sh first.
jobscripts_trace() {
  sed -e 's/"\$MCENS" -q /"$MCENS" /' -e 's/bash "queue\/\$1.sh")/bash -x "queue\/$1.sh")/' \
      -e 's/timeout -s KILL 120 bash -c/timeout -s KILL 60 bash -c/' t/jobscripts.sh |
    awk '{print} /^rm -rf queue\/\* long.h5\*/ {print "exit 0"}' > /tmp/jobscripts-trace.sh
  MCENS=$PWD/mcens MPIRUN=mpirun PYTHON3=python3 T_SRCDIR=$PWD/t TAP_KEEP_SCRATCH=1 \
    timeout 200 bash /tmp/jobscripts-trace.sh > "$out/trace.tap" 2>&1
  echo "trace: status $?"
  grep -E "^(ok|not ok)" "$out/trace.tap" | cut -c1-150
  local scratch
  scratch=$(sed -n 's/^# scratch kept: //p' "$out/trace.tap")
  grep -nE "^\++ .*(walltime|sleep|kill|wait|mpirun|trap|timer)|Forwarding|signal|stopped" "$scratch/timer.txt" | head -40 | cut -c1-200
  bash --version | head -1; mpirun --version 2>&1 | head -1; grep -i sig /proc/self/status
}
