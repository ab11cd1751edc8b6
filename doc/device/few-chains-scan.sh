#!/usr/bin/env bash
# Issue 45: the few-chains path's shape, scanned: mcens-bench --case 14 (its few-chains rows) built
# with each BATCH_MEDIUM_CHUNK in CHUNKS (default "8 16 32") and BATCH_DECIDE_THREADS in THREADS
# (default "64 256"), at K = 64; then the tree's own build at each K of KS (default "96").
set -uo pipefail
. doc/device/build.sh
rows() { grep -E "^14 .*few-chains" "$1" | awk '{printf "%s %s: %s  ", $2, $NF == "nan" ? $(NF-5) : "", $(NF-4)}'; echo; }
for c in ${CHUNKS:-8 16 32}; do
  for t in ${THREADS:-64 256}; do
    make -j16 NVCCFLAGS="-DBATCH_MEDIUM_CHUNK=$c -DBATCH_DECIDE_THREADS=$t" mcens-bench > "$out/build-$c-$t.log" 2>&1 || { tail -5 "$out/build-$c-$t.log"; continue; }
    ./mcens-bench --case 14 > "$out/b-$c-$t.txt" 2>&1
    echo "chunk $c threads $t:"; grep -E "^14 .*few-chains" "$out/b-$c-$t.txt" | cut -c1-70
  done
done
make -j16 mcens-bench > "$out/build.log" 2>&1
for K in ${KS:-96}; do
  ./mcens-bench --case 14 --batch-trials $K > "$out/b-k$K.txt" 2>&1
  echo "K $K:"; grep -E "^14 .*few-chains" "$out/b-k$K.txt" | cut -c1-70
done
echo "done at $SECONDS s"
