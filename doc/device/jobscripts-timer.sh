#!/usr/bin/env bash
# t/jobscripts.sh on the GPU machine with its scratch directory kept and mcens's own log shown (the
# script's mcens lines without -q), to see what its case 6 does there (the PBS time limit: a
# timer's SIGUSR1 to mpirun until the Ubuntu build of Open MPI 4.1.6 there was found not to pass it
# on; mcens --stop-after since). With TRACE=1 only the first six cases run, the PBS job script
# traced (bash -x) and case 6 limited to 60 s, and the trace's timer and signal lines are printed
# with the shell's, mpirun's and the process's signal state. $OUT gets the TAP output, the case's
# timer.txt and a listing of the scratch directory. Source build.sh first (it builds).
jobscripts_timer() {
  local edits=(-e 's/"\$MCENS" -q /"$MCENS" /') tap=$out/jobscripts.tap limit=400 start=$SECONDS scratch
  [ "${TRACE:-0}" = 1 ] && edits+=(-e 's/bash "queue\/\$1.sh")/bash -x "queue\/$1.sh")/'
                                   -e 's/timeout -s KILL 120 bash -c/timeout -s KILL 60 bash -c/') limit=200
  sed "${edits[@]}" t/jobscripts.sh |
    awk -v trace="${TRACE:-0}" '{print} trace == 1 && /^rm -rf queue\/\* long.h5\*/ {print "exit 0"}' > /tmp/jobscripts-loud.sh
  MCENS=$PWD/mcens MPIRUN=mpirun PYTHON3=python3 T_SRCDIR=$PWD/t TAP_KEEP_SCRATCH=1 \
    timeout "$limit" bash /tmp/jobscripts-loud.sh > "$tap" 2>&1
  echo "t/jobscripts.sh: status $? after $((SECONDS - start)) s"
  grep -E "^(ok|not ok)" "$tap" | cut -c1-150
  scratch=$(sed -n 's/^# scratch kept: //p' "$tap")
  [ -n "$scratch" ] && { cp "$scratch"/timer.txt "$out/" 2> /dev/null; ls -la "$scratch" > "$out/scratch.txt"; }
  if [ "${TRACE:-0}" = 1 ]; then
    grep -nE "^\++ .*(walltime|sleep|kill|wait|mpirun|trap|timer)|Forwarding|signal|stopped" "$out/timer.txt" | head -40 | cut -c1-200
    bash --version | head -1; mpirun --version 2>&1 | head -1; grep -i sig /proc/self/status
  else
    tail -25 "$out/timer.txt" 2> /dev/null
  fi
}
