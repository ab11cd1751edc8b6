#!/bin/bash
# Damaged checkpoints are refused, never restarted into other numbers (issue 44): a bit flipped in
# any chain's state (a position, a running sum, a counter, a sample), in the checksum itself or in
# the sample count is caught on --restart before anything runs, the message names the file, the
# chain and the previous checkpoint, and the damaged file is left as it is; the previous
# checkpoint (OUTPUT.ckpt.prev) then continues the run bit-identically to an uninterrupted one. Bits
# flipped at random offsets of the file are refused or harmless, never silently different.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 11

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

# A bit flipped at random byte offsets of the file (the issue's probe: damage anywhere, in HDF5's
# own structures too, not only in the state): every flip is refused with an error and no output, or
# restarts bit-identically to the uninterrupted run (a flip in unused bytes); none restarts into
# other numbers, crashes or hangs. 16 offsets drawn with a fixed seed.
# the stopped run's files (its checkpoints, the output in progress), put back before each flip: a
# restart that finishes replaces them
mkdir stopped && cp run.h5.* stopped/
put_back() { rm -f run.h5 run.h5.*; cp stopped/* .; }
flips=$("$PYTHON3" -c "import os, random; print(*random.Random(44).sample(range(os.path.getsize('run.h5.ckpt')), 16))")
refused=0 same=0 bad=""
for offset in $flips; do
    put_back
    "$PYTHON3" -c "import sys; p, at = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, 'rb').read()); b[at] ^= 1 << (at % 8); open(p, 'wb').write(b)" run.h5.ckpt "$offset"
    timeout 120 "$MPIRUN" -np 2 "$MCENS" -q --restart run.ini > flip.txt 2>&1 < /dev/null; rc=$?
    if [ $rc -eq 1 ] && [ ! -e run.h5 ] && grep -q "mcens: error" flip.txt; then refused=$((refused + 1))
    elif [ $rc -eq 0 ] && h5check same_results full.h5 run.h5 > /dev/null; then same=$((same + 1))
    else bad="$bad offset $offset: status $rc, $(grep -m1 -E "error|Error|signal" flip.txt | cut -c1-160);"; fi
done
put_back
[ -z "$bad" ]
ok $? "16 bits flipped at random offsets: $refused refused, $same restarted bit-identically, none other" ||
    echo "$bad" | tr ';' '\n' | diag
mv run.h5.ckpt.prev run.h5.ckpt
run_np 3 -q --restart run.ini > prev.txt 2>&1 && h5check same_results full.h5 run.h5
ok $? "restarted from the previous checkpoint on 3 ranks: bit-identical to the uninterrupted run" || diag < prev.txt
exit 0
