"""mcens-analyze summary: the pooled results per state point as a text table."""

import math
import sys

from .labels import TEXT_NAME, bracket, fmt_pm, text_name


def cmd_summary(run, out):
    axes = run.axes()
    obs = [n for n in run.observables() if run.defined(n)]
    undefined = [n for n in run.observables() if n not in obs]
    head = ["state"] + [TEXT_NAME[a[0]] + bracket(a[2]) for a in axes]
    rows = [[str(s)] + ["%.6g" % a[1][s] for a in axes] for s in range(run.nstate)]
    flagged = no_error = False
    for n in obs:
        r = run.result(n)
        for suffix, col in run.columns(n):
            head.append(text_name(run, n) + suffix + bracket(r["unit"]))
            for s in range(run.nstate):
                m, e, c = (r[k][s] if col is None else r[k][s, col]
                           for k in ("mean", "stderr", "converged"))
                cell = fmt_pm(float(m), float(e))
                no_error |= not math.isfinite(float(e))
                if not c:
                    cell += " *"
                    flagged = True
                rows[s].append(cell)
    kind = "open cluster" if run.cluster else ("npt" if run.npt else ("gibbs" if run.gibbs else ("gcmc" if run.gcmc else "nvt")))
    units = run.ds("parameters").attrs.get("units", b"")
    out.write("%s: %s, %d state points, %d chains; units %s\n\n" % (
        run.path, kind, run.nstate, run.ds("chains/statepoint").shape[0],
        units.decode() if isinstance(units, bytes) else units))
    width = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    for line in [head] + rows:
        out.write("  ".join(c.rjust(w) for c, w in zip(line, width)).rstrip() + "\n")
    out.write("\nmean ± standard error, pooled over replicas.\n")
    if flagged:
        out.write("* blocking_converged = 0: the run was too short for a trustworthy error bar.\n")
    if no_error:
        out.write("a value without ± has no error estimate (a per-chain quantity, one replica).\n")
    if undefined:
        out.write("not defined for this system (NaN): %s\n" % ", ".join(undefined))
    return 0


def add_parser(sub):
    p = sub.add_parser("summary", help="pooled results per state point, as a text table")
    p.add_argument("file", metavar="FILE")


def main(run, args):
    return cmd_summary(run, sys.stdout)
