"""Checks of mcens-analyze's outputs against the HDF5 file they came from (t/analyze.sh).
Exit 0: the check holds; 1: it does not (the message says where); 2: the checker itself broke.

  analyze_check.py csv FILE.h5 OUT.csv            every number equals its dataset exactly
  analyze_check.py xyz FILE.h5 OUT.xyz K          every frame equals /particles/chain_K
  analyze_check.py summary FILE.h5 OUT.txt        a row per state point, each mean within the
                                                  printed precision, * exactly where blocking_converged = 0
  analyze_check.py figures FILE.h5 DIR MANIFEST   valid PNGs with the panels and curves the file implies
"""
import csv
import json
import math
import os
import sys

import h5py
import numpy as np

from checkrun import check, run


def sdec(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def results(f):
    """{name: (mean, stderr, converged)} with [S, M] results split into name[species]."""
    out = {}
    for n in f["results"]:
        if n in ("rdf", "exchange"):  # groups of their own, not pooled estimates
            continue
        m, e, c = (f["results/%s/%s" % (n, k)][:] for k in ("mean", "stderr", "blocking_converged"))
        if m.ndim == 1:
            out[n] = (m, e, c)
        else:
            names = f["molecules/name" if "molecules" in f else "species/name"][:]
            if len(names) != m.shape[1]:  # the Gibbs chemical potential: each phase's species
                names = [str(j) for j in range(m.shape[1])]
            for j, s in enumerate(names):
                out["%s[%s]" % (n, sdec(s))] = (m[:, j], e[:, j], c[:, j])
    return out


def same(text, value):
    """A CSV cell equals the double exactly (repr round-trips; NaN equals NaN)."""
    v = float(text)
    return (math.isnan(v) and math.isnan(value)) or v == value


def cmd_csv(h5, path):
    f = h5py.File(h5, "r")
    rows = list(csv.reader(open(path)))
    head, body = rows[0], rows[1:]
    S = f["statepoints/temperature"].shape[0]
    check(len(body) == S, "%d rows for %d state points" % (len(body), S))
    col = {h.split(" [")[0]: i for i, h in enumerate(head)}
    sp = ["temperature"] + (["pressure"] if "statepoints/pressure" in f else
                            [] if (f["statepoints/box_length"][:] == 0).all() else ["density"])
    for name in sp:
        check(name in col, "no state-point column %s in %s" % (name, head))
        unit = sdec(f["statepoints/" + name].attrs["unit"])
        check(head[col[name]] == "%s [%s]" % (name, unit), "header %r lacks its unit %s" % (head[col[name]], unit))
        for s in range(S):
            check(same(body[s][col[name]], f["statepoints/" + name][s]), "%s row %d" % (name, s))
    res = results(f)
    n = 0
    for name, (m, e, c) in res.items():
        for suffix, arr in (("_mean", m), ("_stderr", e), ("_blocking_converged", c)):
            check(name + suffix in col, "no column %s" % (name + suffix))
            for s in range(S):
                check(same(body[s][col[name + suffix]], arr[s]),
                      "%s%s row %d: %s in the CSV, %r in the file" % (name, suffix, s, body[s][col[name + suffix]], arr[s]))
                n += 1
    check(len(head) == 1 + len(sp) + 3 * len(res), "unexpected columns: %s" % head)
    print("%d values of %d state points equal the datasets" % (n, S))


def cmd_xyz(h5, path, k):
    f = h5py.File(h5, "r")
    base = "particles/chain_%06d/" % int(k)
    pos = f[base + "position/value"][:]
    steps = f[base + "position/step"][:]
    names = [sdec(s) for s in f["species/name"][:]]
    species = [names[i] for i in f[base + "species"][:]]
    periodic = "box/edges" in f[base]
    lines = open(path).read().split("\n")
    i = 0
    for j in range(pos.shape[0]):
        check(int(lines[i]) == pos.shape[1], "frame %d: atom count %s" % (j, lines[i]))
        hdr = lines[i + 1]
        check("Properties=species:S:1:pos:R:3" in hdr and "Time=%d" % steps[j] in hdr, "frame %d header: %s" % (j, hdr))
        unit = f[base + "position/value"].attrs.get("unit", b"sigma")
        unit = unit.decode() if isinstance(unit, bytes) else str(unit)
        check(" unit=%s " % unit in hdr + " ", "frame %d: unit=%s not in %s" % (j, unit, hdr))
        if periodic:
            L = np.ravel(f[base + "box/edges/value"][j])
            lat = 'Lattice="%s"' % " ".join(repr(float(x)) for x in L)
            check(lat in hdr, "frame %d: %s not in %s" % (j, lat, hdr))
        else:
            check("Lattice" not in hdr and 'pbc="F F F"' in hdr, "open cluster header: %s" % hdr)
        for a in range(pos.shape[1]):
            t = lines[i + 2 + a].split()
            check(t[0] == species[a], "frame %d atom %d: species %s, expected %s" % (j, a, t[0], species[a]))
            check([float(x) for x in t[1:]] == pos[j, a].tolist(), "frame %d atom %d: %s != %s" % (j, a, t[1:], pos[j, a]))
        i += 2 + pos.shape[1]
    check(lines[i:] in ([], [""]), "trailing text after %d frames" % pos.shape[0])
    print("%d frames of %d particles equal %s" % (pos.shape[0], pos.shape[1], base + "position/value"))
    # a reader of its own: MDAnalysis (single precision) must find the same frames, where it is
    # installed (Debian's python3-mdanalysis; the GPU machine's Python has none: said, not hidden)
    import contextlib
    import io
    try:
        with contextlib.redirect_stderr(io.StringIO()):  # MDAnalysis's own deprecation notices
            import MDAnalysis
    except ImportError:
        print("MDAnalysis is not installed: the second reader's check was not made")
        return
    with contextlib.redirect_stderr(io.StringIO()):
        u = MDAnalysis.Universe(path)
    check(len(u.atoms) == pos.shape[1] and len(u.trajectory) == pos.shape[0], "MDAnalysis reads %d atoms x %d frames" % (len(u.atoms), len(u.trajectory)))
    for j, ts in enumerate(u.trajectory):
        check(np.allclose(ts.positions, pos[j], rtol=1e-6, atol=1e-5), "MDAnalysis frame %d differs" % j)
    print("MDAnalysis reads the same frames")


def cmd_summary(h5, path):
    f = h5py.File(h5, "r")
    S = f["statepoints/temperature"].shape[0]
    text = open(path).read().split("\n")
    rows = [l.split("  ") for l in text if l.strip()[:1].isdigit() and not l.startswith(h5)]
    rows = [[c.strip() for c in r if c.strip()] for r in rows]
    check(len(rows) == S, "%d table rows for %d state points" % (len(rows), S))
    head = [c.strip() for c in text[2].split("  ") if c.strip()]
    m, e, c = f["results/energy/mean"][:], f["results/energy/stderr"][:], f["results/energy/blocking_converged"][:]
    col = [i for i, h in enumerate(head) if h.startswith("U/N")]
    check(len(col) == 1, "no U/N column in %s" % head)
    for s in range(S):
        cell = rows[s][col[0]]
        mean_text = cell.split(" ± ")[0]
        dec = len(mean_text.split(".")[1]) if "." in mean_text else 0
        check(abs(float(mean_text) - m[s]) <= 0.5001 * 10 ** -dec, "state %d: %s for %r" % (s, cell, m[s]))
        if " ± " in cell:  # the standard error, to the mean's decimals
            err_text = cell.split(" ± ")[1].rstrip("*").strip()
            check(abs(float(err_text) - e[s]) <= 0.5001 * 10 ** -dec, "state %d: %s for stderr %r" % (s, cell, e[s]))
        else:
            check(not (math.isfinite(e[s]) and e[s] > 0), "state %d: %s without the stderr %r" % (s, cell, e[s]))
        check(cell.endswith("*") == (c[s] == 0), "state %d: '%s' but blocking_converged = %d" % (s, cell, c[s]))
    print("%d rows, U/N and its standard error to their printed precision, * where blocking did not converge" % S)


def expected(f):
    """What the figures must hold: {png: [(panel count), per-panel dict of counts]} from the file."""
    S = f["statepoints/temperature"].shape[0]
    sp = f["chains/statepoint"][:]
    reps = np.bincount(sp, minlength=S)
    pairs = [sdec(p) for p in f["results/rdf/pairs"][:]]
    if "molecules/nsites" in f and (f["molecules/nsites"][:] == 1).all():
        pairs = [p for p in pairs if p != "centres"]
    npt = "statepoints/pressure" in f
    cluster = (f["statepoints/box_length"][:] == 0).all()
    axes = [f["statepoints/temperature"][:]]
    if not cluster:
        axes.append(f["statepoints/pressure" if npt else "statepoints/density"][:])
    nvals = [len(set(a.tolist())) for a in axes]
    groups = 1 if len(axes) == 1 else (nvals[0] if nvals[1] > nvals[0] else nvals[1])
    res = results(f)
    defined = [n for n in res if not np.isnan(res[n][0]).all()]
    acc = [n for n in defined if n.endswith("acceptance")]
    phys = [n for n in defined if n not in acc and not (n == "mass_density" and "density" in defined)]
    band = "chains/rdf_g" in f and reps.min() > 1
    gibbs = "chains/box_length" in f
    series, panels = len(phys), len(phys)
    if gibbs:  # no box0_/box1_ panels; liquid_X with vapour_X, and each species' mu in both phases, share one
        phys = [n for n in phys if not n.startswith("box")]
        series = len(phys)
        panels = series - sum(1 for n in phys if n.startswith("vapour_")) - sum(
            1 for n in phys if n.startswith("chemical_potential[")) // 2
    exp = {"rdf.png": dict(panels=len(pairs) * groups, curves=S * len(pairs), bands=S * len(pairs) if band else 0),
           "observables.png": dict(panels=panels, errorbars=groups * series),
           "acceptance.png": dict(panels=len(acc), errorbars=groups * len(acc))}
    shown = int(np.minimum(reps, 4).sum())  # at most 4 replicas a panel; all state points up to 12
    for n in ("liquid_density", "vapour_density") if gibbs else ("energy", "density"):
        if "chains/" + n in f or "observables/%s/value" % n in f:
            check(S <= 12, "the test's files have at most 12 state points")
            exp["timeseries_%s.png" % n] = dict(panels=S, curves=shown, cuts=shown)
    if "results/exchange" in f:  # the walkers of one ladder (at most 6), and the acceptance
        axis = sdec(f["results/exchange"].attrs["axis"])
        rungs = nvals[0] if axis == "temperature" else nvals[1]
        exp["exchange.png"] = dict(panels=2, curves=len(range(0, rungs, -(-rungs // 6))[:6]) + 1)
    return exp


def cmd_figures(h5, outdir, manifest):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image
    f = h5py.File(h5, "r")
    man = json.load(open(manifest))
    exp = expected(f)
    pngs = sorted(p for p in os.listdir(outdir) if p.endswith(".png"))
    check(pngs == sorted(exp), "figures %s, expected %s" % (pngs, sorted(exp)))
    for png, want in exp.items():
        path = os.path.join(outdir, png)
        with open(path, "rb") as fh:
            check(fh.read(8) == b"\x89PNG\r\n\x1a\n", "%s: not a PNG signature" % png)
        img = matplotlib.image.imread(path)
        check(img.ndim == 3 and img.shape[0] >= 300 and img.shape[1] >= 300, "%s: image %s" % (png, img.shape))
        panels = man[png]
        got = dict(panels=len(panels))
        for k in ("curves", "bands", "errorbars", "cuts"):
            if k in want:
                got[k] = sum(p[k] for p in panels)
        check(got == want, "%s: %s, expected %s" % (png, got, want))
        check(all(p["ylabel"] for p in panels), "%s: a panel without a y label" % png)
        check(all(p["legends_inside"] for p in panels), "%s: a legend runs off the figure" % png)
        if png == "acceptance.png":  # the whole range, so that noise about a held value looks like noise
            check(all(p["ylim"][0] <= 0 and p["ylim"][1] >= 1 for p in panels),
                  "acceptance.png: y ranges %s, expected each to span 0 to 1" % [p["ylim"] for p in panels])
        print("%s: %s" % (png, got))


if __name__ == "__main__":
    run({"csv": cmd_csv, "xyz": cmd_xyz, "summary": cmd_summary, "figures": cmd_figures}, sys.argv, __doc__)
