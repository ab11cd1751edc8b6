#!/bin/sh
# Fuzz the config: mutated copies of examples/*.ini and t/*.ini (bytes, lines, numbers, NaN/inf,
# very long lines, duplicate keys, unknown sections; t/fuzz.py, seed 13) each under
# `mcens --dry-run` with a time limit. Every case must exit 0, or 1 with an error naming the file.
# MCENS_FUZZ_SECONDS (default 60) bounds the run; MCENS_FUZZ_CASES runs that many cases instead.
# A crash is kept under fuzz-crashes/ of the scratch directory and shown below.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 2
top=$(dirname "$T_SRCDIR")
# no sweeps for a wall-time estimate: each case a moment (t/cli.sh tests the estimate)
MCENS_TEST_NO_ESTIMATE=1; export MCENS_TEST_NO_ESTIMATE
fuzz() {
    "$PYTHON3" "$T_SRCDIR/fuzz.py" --mcens "$MCENS" --configs "$top"/examples/*.ini "$T_SRCDIR"/*.ini \
        --extra-files "$top/examples/benzene.xyz" --timeout 30 "$@"
}

fuzz --plain > plain.txt 2>&1; rc=$?
accepted=$(sed -n 's/^cases [0-9]* accepted \([0-9]*\) .*/\1/p' plain.txt)
[ $rc -eq 0 ] && [ "${accepted:-0}" -gt 0 ]
ok $? "the unmutated configs: $(tail -n 1 plain.txt)"
diag < plain.txt

if [ -n "${MCENS_FUZZ_CASES:-}" ]; then limit="--cases $MCENS_FUZZ_CASES"; else limit="--seconds ${MCENS_FUZZ_SECONDS:-60}"; fi
# shellcheck disable=SC2086 # $limit is two words
fuzz $limit --log cases.log > fuzz.txt 2>&1; rc=$?
ok $rc "mutated configs: $(tail -n 1 fuzz.txt)"
diag < fuzz.txt
for d in fuzz-crashes/*/; do
    [ -d "$d" ] || continue
    echo "$d:" | diag; cat "$d"/*.ini "$d/output.txt" | head -40 | diag
done
exit 0
