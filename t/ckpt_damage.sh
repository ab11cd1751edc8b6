#!/bin/bash
# Damaged checkpoints are refused, never restarted into other numbers (issue 44): a bit flipped in
# any chain's state (a position, a running sum, a counter, a sample), in the checksum itself or in
# the sample count is caught on --restart before anything runs, the message names the file, the
# chain and the previous checkpoint, and the damaged file is left as it is; the previous
# checkpoint (OUTPUT.ckpt.prev) then continues the run bit-identically to an uninterrupted one.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 10

cat > run.ini <<'INI'
[run]
output = run.h5
seed = 21
equilibration = 30
production = 60
sample_every = 3
checkpoint_every = 1e-6
[system]
n = 64
[potential]
cutoff = 2.5
[ensemble]
temperature = 1.5, 2.0
density = 0.5
replicas = 2
INI
run_np 2 -q -o full.h5 run.ini > full.txt 2>&1; ok $? "the uninterrupted run" || diag < full.txt

# stop after sweep 60 (status 0 of the signal's stop: a checkpoint and no output)
stop() { MCENS_TEST_KILL_AT=1:60 run_np 2 -q run.ini > stop.txt 2>&1; [ -e run.h5.ckpt ] && [ -e run.h5.ckpt.prev ]; }
stop; ok $? "a run killed after sweep 60 leaves its checkpoint and the one before (run.h5.ckpt.prev)" || diag < stop.txt

# damaged DESCRIPTION WHERE INDEX BIT EXPECTED: flip the bit in a copy of the checkpoint; --restart
# is refused with EXPECTED and leaves the damaged file as it is
damaged() {
    cp run.h5.ckpt good.ckpt
    h5check flip_bit run.h5.ckpt "$2" "$3" "$4" > /dev/null
    cp run.h5.ckpt bad.ckpt
    run_np 2 -q --restart run.ini > restart.txt 2>&1; rc=$?
    [ $rc -eq 1 ] && grep -qF "$5" restart.txt && cmp -s run.h5.ckpt bad.ckpt && [ ! -e run.h5 ]
    ok $? "refused: $1" || { h5check flip_bit bad.ckpt "$2" "$3" "$4"; diag < restart.txt; }
    cp good.ckpt run.h5.ckpt
}
damaged "a position's lowest bit, chain 3" chains/x 200 0 "chain 3's state does not match the checksum"
damaged "a running energy's sign, chain 0" chains/energy_pair 0 63 "chain 0's state does not match the checksum"
damaged "a step counter, chain 2" chains/step 2 5 "chain 2's state does not match the checksum"
damaged "a sample's exponent, chain 1" chains/series_energy 11 60 "chain 1's state does not match the checksum"
damaged "the checksum of chain 1" chains/checksum 1 17 "chain 1's state does not match the checksum"
damaged "the sample count" @nsamples 0 1 "samples after"
grep -qF "mv run.h5.ckpt.prev run.h5.ckpt" restart.txt
ok $? "the refusal says how to restart from the previous checkpoint" || diag < restart.txt
mv run.h5.ckpt.prev run.h5.ckpt
run_np 3 -q --restart run.ini > prev.txt 2>&1 && h5check same_results full.h5 run.h5
ok $? "restarted from the previous checkpoint on 3 ranks: bit-identical to the uninterrupted run" || diag < prev.txt
exit 0
