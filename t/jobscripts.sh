#!/bin/bash
# The batch scripts of jobscripts/, run under fake batch systems: qsub, qstat and qdel (PBS) and
# srun and scontrol (Slurm) that record what the script asks of them, and an mpirun that runs the
# real mcens on 2 ranks. A job is continued as the batch system would continue it (PBS: the
# successor the script queued, run as PBS runs it; Slurm: the script run again after its requeue)
# and its /chains and /results must equal an uninterrupted run's: after a stop signal (status 3),
# after the PBS timer's signal taken from the job's walltime, and after the whole job is killed as
# at the walltime. A failed run queues nothing further; a complete one stops the chain.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 19
# the MPS daemon the job scripts start is the tests' business: a caller's own (the GPU machine's
# suite run exports these with MPS=1) would show as one the scripts passed on
unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
jobscripts=$T_SRCDIR/../jobscripts
real_mpirun=$(command -v "$MPIRUN")

mkdir bin queue
# mpirun [its options] mcens ARGS: the real mcens on 2 ranks (exec: the timer's signal reaches it)
cat > bin/mpirun <<EOF
#!/bin/bash
while [ \$# -gt 0 ] && [ "\$1" != mcens ]; do shift; done; shift
exec "$real_mpirun" -np 2 --oversubscribe "$MCENS" -q "\$@" < /dev/null
EOF
# srun [its options] mcens ARGS: the same
sed 's/^#!.*/#!\/bin\/bash/' bin/mpirun > bin/srun
# qsub [-W depend=afterany:ID] -v VARS < SCRIPT: queue/N.{sh,vars,depend}; prints the job's id
cat > bin/qsub <<'EOF'
#!/bin/bash
q=$FAKE_QUEUE; n=$(( $(ls "$q" | grep -c '\.sh$') + 1 ))
while [ $# -gt 0 ]; do
    case $1 in -W) echo "$2" > "$q/$n.depend"; shift 2 ;; -v) echo "$2" > "$q/$n.vars"; shift 2 ;; *) shift ;; esac
