#!/bin/sh
# GPU discovery and binding: each rank binds to GPU (local rank mod device count) and logs it.
# Skips where there is no GPU.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
[ "${ngpu:-0}" -gt 0 ] || tap_skip_all "no GPU"
"$MCENS" --version > /dev/null || exit 1
tap_plan 3
cp "$T_SRCDIR/small.ini" .
run_np 2 --dry-run small.ini > out.txt 2>&1
grep -q "^rank 0/2 .*GPU 0 of $ngpu: " out.txt; ok $? "rank 0 binds GPU 0 of $ngpu and logs it"
diag < out.txt
want=$((1 % ngpu))
grep -q "^rank 1/2 .*GPU $want of $ngpu: " out.txt; ok $? "rank 1 binds GPU $want (local rank 1 mod $ngpu)"
# two ranks on one visible GPU: each rank's line says that it shares it, and whether MPS serves it
CUDA_VISIBLE_DEVICES=0 run_np 2 --dry-run small.ini > shared.txt 2>&1
[ "$(grep -c "^rank [01]/2 .*GPU 0 of 1: .*, shared by 2 ranks of this node" shared.txt)" -eq 2 ]
ok $? "two ranks on one GPU: both say it is shared, and whether NVIDIA MPS serves it" || diag < shared.txt
exit 0
