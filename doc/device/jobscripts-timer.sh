#!/usr/bin/env bash
# t/jobscripts.sh on the GPU machine with its scratch directory kept and mcens's own log shown (the
# script's mcens lines without -q), to see what its case 6 does there: the PBS timer's SIGUSR1,
# 3 s into a long run, which stopped it with a checkpoint on the CPU machines but had not after 120
# s on an H200 (the first call that ran the script there). $OUT gets the TAP output, the case's
# timer.txt and a listing of the scratch directory. Source build.sh first (it builds).
jobscripts_timer() {
  sed 's/"\$MCENS" -q /"$MCENS" /' t/jobscripts.sh > /tmp/jobscripts-loud.sh
  local start=$SECONDS
  MCENS=$PWD/mcens MPIRUN=mpirun PYTHON3=python3 T_SRCDIR=$PWD/t TAP_KEEP_SCRATCH=1 \
    timeout 400 bash /tmp/jobscripts-loud.sh > "$out/jobscripts.tap" 2>&1
  echo "t/jobscripts.sh: status $? after $((SECONDS - start)) s"
  grep -E "^(ok|not ok)" "$out/jobscripts.tap" | cut -c1-150
  local scratch
  scratch=$(sed -n 's/^# scratch kept: //p' "$out/jobscripts.tap")
  [ -n "$scratch" ] && { cp "$scratch"/timer.txt "$out/" 2> /dev/null; ls -la "$scratch" > "$out/scratch.txt"; }
  tail -25 "$out/timer.txt" 2> /dev/null
}