done
cat > "$q/$n.sh"; echo "$n.fake"
EOF
cat > bin/qstat <<'EOF'
#!/bin/bash
[ "$1" = -f ] && echo "Job Id: $2" && echo "    Resource_List.walltime = $FAKE_WALLTIME"
EOF
# nvidia-smi -L: FAKE_GPUS lines (0 by default: no MPS); nvidia-cuda-mps-control: records its
# arguments and what it reads (the quit); the launchers record the MPS pipe the ranks inherit
cat > bin/nvidia-smi <<'EOF'
#!/bin/bash
for ((g = 0; g < ${FAKE_GPUS:-0}; g++)); do echo "GPU $g: fake (UUID: GPU-$g)"; done
EOF
cat > bin/nvidia-cuda-mps-control <<'EOF'
#!/bin/bash
if [ "$1" = -d ]; then echo "start $CUDA_MPS_PIPE_DIRECTORY"; else echo "$(cat)"; fi >> "$FAKE_QUEUE/mps.log"
EOF
sed -i '2i echo "${CUDA_MPS_PIPE_DIRECTORY:-none}" >> "$FAKE_QUEUE/launch_env.log"' bin/mpirun bin/srun
printf '#!/bin/bash\necho "$@" >> "$FAKE_QUEUE/qdel.log"\n' > bin/qdel
printf '#!/bin/bash\necho "$@" >> "$FAKE_QUEUE/scontrol.log"\n' > bin/scontrol
chmod +x bin/*
export scratch PATH=$scratch/bin:$PATH FAKE_QUEUE=$scratch/queue FAKE_WALLTIME=24:00:00

# pbs_job N: run queued job N as PBS would (its -v variables, PBS_JOBID, from the work directory)
pbs_job() {
    local vars
    vars=$(tr ',' '\n' < "queue/$1.vars" | sed 's/^/export /')
    (eval "$vars"; PBS_O_WORKDIR=$scratch PBS_JOBID=$1.fake bash "queue/$1.sh")
}
# pbs_submit VARS: what qsub -v VARS jobscripts/pbs-gpu.sh queues
pbs_submit() { qsub -v "$1" < "$jobscripts/pbs-gpu.sh" > /dev/null; }
queued() { ls queue | grep -c '\.sh$'; }

cat > lj.ini <<'EOF'
[run]
seed = 11
equilibration = 200
production = 2000
sample_every = 10
checkpoint_every = 1e-6
[system]
n = 108
[potential]
cutoff = 2.5
[ensemble]
temperature = 1.5
density = 0.6
replicas = 2
EOF
"$real_mpirun" -np 2 "$MCENS" -q -o full.h5 lj.ini > full.txt 2>&1
ok $? "an uninterrupted run" || diag < full.txt

# --- PBS: a stop signal, the successor continues -----------------------------------------
pbs_submit CONFIG=lj.ini,OUTPUT=stop.h5
MCENS_TEST_SIGNAL_AT=1:300 pbs_job 1 > job1.txt 2>&1; s1=$?
[ $s1 -eq 3 ] && [ -e stop.h5.ckpt ] && [ ! -e stop.h5 ] && [ "$(queued)" -eq 2 ] &&
    grep -qx 'depend=afterany:1.fake' queue/2.depend && grep -q 'JOB=2' queue/2.vars && [ ! -e queue/qdel.log ]
ok $? "pbs: stopped by a signal (status $s1), the checkpoint written, job 2 queued after job 1" ||
    { cat job1.txt; ls queue; cat queue/*.depend queue/*.vars; } | diag
pbs_job 2 > job2.txt 2>&1; s2=$?
[ $s2 -eq 0 ] && h5check same_results full.h5 stop.h5
ok $? "pbs: job 2 continues with --restart to the end (status $s2), bit-identical to an uninterrupted run" || diag < job2.txt
[ "$(cat queue/qdel.log)" = 3.fake ]
ok $? "pbs: the job that finished removed its successor (job 3)" || ls queue | diag
pbs_job 3 > job3.txt 2>&1; s3=$?
[ $s3 -eq 0 ] && grep -q 'the run is complete' job3.txt && [ "$(queued)" -eq 3 ]
ok $? "pbs: a successor that runs anyway finds the run complete and queues nothing" || diag < job3.txt
rm -rf queue/*

# --- PBS: the timer, from the job's own walltime -----------------------------------------
# walltime 10:05 and STOP_BEFORE 600 s: mcens --stop-after 5 (less the script's own seconds), of a
# run that takes far longer. (The script used to send SIGUSR1 to mpirun; Open MPI 4.1.6 on the GPU
# machine does not pass it on, and the run went on to this test's 120 s limit.)
sed 's/^production = .*/production = 100000000/' lj.ini > long.ini
pbs_submit CONFIG=long.ini,OUTPUT=long.h5,STOP_BEFORE=600
start=$SECONDS
FAKE_WALLTIME=00:10:05 timeout -s KILL 120 bash -c "$(declare -f pbs_job); pbs_job 1" > timer.txt 2>&1; st=$?
took=$((SECONDS - start))
[ $st -eq 3 ] && [ -e long.h5.ckpt ] && [ $took -lt 120 ] && grep -q 'STOP_BEFORE=600' queue/2.vars &&
    grep -q 'mcens: stopped at --stop-after [0-9]* s after sweep' timer.txt
ok $? "pbs: --stop-after from the walltime 00:10:05 stopped the run with a checkpoint after $took s (status $st)" ||
    diag < timer.txt
