# tap_analyze.sh: helpers for the tests of mcens-analyze (sourced after tap.sh, in the scratch
# directory). MCENS_ANALYZE: the script under test, by default beside the mcens binary.
: "${MCENS_ANALYZE:=$(dirname "$MCENS")/mcens-analyze}"
# analyze ARGS...: mcens-analyze with stdout to out.txt and stderr to err.txt
analyze() { "$MCENS_ANALYZE" "$@" > out.txt 2> err.txt; }
# mcens_run NAME: run NAME.ini on 2 ranks (into run.txt)
mcens_run() { run_np 2 -q "$1.ini" > run.txt 2>&1; }
# bad NAME EXPECTED-MESSAGE ARGS...: mcens-analyze ARGS refuses its input as a user's error, with
# status 1 and one line on stderr holding EXPECTED-MESSAGE, no traceback; one TAP line
bad() {
    name=$1; msg=$2; shift 2
    analyze "$@"; rc=$?
    [ $rc -eq 1 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -qF -- "$msg" err.txt && ! grep -q Traceback err.txt
    ok $? "$name: '$msg', status 1" || diag < err.txt
}
