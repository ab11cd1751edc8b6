#!/bin/sh
# The GPU that kernel shapes are chosen for (src/main.c agree_gpu_shape): a run records it in
# /parameters@gpu_sm_count and gpu_smem_per_block (0 for ranks that run on the CPU, GPU or not),
# its checkpoint keeps it, and a continued run takes the checkpointed run's SM count, and its shared
# memory a block where this run's GPUs have as much (else their own, with a warning). Without a
# GPU every value is 0, and the checks below say so.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 3
sed -e 's/^seed = 11/seed = 11\nbackend = cpu/' -e 's/^equilibration = 100/equilibration = 20/' \
    -e 's/^production = 200/production = 40/' "$T_SRCDIR/small.ini" > cpu.ini
run_np 2 -q -o cpu.h5 cpu.ini > cpu.txt 2>&1 && h5check gpu_shape cpu.h5 0 0
ok $? "ranks on the CPU backend record no GPU shape, GPU or not" || diag < cpu.txt
sed '/^backend = cpu/d' cpu.ini > auto.ini
run_np 2 -q -o run.h5 auto.ini > run.txt 2>&1 || diag < run.txt
# continued on the checkpointed run's GPU: an SM count and shared memory edited into its checkpoint
cp run.h5 kept.h5 && cp run.h5.ckpt kept.h5.ckpt
set -- $("$PYTHON3" "$T_SRCDIR/h5check.py" set_gpu_shape kept.h5.ckpt 7 1000)
run_np 1 -q --extend 20 -o kept.h5 auto.ini > kept.txt 2>&1 && h5check gpu_shape kept.h5 "$1" "$2"
ok $? "a continued run's kernels are shaped for the checkpointed run's GPU ($1 SMs, $2 bytes a block)" || diag < kept.txt
# more shared memory a block than this run's GPUs have: theirs, with a warning
cp run.h5 more.h5 && cp run.h5.ckpt more.h5.ckpt
set -- $("$PYTHON3" "$T_SRCDIR/h5check.py" set_gpu_shape more.h5.ckpt 7 1073741824)
if [ "$1" -gt 0 ]; then
    run_np 1 -q --extend 20 -o more.h5 auto.ini > more.txt 2>&1 && h5check gpu_shape more.h5 7 below:1073741824 &&
        grep -q "chose its GPU kernels for 1073741824 bytes of shared memory a block" more.txt
    ok $? "a checkpointed GPU with more shared memory a block than this run's: this run's, with a warning" || diag < more.txt
else
    skip "no GPU: the checkpoint records none"
fi
