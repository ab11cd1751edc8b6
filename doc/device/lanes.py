#!/usr/bin/env python3
"""lanes.py CSV [LABEL [RUNS]]: what one kernel launch did with its lanes, from Nsight Compute's
SASS page (`ncu -i REPORT --page source --csv --print-source sass`, taken with --section
SourceCounters).

Prints the launch's warp instructions, thread instructions and their ratio (the lanes a warp
instruction ran with on average, 32 at best), then the RUNS (default 6) runs of 32 instructions
that drew the most stall samples, each with its lanes and its first instruction (its offset in
the kernel, as `cuobjdump -sass` numbers it, and its text). A hot loop whose lanes average far
below 32 is the sign doc/performance.md version 28 followed: a warp running two copies of a loop
one after the other, each with part of its lanes."""
import csv
import sys

path = sys.argv[1]
label = sys.argv[2] if len(sys.argv) > 2 else path
shown = int(sys.argv[3]) if len(sys.argv) > 3 else 6
rows = list(csv.reader(open(path)))
header = next((r for r in rows if "Address" in r and "Source" in r), None)
if header is None:
    sys.exit(f"{label}: no SASS table in {path} (no launch profiled?)")
# the table's rows only: ncu may interleave warnings
data = [r for r in rows[rows.index(header) + 1:] if len(r) == len(header)]
col = {name: header.index(name) for name in
       ("Address", "Source", "Instructions Executed", "Thread Instructions Executed",
        "Warp Stall Sampling (All Samples)")}


def value(r, name):
    try:
        return int(r[col[name]].replace(",", ""))
    except ValueError:
        return 0


warp = sum(value(r, "Instructions Executed") for r in data)
thread = sum(value(r, "Thread Instructions Executed") for r in data)
samples = sum(value(r, "Warp Stall Sampling (All Samples)") for r in data)
print(f"{label}: {warp} warp instructions executed, {thread} thread instructions, "
      f"{thread / warp if warp else 0:.1f} lanes a warp instruction, {samples} stall samples")
RUN = 32
runs = []
for s in range(0, len(data), RUN):
    run = data[s:s + RUN]
    w = sum(value(r, "Instructions Executed") for r in run)
    t = sum(value(r, "Thread Instructions Executed") for r in run)
    runs.append((sum(value(r, "Warp Stall Sampling (All Samples)") for r in run), w, t, s))
for smp, w, t, s in sorted(runs, reverse=True)[:shown]:
    first = data[s]
    offset = int(first[col["Address"]], 16) - int(data[0][col["Address"]], 16)
    print(f"  from /*{offset:04x}*/: {smp} samples ({100.0 * smp / max(samples, 1):.0f}%), "
          f"{w} warp instructions, {t / w if w else 0:.1f} lanes; {first[col['Source']].strip()[:48]}")
