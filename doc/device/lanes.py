#!/usr/bin/env python3
"""lanes.py CSV [LABEL]: what one kernel launch did with its lanes, from Nsight Compute's SASS
page (`ncu -i REPORT --page source --csv --print-source sass`, taken with --section SourceCounters).

Prints the launch's warp instructions, thread instructions and their ratio (the lanes a warp
instruction ran with on average, 32 at best), then the runs of 32 instructions that drew the most
stall samples, each with its lanes and its first instruction. A hot loop whose lanes average far
below 32 is the sign doc/performance.md version 28 followed: a warp running two copies of a loop
one after the other, each with part of its lanes."""
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
label = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1]
header = next(r for r in rows if "Address" in r and "Source" in r)
data = rows[rows.index(header) + 1:]
col = {name: header.index(name) for name in
       ("Source", "Instructions Executed", "Thread Instructions Executed", "Warp Stall Sampling (All Samples)")}


def value(r, name):
    try:
        return int(r[col[name]].replace(",", ""))
    except (ValueError, IndexError):
        return 0


warp = sum(value(r, "Instructions Executed") for r in data)
thread = sum(value(r, "Thread Instructions Executed") for r in data)
samples = sum(value(r, "Warp Stall Sampling (All Samples)") for r in data)
print(f"{label}: {warp} warp instructions, {thread} thread instructions, "
      f"{thread / warp if warp else 0:.1f} lanes a warp instruction, {samples} stall samples")
RUN = 32
runs = []
for s in range(0, len(data), RUN):
    run = data[s:s + RUN]
    w = sum(value(r, "Instructions Executed") for r in run)
    t = sum(value(r, "Thread Instructions Executed") for r in run)
    runs.append((sum(value(r, "Warp Stall Sampling (All Samples)") for r in run), w, t, s))
for smp, w, t, s in sorted(runs, reverse=True)[:int(sys.argv[3]) if len(sys.argv) > 3 else 6]:
    print(f"  instructions {s}-{s + RUN - 1}: {smp} samples ({100.0 * smp / max(samples, 1):.0f}%), "
          f"{w} warp instructions, {t / w if w else 0:.1f} lanes; {data[s][col['Source']].strip()[:48]}")
