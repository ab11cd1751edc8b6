#!/bin/bash
# Scaling of one config over rank counts on one node (one rank per GPU), as a table.
#   jobscripts/scaling.sh [--weak] CONFIG NP...          e.g. jobscripts/scaling.sh examples/throughput.ini 1 2 4 8
# Strong (default): the same config on each rank count; the per-chain data of every run must be
# bit-identical to the first run's (chains depend only on seed and chain index), else exit 1.
# --weak: [ensemble] replicas times NP, so every rank keeps the first run's load of chains.
# Each run's binding log (one line per rank: host, chains, GPU and PCI bus) is kept in
# scaling-NP.log. Rates are mcens's own /parameters@moves_per_second (attempted moves over the wall
# time of the rounds); the write time is that of the HDF5 file, from the run's last line.
# Environment: MPIRUN (default mpirun; may carry options), MCENS (default ./mcens or mcens on the PATH), PYTHON3.
set -uo pipefail
weak=0
[ "${1:-}" = --weak ] && weak=1 && shift
config=${1:?usage: scaling.sh [--weak] CONFIG NP...}
shift
[ $# -ge 1 ] || { echo "scaling.sh: give at least one rank count" >&2; exit 2; }
mpirun=${MPIRUN:-mpirun}
mcens=${MCENS:-$( [ -x ./mcens ] && echo ./mcens || echo mcens )}
python=${PYTHON3:-python3}
name=$(basename "$config" .ini)
replicas=$(sed -n 's/^replicas *= *\([0-9]*\).*/\1/p' "$config")
[ -n "$replicas" ] || replicas=1

# rate_of FILE: moves/s and chain count stored in the file
rate_of() {
    "$python" -c 'import h5py, sys
f = h5py.File(sys.argv[1], "r")
print("%.4g %d" % (f["parameters"].attrs["moves_per_second"], f["chains/statepoint"].shape[0]))' "$1"
}
# same_chains A B: every /chains dataset bit-identical
same_chains() {
    "$python" -c 'import h5py, sys
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
bad = [k for k in a["chains"] if a["chains"][k][...].tobytes() != b["chains"][k][...].tobytes()]
print(", ".join(bad) if bad else "identical")
sys.exit(1 if bad else 0)' "$1" "$2"
}

printf '| ranks | chains | moves/s | vs first | run s | write s | per-chain data |\n|---|---|---|---|---|---|---|\n'
rc=0 first_rate='' first_file=''
for np in "$@"; do
    run_config=$config
    if [ $weak -eq 1 ]; then
        run_config=scaling-$name-$np.ini
        sed "s/^replicas *= *[0-9]*/replicas = $((replicas * np))/" "$config" > "$run_config"
    fi
    out=scaling-$name-$np.h5
    rm -f "$out"
    # shellcheck disable=SC2086 # MPIRUN may carry options
    if ! $mpirun -np "$np" --bind-to none "$mcens" -o "$out" "$run_config" > "scaling-$np.log" 2>&1; then
        echo "scaling.sh: mpirun -np $np failed; see scaling-$np.log" >&2
        tail -5 "scaling-$np.log" >&2
        exit 1
    fi
    read -r rate chains < <(rate_of "$out")
    run_s=$(sed -n 's/.* in \([0-9.]*\) s: .*/\1/p' "scaling-$np.log")
    write_s=$(sed -n 's/^wrote .* in \([0-9.]*\) s$/\1/p' "scaling-$np.log")
    [ -z "$first_rate" ] && first_rate=$rate first_file=$out
    check='-'
    if [ $weak -eq 0 ] && [ "$out" != "$first_file" ]; then
        check=$(same_chains "$first_file" "$out") || rc=1
    fi
    ratio=$(awk -v a="$rate" -v b="$first_rate" 'BEGIN { printf "%.2f", a / b }')
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$np" "$chains" "$rate" "$ratio" "$run_s" "$write_s" "$check"
done
exit $rc
