#!/bin/bash
# sass-same.sh: checks that two builds of the CUDA objects run the same machine code, for changes
# that only rename, comment or move code between files (same bits, same speed).
# usage: doc/device/sass-same.sh BASE_DIR NEW_DIR [MAP.sed]
#   BASE_DIR, NEW_DIR: folders of kernel objects (cuda/*.o of each build); MAP.sed: sed commands
#   mapping old demangled names to new (s/\bcells_trials_kernel\b/cells_trial_energy_kernel/ ...).
# Every function's SASS (cuobjdump -sass: instructions and their encodings) and resource usage
# (cuobjdump -res-usage: registers, stack, shared and constant memory) is keyed by its demangled
# name, mapped by MAP.sed on the base side, and compared over the union of each folder's objects,
# so that a file split into several compares as the functions it held. Needs cuobjdump and
# nvdisasm on PATH (or CUOBJDUMP=...); prints one line per function (instructions and resources
# apart) and exits 1 on any difference.
set -u
[ $# -ge 2 ] || { sed -n 4p "$0" | sed 's/^# //'; exit 2; }
base=$1 new=$2 map=${3:-/dev/null}
CUOBJDUMP=${CUOBJDUMP:-cuobjdump}
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

# split DIR SIDE MAPFILE: one file per function under $work/SIDE/, named by the hash of its
# (mapped) demangled name; the name itself is kept in $work/SIDE.names
split_side() {
    local dir=$1 side=$2 mapf=$3
    mkdir -p "$work/$side"
    for o in "$dir"/*.o; do
        "$CUOBJDUMP" -sass "$o" 2>/dev/null | awk '/Function :/ {print "@@FN " $3; next} /^[ \t]*\/\*([0-9a-f][0-9a-f][0-9a-f][0-9a-f]+\*\/| 0x)/ {gsub(/[ \t]+/, " "); print}'
        "$CUOBJDUMP" -res-usage "$o" 2>/dev/null | awk '/^ Function / {fn = $2; sub(/:$/, "", fn); getline r; print "@@FN " fn; print "@@RES" r}'
    done | while IFS= read -r line; do
        case $line in
        "@@FN "*)
            name=$(printf '%s\n' "${line#@@FN }" | c++filt | sed -f "$mapf")
            key=$(printf '%s' "$name" | sha1sum | cut -c1-16)
            printf '%s\t%s\n' "$key" "$name" >> "$work/$side.names" ;;
        "@@RES"*) printf '%s\n' "${line#@@RES}" >> "$work/$side/$key.res" ;;
        *) printf '%s\n' "$line" >> "$work/$side/$key" ;;
        esac
    done
    sort -u "$work/$side.names" -o "$work/$side.names"
}
split_side "$base" base "$map"
split_side "$new" new /dev/null

same=0 differ=0 res=0
while IFS=$'\t' read -r key name; do
    if [ ! -f "$work/new/$key" ]; then echo "MISSING in new: $name"; differ=$((differ + 1))
    elif ! cmp -s "$work/base/$key" "$work/new/$key"; then echo "DIFFERENT instructions: $name"; differ=$((differ + 1))
    elif ! cmp -s "$work/base/$key.res" "$work/new/$key.res"; then
        echo "same instructions, DIFFERENT resources: $name:$(tr -s ' ' < "$work/base/$key.res") ->$(tr -s ' ' < "$work/new/$key.res")"
        res=$((res + 1))
    else echo "same ($(grep -c '^ */\*[0-9a-f]' "$work/base/$key") instructions, same resources): $name"; same=$((same + 1)); fi
done < "$work/base.names"
while IFS=$'\t' read -r key name; do
    grep -q "^$key" "$work/base.names" || { echo "EXTRA in new: $name"; differ=$((differ + 1)); }
done < "$work/new.names"
echo "$same functions the same, $res with the same instructions but other resources, $differ different, missing or extra"
[ "$differ" -eq 0 ] && [ "$res" -eq 0 ]
