#!/bin/sh
# Same bits: eight example shapes (LJ sweep, NPT, mixture with Widom, diatomic, benzene, Gibbs
# coexistence, replica exchange of an open cluster, Morse), shortened as /work/shared/tools/same-bits
# shortens them, on 1, 2 and 3 ranks of the CPU backend: every dataset under /chains and /results is
# bit-identical across the rank counts and its digest (t/same_bits.py) equals the stored reference
# t/refdata/same_bits.sha256, made by commit 4d397f8 (before the engine's restructuring), except
# diatomic's, made again when examples/diatomic.ini moved to a one-phase liquid state (issue 48),
# and benzene's five pressure datasets, made again when the molecular virial took the centres'
# separation in each site pair's own periodic image (src/mc_rigid.h, mc_rigid_pair_image: with
# every pair under the minimum image, some pairs straddle half the box; 5701 -> 5669 bar, +- 800).
#
# `MCENS=./mcens t/same_bits.sh --update` (from the build directory, after make) rewrites the
# reference from the 1-rank runs. Run it ONLY for a change whose different bits are intended and
# explained in its commit message (which datasets change, and why); a refactoring must never need it.
#
# Nothing is excluded from the digest: the datasets that differ from run to run (wall time
# run_seconds, moves_per_second, creation_time, hosts, nranks) are attributes of /parameters, not
# datasets under /chains or /results; the shapes run twice (and on 1, 2 and 3 ranks) gave identical
# digests. benzene has only 2 chains (1 state point x 2 replicas), so it runs on 1 and 2 ranks.
#
# The runs are on the CPU backend ([run] backend = cpu, also on a machine with a GPU). Its loops are
# compiled for several x86-64 levels and the widest the CPU has runs (src/cpu_isa.h); vectors of
# another width add in another order, so the reference holds for the level it was made at (its
# header names it, from /parameters@cpu_isa): elsewhere the digest tests are skipped, saying so,
# and the rank-count tests still run.
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
update=0; [ "${1:-}" = "--update" ] && update=1
ref=$T_SRCDIR/refdata/same_bits.sha256
shapes="sweep npt_isotherm mixture diatomic benzene coexistence argon_cluster_pt morse"
[ $update -eq 1 ] || tap_plan 24
cp "$T_SRCDIR"/../examples/*.xyz . 2>/dev/null
# the x86-64 level the CPU loops of an output's rank 0 ran at, and the reference's (its header)
isa_of() { "$PYTHON3" -c 'import sys, h5py; a = h5py.File(sys.argv[1], "r")["parameters"].attrs["cpu_isa"]
print((a.decode() if isinstance(a, bytes) else str(a)).split()[0])' "$1" 2>/dev/null; }
ref_isa=$(sed -n 's/^# cpu_isa: *//p' "$ref")
digest() { PYTHONPATH="$T_SRCDIR${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON3" "$T_SRCDIR/same_bits.py" digest "$@"; }
for ex in $shapes; do
    shorten_example $ex > $ex.ini
    ranks="1 2 3"; [ $ex = benzene ] && ranks="1 2"
    [ $update -eq 1 ] && ranks=1
    status=0
    for np in $ranks; do
        if run_np $np -q -o $ex-$np.h5 $ex.ini > $ex-$np.log 2>&1 && digest $ex $ex-$np.h5 > $ex-$np.dig 2>&1; then :; else
            status=1
            { echo "$ex on $np ranks:"; tail -n 5 $ex-$np.log $ex-$np.dig; } 2>&1 | diag
            rm -f $ex-$np.dig
        fi
    done
    if [ $update -eq 1 ]; then
        [ $status -eq 0 ] || { echo "same_bits.sh --update: $ex failed, reference unchanged" >&2; exit 1; }
        continue
    fi
    ok $status "$ex: runs on $(echo $ranks | sed 's/ /, /g') ranks and its datasets are read"
    status=0
    for np in $ranks; do
        [ $np = 1 ] || diff $ex-1.dig $ex-$np.dig > diff$np.txt 2>&1 || { status=1; diag < diff$np.txt; }
    done
    ok $status "$ex: /chains and /results bit-identical on $(echo $ranks | sed 's/ /, /g') ranks"
    isa=$(isa_of $ex-1.h5)
    if [ "$isa" != "$ref_isa" ]; then
        skip "$ex: the reference was made with CPU loops at $ref_isa, this machine's run at ${isa:-?}"
        continue
    fi
    grep "^$ex " "$ref" > $ex-ref.dig 2>/dev/null
    [ -s $ex-ref.dig ] && diff $ex-ref.dig $ex-1.dig > diffref.txt 2>&1
    ok $? "$ex: digests equal t/refdata/same_bits.sha256" || { diag < diffref.txt; }
done
if [ $update -eq 1 ]; then
    { echo "# t/same_bits.sh's reference: shape, dataset, dtype, shape, sha256 of its bytes (t/same_bits.py)."
      echo "# Rewritten by 't/same_bits.sh --update' only for a change whose different bits its commit explains."
      echo "# cpu_isa: $(isa_of sweep-1.h5)"
      for ex in $shapes; do cat $ex-1.dig; done; } > "$ref.tmp" && mv "$ref.tmp" "$ref" && echo "wrote $ref"
fi
exit 0
