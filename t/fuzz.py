#!/usr/bin/env python3
"""Fuzz mcens's config handling: mutate the example and test configs (bytes, lines, numbers,
NaN/inf, very long lines, duplicate keys, unknown sections, keys moved between sections), run
`mcens --dry-run` on each under a time limit and sort the outcomes. A run must exit 0, or exit 1
with one message that says "error" and names the config file (or a file the config names);
anything else (a signal, a sanitizer report, a timeout, another status, a message naming no
file) is a crash, kept in the crash directory with its output for a rerun.

The cases come from one seed, so a case number names the same mutated text on every machine; a
time limit only decides how many of them run. Prints one summary line:
  cases N accepted A refused R crashes C
and exits 1 when C > 0."""
import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import time

NUMBER = re.compile(rb"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
# values that sit on or past an edge: zero, negative, int and size_t limits, the float range
VALUES = [b"0", b"-1", b"1", b"2", b"-0", b"0.0", b"1e-300", b"1e-12", b"4.9e-324", b"1e12", b"1e308",
          b"1e309", b"-1e308", b"2147483647", b"2147483648", b"4294967296", b"9223372036854775807",
          b"9223372036854775808", b"18446744073709551615", b"18446744073709551616", b"100000000",
          b"100000", b"1:2:100000", b"0:0:1", b"1:1:1", b"NaN", b"nan", b"-nan", b"inf", b"-inf",
          b"Infinity", b"0x10", b"1e", b"", b" ", b"none", b"yes", b"1,", b",", b"1,,2", b"::", b"1:2:0",
          b"3.14159265358979", b"1 nm", b"1 A", b"1 1/A", b"-1 nm", b"nan nm", b"%s%n%x", b"\xff\xfe",
          b"0.1:0.9:100000", b"1e-5:1e5:100000"]
SECTIONS = [b"run", b"system", b"potential", b"ensemble", b"moves", b"mixture", b"molecules", b"wall",
            b"rdf", b"", b"Run", b"nosuch", b"system]", b"[system", b"ensemble ", b"x" * 300]


def schema_keys(mcens):
    """(section, key) pairs from `mcens --config-reference`, to insert keys a config lacks."""
    try:
        out = subprocess.run([mcens, "--config-reference"], capture_output=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return []
    return re.findall(rb"^\| `\[(\w+)\]` \| `(\w+)` \|", out, re.M)


def lines_of(text):
    return text.split(b"\n")


def mutate(rng, text, seeds, keys):
    """One mutation of text (bytes), picked by rng."""
    lines = lines_of(text)
    kind = rng.randrange(14)
    i = rng.randrange(len(lines)) if lines else 0
    if kind == 0 and text:  # flip a byte's bits
        b = bytearray(text)
        k = rng.randrange(len(b))
        b[k] ^= 1 << rng.randrange(8)
        return bytes(b)
    if kind == 1 and lines:  # delete a line
        del lines[i]
    elif kind == 2 and lines:  # duplicate a line (a key given twice, a section twice)
        lines.insert(i + rng.randrange(3), lines[i])
    elif kind in (3, 4, 5):  # a number replaced by an edge value
        spots = [(n, m) for n, l in enumerate(lines) for m in NUMBER.finditer(l)]
        if spots:
            n, m = rng.choice(spots)
            l = lines[n]
            lines[n] = l[:m.start()] + rng.choice(VALUES) + l[m.end():]
    elif kind == 6 and lines:  # a very long line: a long value, or a long run of anything
        pad = rng.choice([b"1", b"9", b",1", b" ", b"x", b"X 0 0 0; "]) * rng.choice([100, 200, 1000, 70000])
        lines[i] = lines[i] + pad
    elif kind == 7:  # an unknown or malformed section header
        lines.insert(i, b"[" + rng.choice(SECTIONS) + b"]")
    elif kind == 8 and keys:  # a schema key with an edge value, at a random place
        sec, key = rng.choice(keys)
        lines.insert(i, key + b" = " + rng.choice(VALUES))
        if rng.random() < 0.5:
            lines.insert(i, b"[" + sec + b"]")
    elif kind == 9:  # a line from another config (sections and keys cross over)
        other = lines_of(rng.choice(seeds)[1])
        lines.insert(i, rng.choice(other))
    elif kind == 10 and text:  # truncate
        return text[:rng.randrange(len(text))]
    elif kind == 11:  # line endings, a BOM, a NUL, tabs
        choice = rng.randrange(4)
        if choice == 0:
            return text.replace(b"\n", b"\r\n")
        if choice == 1:
            return b"\xef\xbb\xbf" + text
        if choice == 2 and text:
            k = rng.randrange(len(text))
            return text[:k] + b"\0" + text[k:]
        return text.replace(b" = ", b"\t=\t")
    elif kind == 12 and lines:  # a value emptied, or a key without '='
        l = lines[i]
        lines[i] = l.split(b"=")[0] + (b"=" if rng.random() < 0.5 else b"")
    elif kind == 13 and lines:  # swap two lines (keys change sections)
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


SHRINK = [(re.compile(rb"^(\s*equilibration\s*=).*$", re.M), rb"\1 20"),
          (re.compile(rb"^(\s*production\s*=).*$", re.M), rb"\1 40"),
          (re.compile(rb"^(\s*sample_every\s*=).*$", re.M), rb"\1 10"),
          (re.compile(rb"^(\s*replicas\s*=).*$", re.M), rb"\1 1"),
          (re.compile(rb"^(\s*widom\s*=).*$", re.M), rb"\1 5"),
          (re.compile(rb"^(\s*adapt_every\s*=).*$", re.M), rb"\1 10"),
          (re.compile(rb"^(\s*(?:temperature|density|pressure)\s*=[^:\n]*:[^:\n]*:)\s*\d+", re.M), rb"\1 2")]


def shrink(text):
    """A seed config cut down to a run of seconds (--run): short runs, one replica, at most two
    points per range, at most 256 particles and 128 molecules (or particles) of a kind."""
    for pattern, repl in SHRINK:
        text = pattern.sub(repl, text)
    def small_counts(m):
        return m.group(1) + re.sub(rb"\d+", lambda k: b"%d" % min(int(k.group(0)), 128), m.group(2))
    text = re.sub(rb"^(\s*counts\s*=)(.*)$", small_counts, text, flags=re.M)
    return re.sub(rb"^(\s*n\s*=)\s*(\d+)", lambda m: m.group(1) + b" %d" % min(int(m.group(2)), 256), text,
                  flags=re.M)


def case_text(seed, number, seeds, keys, plain=False):
    """Case `number`'s config: a seed config with 1 to 4 mutations, all from (seed, number); with
    plain, seed config `number` as it is (the harness's own check)."""
    if plain:
        return seeds[number % len(seeds)]
    rng = random.Random(seed * 1000003 + number)
    name, text = seeds[rng.randrange(len(seeds))]
    for _ in range(rng.choice([1, 1, 2, 3, 4])):
        text = mutate(rng, text, seeds, keys)
    return name, text


SANITIZER_REPORT = re.compile(rb"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:")
SIGNAL_REPORT = re.compile(rb"Segmentation fault|core dumped|Aborted|signal \d+")


def check_output(path):
    """--run: a run that exits 0 must have written finite energies (NaN under exit 0 is a crash)."""
    import h5py  # only here: the dry-run fuzzing needs no h5py
    import numpy
    try:
        with h5py.File(path, "r") as f:
            energy = f["chains/energy"][()]
    except (OSError, KeyError) as e:
        return "crash", "exit 0 without a readable output (%s)" % e
    if not numpy.all(numpy.isfinite(energy)):
        return "crash", "exit 0 with non-finite energies in /chains/energy"
    return "accepted", ""


def classify(rc, out, config_name, mentioned, run=False):
    """accepted, refused, or crash with a reason. A full run (run) may also stop in the chains'
    start or on a drift, with a message that names no config file."""
    if SANITIZER_REPORT.search(out):
        return "crash", "sanitizer report"
    if rc < 0 or rc >= 128:  # subprocess gives -N for signal N; a shell would give 128 + N
        return "crash", "killed by signal %d" % (-rc if rc < 0 else rc - 128)
    if SIGNAL_REPORT.search(out):
        return "crash", "a signal reported"
    if rc == 0:
        return "accepted", ""
    if rc == 124:
        return "crash", "timeout"
    if rc != 1:
        return "crash", "exit status %d" % rc
    if b"error" not in out:
        return "crash", "exit 1 without an error message"
    names = [config_name] + mentioned
    if not run and not any(n in out for n in names):
        return "crash", "the error names no file"
    return "refused", ""


def run_once(cmd, work, timeout):
    try:
        p = subprocess.run(cmd, cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        return 124, e.stdout or b""


def run_case(args, number, seeds, keys):
    name, text = case_text(args.seed, number, seeds, keys, args.plain)
    work = os.path.join(args.workdir, "case%d" % number)
    os.makedirs(work, exist_ok=True)
    for extra in args.extra_files:  # the files the configs name (geometry)
        shutil.copy(extra, work)
    config = "case%d.ini" % number
    with open(os.path.join(work, config), "wb") as f:
        f.write(text)
    # files named by the config (a geometry, a start file): their own errors name them instead
    mentioned = [m.strip() for m in re.findall(rb"[\w./-]+\.(?:xyz|txt|dat|start)", text)]
    how = ["-q", "-o", "out.h5"] if args.run else ["--dry-run"]
    cmd = args.runner.split() + [args.mcens] + how + [config]
    t0 = time.time()
    rc, out = run_once(cmd, work, args.timeout)
    if rc == 124:  # a hang hangs again; a start stalled by a loaded machine does not
        rc, out = run_once(cmd, work, args.timeout)
    verdict, why = classify(rc, out, config.encode(), mentioned, args.run)
    if verdict == "accepted" and args.run:
        verdict, why = check_output(os.path.join(work, "out.h5"))
    rerun = ""
    if verdict == "crash" and why.startswith("killed by signal") and not SANITIZER_REPORT.search(out):
        # a kill from outside: on a shared, loaded machine Open MPI's singleton start-up (the orted
        # it forks) now and then dies ("ORTE_ERROR_LOG: Broken pipe") and takes mcens with it, and
        # other jobs' signal tests hit it; a second run tells that from a crash of mcens, which
        # the same input repeats (the case and its rerun are both logged)
        rc2, out2 = run_once(cmd, work, args.timeout)
        verdict2, why2 = classify(rc2, out2, config.encode(), mentioned, args.run)
        if verdict2 != "crash":
            rerun = why
            verdict, why = verdict2, why2
    if verdict == "crash":
        keep = os.path.join(args.crash_dir, "case%d" % number)
        os.makedirs(keep, exist_ok=True)
        shutil.copy(os.path.join(work, config), keep)
        with open(os.path.join(keep, "output.txt"), "wb") as f:
            f.write(b"seed config %s, exit %d, %s, %.1f s\n" % (name.encode(), rc, why.encode(), time.time() - t0) + out)
    shutil.rmtree(work, ignore_errors=True)
    return number, verdict, why, name, time.time() - t0, rerun


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mcens", required=True)
    ap.add_argument("--configs", nargs="+", required=True, help="seed configs to mutate")
    ap.add_argument("--extra-files", nargs="*", default=[], help="files the configs name (copied beside each case)")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--first", type=int, default=0, help="first case number")
    ap.add_argument("--cases", type=int, default=0, help="at most this many cases (0: until --seconds)")
    ap.add_argument("--seconds", type=float, default=60.0, help="stop starting cases after this long")
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds one case may take")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--runner", default="", help="command before mcens, e.g. 'mpirun -np 1'")
    ap.add_argument("--workdir", default="fuzz-work")
    ap.add_argument("--crash-dir", default="fuzz-crashes")
    ap.add_argument("--log", default="", help="append one line per case here")
    ap.add_argument("--plain", action="store_true", help="run the seed configs unmutated, once each")
    ap.add_argument("--run", action="store_true",
                    help="full runs of shrunk configs (short, small) instead of --dry-run; checks the output too")
    args = ap.parse_args()
    seeds = []
    for path in sorted(args.configs):
        with open(path, "rb") as f:
            text = f.read()
            seeds.append((os.path.basename(path), shrink(text) if args.run else text))
    keys = schema_keys(args.mcens)
    if args.plain:
        args.first, args.cases = 0, len(seeds)
    os.makedirs(args.workdir, exist_ok=True)
    counts = {"accepted": 0, "refused": 0, "crash": 0}
    crashes = []
    reruns = 0
    deadline = time.time() + args.seconds
    log = open(args.log, "a", buffering=1) if args.log else None  # line by line: a killed campaign keeps its log
    number = args.first
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        running = set()
        while True:
            more = (not args.cases or number < args.first + args.cases) and (args.cases or time.time() < deadline)
            while more and len(running) < args.jobs:
                running.add(pool.submit(run_case, args, number, seeds, keys))
                number += 1
                more = (not args.cases or number < args.first + args.cases) and (args.cases or time.time() < deadline)
            if not running:
                break
            done, running = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                n, verdict, why, name, seconds, rerun = fut.result()
                counts[verdict] += 1
                reruns += bool(rerun)
                if log:
                    log.write("%d %.2f %s %s %s%s\n" % (n, seconds, name, verdict, why,
                                                       " (rerun: first run %s)" % rerun if rerun else ""))
                if rerun:
                    print("# case %d (from %s): first run %s, the rerun clean (MPI start-up)" % (n, name, rerun))
                if verdict == "crash":
                    crashes.append((n, name, why))
                    print("# crash: case %d (from %s): %s; kept in %s/case%d" % (n, name, why, args.crash_dir, n))
    if log:
        log.close()
    total = sum(counts.values())
    print("cases %d accepted %d refused %d crashes %d (seed %d, cases %d-%d; %d rerun after a killed start)" %
          (total, counts["accepted"], counts["refused"], counts["crash"], args.seed, args.first, args.first + total - 1,
           reruns))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
