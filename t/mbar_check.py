"""Checks of `mcens-analyze mbar` (t/mbar.sh), read from the HDF5 files it writes.
Exit 0: the check holds; 1: it does not (the message says where); 2: the checker itself broke.
Every tolerance is a multiple of the standard errors the files carry.

  mbar_check.py synth OUT.h5                 write a fake mcens output with exactly known answers
  mbar_check.py exact SYNTH.h5 MBAR.h5       MBAR's U/N and C_V/N on the grid against the exact curves
  mbar_check.py sampled RUN.h5 MBAR.h5       MBAR at the sampled temperatures against /results
  mbar_check.py between RUN.h5 MBAR.h5 DIRECT.h5
                                             MBAR at the direct run's temperature against its /results
  mbar_check.py figures RUN.h5 DIR MANIFEST  DIR holds mbar.png, a PNG with a curve, band and error
                                             bars per ladder in each panel
"""
import json
import math
import os
import sys

import h5py
import numpy as np

from checkrun import check, run


# --- the synthetic file ---------------------------------------------------------------------------
# N = 100 "particles", two ladders (two densities), 5 temperatures each, 2 replicas each.
# Ladder at density 0.1: 3N harmonic degrees of freedom, U ~ Gamma(3N/2, scale kT), so U/N = 1.5 kT
# and C_V/N = 1.5 (ideal) + N var(U/N)/kT^2 = 1.5 + 1.5 = 3, exactly.
# Ladder at density 0.2: N independent two-level units of gap D = 1, the number excited binomial
# with p = 1/(1 + exp(D/kT)) (the Boltzmann distribution with degeneracy C(N, n)), so U/N = D p and
# C_V/N = 1.5 + (D/kT)^2 p (1 - p), a Schottky peak at kT = 0.42 D.
N = 100
T_HARMONIC = [1.0, 1.25, 1.5, 1.75, 2.0]
T_TWO_LEVEL = [0.3, 0.425, 0.55, 0.675, 0.8]
REPLICAS, INDEPENDENT, REPEAT, CUT = 2, 1000, 5, 40


def exact(density, t):
    t = np.asarray(t, dtype=float)
    if density == 0.1:
        return 1.5 * t, np.full_like(t, 3.0)
    p = 1.0 / (1.0 + np.exp(1.0 / t))
    return p, 1.5 + p * (1 - p) / t ** 2


def draw(rng, density, t):
    """One chain's series: CUT samples far from equilibrium (mbar must drop them: the file's
    equilibration_sample says so), then INDEPENDENT exact draws, each repeated REPEAT times, so
    that the statistical inefficiency is REPEAT (1 + 2 sum_t (1 - t/5) = 5) and mbar must thin."""
    if density == 0.1:
        u = rng.gamma(1.5 * N, t, INDEPENDENT) / N
    else:
        u = rng.binomial(N, 1.0 / (1.0 + math.exp(1.0 / t)), INDEPENDENT) / N
    return np.concatenate([np.full(CUT, 10.0), np.repeat(u, REPEAT)])


def cmd_synth(out, spacing="close"):
    """spacing "sparse": the harmonic ladder's temperatures 1.45 apart in ratio instead of 1.25,
    too far for MBAR's neighbour overlap (the warning's test); the two-level ladder as it is."""
    rng = np.random.default_rng(20260415)
    harmonic = T_HARMONIC if spacing == "close" else [1.0 * 1.45 ** k for k in range(5)]
    temps, dens = [], []
    for d, ts in ((0.1, harmonic), (0.2, T_TWO_LEVEL)):
        temps += ts
        dens += [d] * len(ts)
    S = len(temps)
    series = np.array([draw(rng, dens[s], temps[s]) for s in range(S) for _ in range(REPLICAS)])
    chain_sp = np.repeat(np.arange(S), REPLICAS).astype(np.int32)
    with h5py.File(out, "w") as f:
        f["parameters"] = "[system]\nn = %d\n" % N
        f["parameters"].attrs["mcens_version"] = "synthetic"
        f["parameters"].attrs["units"] = "reduced: epsilon, sigma, k_B = 1"

        def ds(name, data, unit):
            f[name] = data
            f[name].attrs["unit"] = unit

        ds("statepoints/temperature", np.array(temps), "epsilon/k_B")
        ds("statepoints/density", np.array(dens), "sigma^-3")
        ds("statepoints/box_length", (N / np.array(dens)) ** (1 / 3), "sigma")
        ds("species/count", np.array([N], dtype=np.int32), "1")
        ds("chains/statepoint", chain_sp, "1")
        ds("chains/replica", np.tile(np.arange(REPLICAS), S).astype(np.int32), "1")
        ds("chains/energy", series, "epsilon")
        ds("chains/equilibration_sample", np.full(len(series), CUT), "1")
        # the direct averages mcens would write (the figure marks them): per state point, pooled
        # over the replicas' stationary parts, the independent draws only
        tail = series[:, CUT::REPEAT].reshape(S, REPLICAS * INDEPENDENT)
        n = tail.shape[1]
        var = tail.var(axis=1, ddof=1)
        m4 = ((tail - tail.mean(axis=1)[:, None]) ** 4).mean(axis=1)
        kt2 = np.array(temps) ** 2
        ds("results/energy/mean", tail.mean(axis=1), "epsilon")
        ds("results/energy/stderr", np.sqrt(var / n), "epsilon")
        ds("results/heat_capacity/mean", 1.5 + N * var / kt2, "k_B")
        ds("results/heat_capacity/stderr", N * np.sqrt((m4 - var ** 2) / n) / kt2, "k_B")
        for name in ("energy", "heat_capacity"):
            ds("results/%s/blocking_converged" % name, np.ones(S, dtype=np.int32), "1")
    print("%s: %d state points, %d chains of %d samples" % (out, S, len(series), series.shape[1]))


