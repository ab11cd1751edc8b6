#!/usr/bin/env python3
"""Digest of Nsight Compute's source page (`ncu -i REPORT --page source --csv --print-source
cuda,sass`, one kernel): the source lines with the most warp stall samples, with their share of the
samples and the warp instructions they executed, over every launch in the report.
Usage: cells-lines.py FILE.csv [LINES]"""
import collections
import csv
import sys


def main():
    path, top = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 30
    lines, by_file = collections.Counter(), collections.Counter()
    executed, text = collections.Counter(), {}
    fname, header = None, None
    for row in csv.reader(open(path)):
        if not row:
            continue
        if row[0] == 'File Path':
            fname = row[1].rsplit('/', 1)[-1]
        elif row[0] == 'Line No':
            header = row
        elif header and row[0] and row[0].isdigit():
            try:
                samples, inst = int(row[4]), int(row[7])
            except ValueError:
                continue
            key = (fname, int(row[0]))
            lines[key] += samples
            executed[key] += inst
            by_file[fname] += samples
            text[key] = row[1].strip()
    total = sum(lines.values()) or 1
    print(f'{path}: {total} stall samples, {sum(executed.values())} warp instructions')
    print('  by file: ' + ', '.join(f'{f} {100 * s / total:.0f}%' for f, s in by_file.most_common(8)))
    for key, samples in lines.most_common(top):
        print(f'  {100 * samples / total:5.1f}% {executed[key]:8d}  {key[0]}:{key[1]}  {text[key][:100]}')


if __name__ == '__main__':
    main()
