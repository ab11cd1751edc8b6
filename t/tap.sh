# tap.sh: TAP helpers for the shell tests (sourced). Each test runs in its own scratch directory.
tap_n=0
tap_failed=0
tap_plan() { echo "1..$1"; }
tap_skip_all() { echo "1..0 # SKIP $1"; exit 0; }
ok() { # ok STATUS DESCRIPTION; returns STATUS, so a caller can add diagnostics on failure
    tap_n=$((tap_n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; tap_failed=1; fi
    return "$1"
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n # SKIP $1"; } # skip REASON: one test, numbered
diag() { sed 's/^/# /'; }
# whether Debian's python3-mdanalysis is importable (tests of it skip where it is not: the GPU machine)
have_module() { "$PYTHON3" -c "import $1" > /dev/null 2>&1; } # have_module NAME: can Python import it?
have_mdanalysis() { have_module MDAnalysis; }
: "${MCENS:?MCENS must name the mcens binary (make check sets it)}"
: "${MPIRUN:=mpirun}" "${PYTHON3:=python3}" "${T_SRCDIR:=$(cd "$(dirname "$0")" && pwd)}"
# pycheck SCRIPT CMD ARGS...: a check of t/SCRIPT, by t/checkrun.py's convention (0: it holds, 1:
# it fails, 2: the checker broke); its output goes to the TAP stream as diagnostics and stays in
# $pyout, and its exit status is returned (no pipe, so the status is the checker's own)
pycheck() {
    pyscript=$1; shift
    pyout=$("$PYTHON3" "$T_SRCDIR/$pyscript" "$@" 2>&1); pyrc=$?
    printf '%s\n' "$pyout" | diag
    return $pyrc
}
h5check() { pycheck h5check.py "$@"; }   # assertions on output files
gcheck() { pycheck gibbs_check.py "$@"; } # the Gibbs ensemble's checks
# refused_edit BASE NAME SED EXPECTED-TEXT: BASE.ini edited by SED into NAME.ini is refused (status
# 1, the fixed text EXPECTED-TEXT in the output) before BASE.h5 or its checkpoint is written; one
# TAP line "refused: NAME"
refused_edit() {
    sed "$3" "$1.ini" > "$2.ini"
    run_np 1 -q "$2.ini" > "$2.txt" 2>&1; rc=$?
    [ $rc -eq 1 ] && grep -qF "$4" "$2.txt" && [ ! -e "$1.h5" ] && [ ! -e "$1.h5.ckpt" ]
    ok $? "refused: $2" || diag < "$2.txt"
}
scratch=$(mktemp -d "${TMPDIR:-/tmp}/mcens-test.XXXXXX")
# TAP_KEEP_SCRATCH=1: the scratch directory is kept, for a look at a failure's files
if [ "${TAP_KEEP_SCRATCH:-0}" = 1 ]; then echo "# scratch kept: $scratch"; else trap 'rm -rf "$scratch"' EXIT; fi
cd "$scratch" || exit 1
# shorten_example NAME: examples/NAME.ini shortened as ../shared/tools/same-bits shortens it, edit
# for edit (100 + 200 sweeps, 2 replicas, two temperature ranges cut; sample_every 10 where unset),
# on the CPU backend ([run] backend = cpu), to stdout
shorten_example() {
    awk '/^(equilibration|production) *=/{split($0,a,"="); print a[1] "= " (a[1] ~ /^equil/ ? 100 : 200); next}
         /^replicas *=/{print "replicas = 2"; next} /^backend *=/{next} /^precision *=/{next}
         /^temperature *= *20:120:48:log/{print "temperature = 20:120:6:log"; next}
         /^temperature *= *0.7:1.2:11/{print "temperature = 0.8, 1.0"; next} {print}' "$T_SRCDIR/../examples/$1.ini" |
        awk 'BEGIN {set = 0} /^sample_every/ {set = 1} {line[NR] = $0}
             END {for (i = 1; i <= NR; i++) {print line[i]; if (line[i] ~ /^\[run\]/) {print "backend = cpu"; if (!set) print "sample_every = 10"}}}'
}
# spce_model: the SPC/E water model in mcens's keys (NIST's: O-H 0.1 nm, H-O-H 109.47 degrees, LJ on
# O only, epsilon/k_B = 78.19743111 K), [system] to [molecules] geometry; the caller adds counts
spce_model() {
    cat <<'EOF'
[system]
units = real
[mixture]
species = O, H
sigma = 0.316555789, 0
epsilon = 0.6501696177877252, 0
mass = 15.9994, 1.008
charge = -0.8476, 0.4238
[molecules]
types = water
geometry = O 0 0 0; H 0.1 0 0; H -0.033331324756823731 0.09428161427317179 0
EOF
}
# mpirun NP ARGS...: mcens under Open MPI with a time limit, so a hang fails instead of blocking;
# the limit says so on stderr (a quiet run's log would otherwise be empty: t/restart.sh 20 once
# failed so, its 4000-sweep restart beside a 2-rank run on the 2 cores taking over 600 s)
run_np() {
    local np=$1 run_status
    shift
    timeout 600 "$MPIRUN" -np "$np" "$MCENS" "$@" < /dev/null
    run_status=$?
    [ $run_status -eq 124 ] && echo "run_np: mcens $* did not end within 600 s: stopped (a hang, or a machine far too loaded)" >&2
    return $run_status
}