# --- checks -----------------------------------------------------------------------------------
def ladders(mbar):
    return [mbar[k] for k in sorted(mbar) if k.startswith("ladder_")]


def est(g, name):
    return g[name + "/mean"][:], g[name + "/stderr"][:]


def cmd_exact(synth, path):
    f, m = h5py.File(synth, "r"), h5py.File(path, "r")
    lads = ladders(m)
    check(len(lads) == 2, "%d ladders, expected 2 (one per density)" % len(lads))
    worst = 0.0
    for g in lads:
        d = g.attrs["density"]
        sp = sorted(g.attrs["statepoints"].tolist())
        want = [s for s in range(len(f["statepoints/density"])) if f["statepoints/density"][s] == d]
        check(sp == want, "%s: state points %s, expected %s" % (g.name, sp, want))
        t = g["temperature"][:]
        ts = f["statepoints/temperature"][want]
        check(len(t) == 101 and t[0] == ts.min() and t[-1] == ts.max(),
              "%s: the grid is not 101 points spanning %g to %g" % (g.name, ts.min(), ts.max()))
        # the equilibration cut is honoured and every chain thinned by its estimated inefficiency,
        # which must find the correlation (true value REPEAT; pymbar's estimate of it from 1000
        # blocks scatters by some 10%, so only a factor 2 either way is asked)
        c = g["chains"]
        check((c["equilibration_sample"][:] == CUT).all(), "%s: equilibration cut not %d" % (g.name, CUT))
        ineff = c["statistical_inefficiency"][:]
        check(((ineff > REPEAT / 2) & (ineff < 2 * REPEAT)).all(),
              "%s: statistical inefficiencies %s, the true one %d" % (g.name, ineff, REPEAT))
        used = c["samples_used"][:]
        expect = (INDEPENDENT * REPEAT) / ineff
        check((abs(used - expect) <= 1).all(), "%s: samples used %s, expected %s" % (g.name, used, expect))
        for name, col in (("energy", 0), ("heat_capacity", 1)):
            for where, grp, tt in (("grid", g, t), ("sampled", g["sampled"], g["sampled/temperature"][:])):
                mean, err = est(grp, name)
                ref = exact(d, tt)[col]
                check((err > 0).all() and (err < 0.05 * abs(ref)).all(),
                      "%s %s %s: standard errors %s not within (0, 5%% of the value)" % (g.name, where, name, err))
                z = (mean - ref) / err
                k = int(np.argmax(abs(z)))
                worst = max(worst, abs(z[k]))
                print("%s (density %g) %s %s: largest |MBAR - exact| = %.2f standard errors at T = %g "
                      "(%.5g against %.5g, error %.2g); median error %.2g%% of the value" % (
                          g.name, d, where, name, abs(z[k]), tt[k], mean[k], ref[k], err[k],
                          100 * np.median(err / abs(ref))))
                check(abs(z[k]) < 4, "%s %s %s: MBAR %g against exact %g at T = %g, %.1f standard errors"
                      % (g.name, where, name, mean[k], ref[k], tt[k], z[k]))
    print("worst deviation %.2f standard errors (bound 4)" % worst)


def direct(run, s, name):
    return run["results/%s/mean" % name][s], run["results/%s/stderr" % name][s]


def names_of(run):
    return ["energy", "heat_capacity"] + (["enthalpy", "density"] if "statepoints/pressure" in run else [])