rm -rf queue/* long.h5*

# --- PBS: the whole job killed, as at the walltime ---------------------------------------
pbs_submit CONFIG=lj.ini,OUTPUT=kill.h5
# 4000 sweeps: a checkpoint every round makes the run last several seconds, so the kill lands
# mid-run (0.5 s after the first checkpoint) while the two full runs stay short
sed 's/^production = .*/production = 4000/' lj.ini > kill.ini
sed -i 's/CONFIG=lj.ini/CONFIG=kill.ini/' queue/1.vars
"$real_mpirun" -np 2 "$MCENS" -q -o kill-full.h5 kill.ini > kill-full.txt 2>&1
setsid bash -c "$(declare -f pbs_job); pbs_job 1" > kill1.txt 2>&1 &
job_pid=$!
for _ in $(seq 600); do [ -e kill.h5.ckpt ] && break; sleep 0.1; done
sleep 0.5
# the batch system kills every process of the job: the script, mpirun and the ranks (which Open
# MPI starts in process groups of their own)
kill -KILL -- -"$job_pid" 2> /dev/null; pkill -KILL -f -- "-o kill.h5 kill.ini"; wait "$job_pid" 2> /dev/null
for _ in $(seq 50); do pgrep -f -- "-o kill.h5 kill.ini" > /dev/null || break; sleep 0.1; done
[ -e kill.h5.ckpt ] && [ ! -e kill.h5 ] && [ "$(queued)" -eq 2 ] && [ ! -e kill.h5.failed ]
ok $? "pbs: a job killed mid-run (SIGKILL to all its processes) leaves a checkpoint and its successor queued" ||
    { diag < kill1.txt; ls | diag; }