def cmd_sampled(run_path, path):
    """At each sampled temperature MBAR reproduces mcens's direct average within 3 combined
    standard errors (they share samples, so the combined error is on the generous side)."""
    run, m = h5py.File(run_path, "r"), h5py.File(path, "r")
    t_sp = run["statepoints/temperature"][:]
    n = 0
    for g in ladders(m):
        ts = g["sampled/temperature"][:]
        for j, t in enumerate(ts):
            s = [s for s in g.attrs["statepoints"] if t_sp[s] == t]
            check(len(s) == 1, "%s: temperature %g is not one state point" % (g.name, t))
            for name in names_of(run):
                mm, me = est(g["sampled"], name)
                dm, de = direct(run, s[0], name)
                sig = math.hypot(me[j], de)
                z = (mm[j] - dm) / sig
                print("%s T = %g %s: MBAR %.5g ± %.2g, direct %.5g ± %.2g: %.2f combined sigma"
                      % (g.name, t, name, mm[j], me[j], dm, de, z))
                check(abs(z) < 3, "%s T = %g %s: MBAR and direct differ by %.1f combined sigma"
                      % (g.name, t, name, z))
                n += 1
    check(n > 0, "nothing compared")


def cmd_between(run_path, path, direct_path):
    """MBAR at the temperature of a separate direct run, which lies strictly between two sampled
    ones, agrees with that run's average within 3 combined standard errors."""
    run, m, d = (h5py.File(p, "r") for p in (run_path, path, direct_path))
    check(d["statepoints/temperature"].shape == (1,), "the direct run must have one state point")
    t = d["statepoints/temperature"][0]
    g = ladders(m)
    check(len(g) == 1, "expected one ladder")
    g = g[0]
    ts = g["sampled/temperature"][:]
    check(ts.min() < t < ts.max() and t not in ts, "T = %g is not between sampled temperatures %s" % (t, ts))
    grid = g["temperature"][:]
    k = int(np.argmin(abs(grid - t)))
    check(abs(grid[k] - t) < 1e-9 * t, "no grid point at T = %g (nearest %r)" % (t, grid[k]))
    for name in names_of(run):
        mm, me = est(g, name)
        dm, de = direct(d, 0, name)
        z = (mm[k] - dm) / math.hypot(me[k], de)
        print("T = %g %s: MBAR %.5g ± %.2g, separate direct run %.5g ± %.2g: %.2f combined sigma"
              % (t, name, mm[k], me[k], dm, de, z))
        check(abs(z) < 3, "T = %g %s: %.1f combined sigma apart" % (t, name, z))


def cmd_figures(run_path, outdir, manifest):
    run = h5py.File(run_path, "r")
    pngs = sorted(p for p in os.listdir(outdir) if p.endswith(".png"))
    check(pngs == ["mbar.png"], "figures %s, expected mbar.png" % pngs)
    with open(os.path.join(outdir, "mbar.png"), "rb") as fh:
        head = fh.read(24)
    check(head[:8] == b"\x89PNG\r\n\x1a\n", "mbar.png: not a PNG signature")
    w, h = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    check(w >= 600 and h >= 300, "mbar.png: %d x %d pixels" % (w, h))
    panels = json.load(open(manifest))["mbar.png"]
    # the poor-overlap warning of the table is on the figure too, for each such ladder, and only there
    mbar = h5py.File(os.path.splitext(run_path)[0] + "-mbar.h5", "r")
    poor = [k for k in sorted(mbar) if k.startswith("ladder_") and mbar[k].attrs["min_neighbour_overlap"] < 0.03]
    title = panels[0]["figure_title"]
    check(title.count("WARNING") == len(poor), "%d poorly connected ladders (%s), %d warnings in the title %r"
          % (len(poor), ", ".join(poor), title.count("WARNING"), title))
    names = names_of(run)
    check(len(panels) == len(names), "%d panels, expected %d" % (len(panels), len(names)))
    nlad = len(set(run["statepoints/pressure" if "statepoints/pressure" in run else "statepoints/density"][:]))
    for p in panels:
        check(p["curves"] == p["bands"] == p["errorbars"] == nlad,
              "panel %r: %d curves, %d bands, %d error-bar series; expected %d each"
              % (p["ylabel"], p["curves"], p["bands"], p["errorbars"], nlad))
        check("(" in p["ylabel"], "panel %r: no unit in the axis label" % p["ylabel"])
    print("mbar.png: %d x %d, %d panels with %d ladders each; %d poor-overlap warnings for %d such ladders"
          % (w, h, len(panels), nlad, title.count("WARNING"), len(poor)))


if __name__ == "__main__":
    run({"synth": cmd_synth, "exact": cmd_exact, "sampled": cmd_sampled, "between": cmd_between,
         "figures": cmd_figures}, sys.argv, __doc__)