pbs_job 2 > kill2.txt 2>&1; s2=$?
[ $s2 -eq 0 ] && h5check same_results kill-full.h5 kill.h5
ok $? "pbs: its successor continues to the end (status $s2), bit-identical to an uninterrupted run" || diag < kill2.txt
rm -rf queue/*

# --- PBS: a failed run stops the chain ---------------------------------------------------
printf '[run]\nseed = 1\n[system]\nn = -4\n' > bad.ini
pbs_submit CONFIG=bad.ini,OUTPUT=bad.h5
pbs_job 1 > bad1.txt 2>&1; sb=$?
[ $sb -ne 0 ] && [ $sb -ne 3 ] && [ -e bad.h5.failed ] && [ "$(cat queue/qdel.log)" = 2.fake ]
ok $? "pbs: a failed run (status $sb) leaves bad.h5.failed and removes its successor" || diag < bad1.txt
pbs_job 2 > bad2.txt 2>&1; sb2=$?
[ $sb2 -eq 1 ] && grep -q 'bad.h5.failed exists' bad2.txt && [ "$(queued)" -eq 2 ]
ok $? "pbs: a successor that runs anyway stops at bad.h5.failed and queues nothing" || diag < bad2.txt
rm -rf queue/*

# --- PBS: MAX_JOBS bounds the chain; outside a job the script refuses ----------------------
pbs_submit CONFIG=long.ini,OUTPUT=max.h5,JOB=3,MAX_JOBS=3
MCENS_TEST_SIGNAL_AT=0:50 pbs_job 1 > max.txt 2>&1; sm=$?
[ $sm -eq 3 ] && [ "$(queued)" -eq 1 ] && grep -q 'MAX_JOBS' max.txt
ok $? "pbs: job 3 of MAX_JOBS = 3 queues no successor and says so (status $sm)" || diag < max.txt
rm -rf queue/* max.h5*
(unset PBS_O_WORKDIR; CONFIG=lj.ini bash "$jobscripts/pbs-gpu.sh") > nopbs.txt 2>&1; sn=$?
[ $sn -ne 0 ] && grep -q 'submit with qsub' nopbs.txt && [ ! -e lj.h5 ]
ok $? "pbs: run outside a job, it refuses (status $sn) and starts nothing" || diag < nopbs.txt

# --- Slurm: the signal before the time limit, then the requeued job ----------------------
MCENS_TEST_SIGNAL_AT=0:700 SLURM_JOB_ID=77 bash "$jobscripts/slurm-gpu.sh" lj.ini slurm.h5 > slurm1.txt 2>&1; s1=$?
[ $s1 -eq 3 ] && [ -e slurm.h5.ckpt ] && [ "$(cat queue/scontrol.log)" = "requeue 77" ]
ok $? "slurm: stopped by the signal (status $s1), checkpoint written, job requeued" || diag < slurm1.txt
SLURM_JOB_ID=77 bash "$jobscripts/slurm-gpu.sh" lj.ini slurm.h5 > slurm2.txt 2>&1; s2=$?
[ $s2 -eq 0 ] && h5check same_results full.h5 slurm.h5 && [ "$(wc -l < queue/scontrol.log)" -eq 1 ]
ok $? "slurm: the requeued job continues to the end (status $s2), bit-identical, and is not requeued again" ||
    diag < slurm2.txt
SLURM_JOB_ID=77 bash "$jobscripts/slurm-gpu.sh" lj.ini slurm.h5 > slurm3.txt 2>&1; s3=$?
[ $s3 -eq 0 ] && grep -q 'the run is complete' slurm3.txt
ok $? "slurm: run again once complete, it does nothing (status $s3)" || diag < slurm3.txt

# --- more ranks than GPUs: NVIDIA MPS for the job, stopped after it -----------------------
mps_block() { sed -n '/^# >>> MPS/,/^# <<< MPS/p' "$jobscripts/$1"; }
[ -n "$(mps_block slurm-gpu.sh)" ] && [ "$(mps_block slurm-gpu.sh)" = "$(mps_block pbs-gpu.sh)" ]
ok $? "the MPS block is the same in both scripts"
sed -e 's/^production = 2000/production = 200/' lj.ini > short.ini
mps_dir=${TMPDIR:-/tmp}/mcens-mps
rm -f queue/mps.log queue/launch_env.log
FAKE_GPUS=4 SLURM_NTASKS_PER_NODE=8 SLURM_JOB_ID=78 bash "$jobscripts/slurm-gpu.sh" short.ini mps.h5 > mps1.txt 2>&1; s1=$?
[ $s1 -eq 0 ] && [ "$(cat queue/mps.log)" = "$(printf 'start %s\nquit' "$mps_dir.78")" ] &&
    [ "$(cat queue/launch_env.log)" = "$mps_dir.78" ] && grep -q "8 ranks on 4 GPUs: NVIDIA MPS started" mps1.txt
ok $? "slurm: 8 ranks on 4 GPUs start an MPS daemon the ranks inherit, stopped at the job's end" ||
    { cat mps1.txt queue/mps.log queue/launch_env.log; } | diag
rm -f queue/mps.log queue/launch_env.log mps.h5*
FAKE_GPUS=8 SLURM_NTASKS_PER_NODE=8 SLURM_JOB_ID=79 bash "$jobscripts/slurm-gpu.sh" short.ini mps.h5 > mps2.txt 2>&1; s2=$?
[ $s2 -eq 0 ] && [ ! -e queue/mps.log ] && [ "$(cat queue/launch_env.log)" = none ]
ok $? "slurm: a rank a GPU starts no MPS daemon" || { cat mps2.txt queue/launch_env.log; } | diag
rm -f queue/mps.log queue/launch_env.log mps.h5*
pbs_submit CONFIG=short.ini,OUTPUT=mps.h5
n=$(queued)
FAKE_GPUS=2 pbs_job "$n" > mps3.txt 2>&1; s3=$?
[ $s3 -eq 0 ] && [ "$(cat queue/mps.log)" = "$(printf 'start %s\nquit' "$mps_dir.$n.fake")" ] &&
    [ "$(cat queue/launch_env.log)" = "$mps_dir.$n.fake" ]
ok $? "pbs: 8 ranks on 2 GPUs start an MPS daemon the ranks inherit, stopped at the job's end" ||
    { cat mps3.txt queue/mps.log queue/launch_env.log; } | diag
exit $tap_failed
