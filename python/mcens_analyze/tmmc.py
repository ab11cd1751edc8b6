"""mcens-analyze tmmc: a grand-canonical run's ln Pi(N) (/results/tmmc) reweighted in ln z: the
isotherm, and at each temperature below the critical one the coexistence (the activity where the
two phases' peaks have equal area), its densities, saturation pressure, energies and the
free-energy barrier between the phases; errors from the spread of the replicas' own estimates.
Into a new HDF5 file, a table and figures.

The arithmetic is src/tmmc.c's (the same algorithm, checked against it by python/tests/test_tmmc.py):
  ln Pi'(N) = ln Pi(N) + N (ln z' - ln z), normalised;
  beta P V = ln(sum_N Pi'(N) / Pi'(0)) (n_min = 0: Pi'(0) = 1 / Xi);
  coexistence: the valley between the peaks splits N into the phases; Newton's method on ln of the
  vapour's area over the liquid's, whose derivative in ln z is N_vapour - N_liquid."""

import math
import os

from .errors import AnalyzeError
from .figures import finish, plot_setup
from .labels import fmt_pm
from .outputs import figure_dir, new_h5, save_figure, source_attrs


# --- the arithmetic --------------------------------------------------------------------------
def log_sum_exp(x):
    import numpy as np
    m = np.max(x)
    return m + math.log(np.exp(x - m).sum())


def reweight(ln_pi, n, dlnz):
    """ln Pi at an activity larger by exp(dlnz), normalised."""
    w = ln_pi + n * dlnz
    return w - log_sum_exp(w)


def mean_n(w, n, i0=0, i1=None):
    """(<N> over elements [i0, i1) of exp(w), ln of their total probability)."""
    import numpy as np
    i1 = len(w) if i1 is None else i1
    area = log_sum_exp(w[i0:i1])
    return float(np.sum(n[i0:i1] * np.exp(w[i0:i1] - area))), area


def _second_peak(w, peak, step, depth):
    """(second, valley) on one side of the peak (step -1 or +1), or None: src/tmmc.c's second_peak."""
    low, found, best_low, second = peak, False, -1, None
    i = peak + step
    while 0 <= i < len(w):
        if w[i] < w[low]:
            low = i
        if w[i] - w[low] >= depth and (not found or w[i] > w[second]):
            second, best_low, found = i, low, True
        i += step
    if not found:
        return None
    v = best_low
    i = peak + step
    while i != second:
        if w[i] < w[v]:
            v = i
        i += step
    return second, v


def phase_boundary(w, depth):
    """The first element of the dense phase (the valley between two peaks), or -1 with one peak."""
    if len(w) < 3:
        return -1
    peak = int(max(range(len(w)), key=lambda i: (w[i], -i)))
    left, right = _second_peak(w, peak, -1, depth), _second_peak(w, peak, +1, depth)
    if left is None and right is None:
        return -1
    side = right if left is None else left if right is None else (right if w[right[0]] > w[left[0]] else left)
    return side[1]


def _shift_to_mean(ln_pi, n, target):
    lo, hi = -50.0, 50.0
    for _ in range(200):
        if hi - lo <= 1e-12:
            break
        mid = 0.5 * (lo + hi)
        if mean_n(reweight(ln_pi, n, mid), n)[0] < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def coexistence(ln_pi, n, lnz, volume, kT, energy=None, depth=4.0):
    """The coexistence of ln Pi(N) sampled at ln z, or None where no activity within 5 of the one
    that puts <N> mid-range shows two peaks (above Tc): {lnz, boundary, n_vapour, n_liquid,
    rho_vapour, rho_liquid, pressure, u_vapour, u_liquid, barrier} (energies per particle)."""
    import numpy as np
    ln_pi, n = np.asarray(ln_pi, float), np.asarray(n, float)
    N = len(ln_pi)
    mid = _shift_to_mean(ln_pi, n, n[0] + 0.5 * (N - 1))
    step0, dlnz, boundary = 0.25 / N, mid, -1
    for k in range(int(10.0 / step0) + 1):
        dlnz = mid + (1 if k % 2 else -1) * step0 * ((k + 1) // 2)
        boundary = phase_boundary(reweight(ln_pi, n, dlnz), depth)
        if boundary >= 0:
            break
    if boundary < 0:
        return None
    for _ in range(100):
        w = reweight(ln_pi, n, dlnz)
        b = phase_boundary(w, depth)
        if b >= 0:
            boundary = b
        nv, av = mean_n(w, n, 0, boundary)
        nl, al = mean_n(w, n, boundary, N)
        f = av - al
        if abs(f) < 1e-10:
            break
        step = f / (nl - nv)
        if not math.isfinite(step):
            return None
        dlnz += step
    else:
        return None
    out = {"lnz": lnz + dlnz, "boundary": int(n[boundary]), "n_vapour": nv, "n_liquid": nl,
           "rho_vapour": nv / volume, "rho_liquid": nl / volume,
           "pressure": kT / volume * (log_sum_exp(w[:boundary]) - w[0]) if n[0] == 0 else math.nan,
           "u_vapour": math.nan, "u_liquid": math.nan}
    if energy is not None and np.all(np.isfinite(energy)):
        p = np.exp(w)
        out["u_vapour"] = float(np.sum(energy[:boundary] * p[:boundary]) / np.sum(n[:boundary] * p[:boundary]))
        out["u_liquid"] = float(np.sum(energy[boundary:] * p[boundary:]) / np.sum(n[boundary:] * p[boundary:]))
    lo_peak = int(np.argmax(w[:boundary]))
    hi_peak = boundary + int(np.argmax(w[boundary:]))
    out["barrier"] = float(min(w[lo_peak], w[hi_peak]) - np.min(w[lo_peak:hi_peak + 1]))
    return out


def isotherm_point(ln_pi, n, dlnz, volume, kT, coex_dlnz=None, boundary=None, tail=-10.0):
    """(density, pressure) of ln Pi reweighted by dlnz: of the stable phase where the distribution has
    two (elements [0, boundary) below the coexistence's shift coex_dlnz, [boundary, n) above; a finite
    box's mixture of both in between is no state of the bulk), beta P V = ln(sum over it of Pi / Pi(0));
    NaN where exp(ln Pi) at n_max is within e^tail of its peak (the distribution runs into the top
    of the sampled range) or, for the pressure, where n_min > 0."""
    w = reweight(ln_pi, n, dlnz)
    if w[-1] - w.max() > tail:
        return math.nan, math.nan
    i0, i1 = 0, len(w)
    if boundary is not None:
        i0, i1 = (0, boundary) if dlnz < coex_dlnz else (boundary, len(w))
    rho = mean_n(w, n, i0, i1)[0] / volume
    return rho, (kT / volume * (log_sum_exp(w[i0:i1]) - w[0]) if n[0] == 0 else math.nan)


# --- the file ------------------------------------------------------------------------------
def replica_ln_pis(run, s):
    """ln Pi of each replica of state point s from its windows' collection rows (/chains/tmmc),
    and their mean U(N) (NaN where a replica has no visits)."""
    import numpy as np
    g, ch = run.f["results/tmmc"], run.f["chains/tmmc"]
    W = int(g.attrs["windows"])
    per_sp = int(np.sum(run.ds("chains/statepoint")[:] == s))
    R = per_sp // W
    coll, esum, vis = ch["collection"][:], ch["energy_sum"][:], ch["visits"][:]
    lps, us = [], []
    for r in range(R):
        ks = [s * per_sp + w * R + r for w in range(W)]
        c = sum(coll[k] for k in ks)
        tot = c.sum(axis=1)
        t = np.zeros(len(c) - 1)
        ok = (c[:-1, 2] > 0) & (c[1:, 0] > 0)
        t[ok] = np.log(c[:-1, 2][ok] / tot[:-1][ok]) - np.log(c[1:, 0][ok] / tot[1:][ok])
        lp = np.concatenate([[0.0], np.cumsum(t)])
        lps.append(lp - log_sum_exp(lp))
        v = sum(vis[k] for k in ks)
        with np.errstate(invalid="ignore", divide="ignore"):
            us.append(np.where(v > 0, sum(esum[k] for k in ks) / np.maximum(v, 1), np.nan))
    return np.array(lps), np.array(us)


COEX_KEYS = ["lnz", "rho_vapour", "rho_liquid", "pressure", "u_vapour", "u_liquid", "barrier"]


def _mean_se(values):
    import numpy as np
    v = np.array([x for x in values if x is not None and math.isfinite(x)])
    if len(v) == 0:
        return math.nan, math.nan
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else math.nan)


def analyse(run, lnz_grid, depth):
    """Per state point: T, sampled ln z, the pooled ln Pi and its coexistence, each coexistence value's
    mean and standard error over the replicas' own, and the isotherm on lnz_grid."""
    import numpy as np
    if "results/tmmc" not in run.f:
        run.fail("tmmc: no /results/tmmc: not a grand-canonical run ([ensemble] type = gcmc)")
    g = run.f["results/tmmc"]
    n = g["n"][:].astype(float)
    volume = float(g.attrs["volume"])
    T = run.ds("statepoints/temperature")[:]
    kT_per_T = 0.008314462618 if run.unit("statepoints/temperature") == "K" else 1.0
    out = []
    for s in range(run.nstate):
        kT = T[s] * kT_per_T
        lnz0 = float(g["lnz"][s])
        if int(g["missing_transitions"][s]):
            run.fail("tmmc: state point %d: ln Pi lacks %d transitions (/results/tmmc/missing_transitions): run "
                     "longer" % (s, int(g["missing_transitions"][s])))
        mean = g["ln_pi"][s] - log_sum_exp(g["ln_pi"][s])
        energy = g["energy"][s]
        lps, us = replica_ln_pis(run, s)
        # U(N) is canonical, the same in every replica: where one never visited an N, the pooled value
        us = np.where(np.isfinite(us), us, energy)
        pooled = coexistence(mean, n, lnz0, volume, kT, energy, depth)
        reps = [coexistence(lp, n, lnz0, volume, kT, u, depth) for lp, u in zip(lps, us)]
        coex = None
        if pooled is not None:
            coex = dict(pooled)
            for k in COEX_KEYS:
                m, se = _mean_se([r[k] if r else None for r in reps])
                coex[k + "_stderr"] = se
            coex["replicas_two_phase"] = sum(r is not None for r in reps)
        branch = {}
        if coex:  # the stable phase on each side of coexistence
            branch = {"coex_dlnz": coex["lnz"] - lnz0, "boundary": coex["boundary"] - int(n[0])}
        iso = np.array([[isotherm_point(lp, n, z - lnz0, volume, kT, **branch) for z in lnz_grid] for lp in lps])
        iso_mean = np.array([isotherm_point(mean, n, z - lnz0, volume, kT, **branch) for z in lnz_grid])
        iso_se = iso.std(axis=0, ddof=1) / math.sqrt(len(lps)) if len(lps) > 1 else np.full(iso_mean.shape, np.nan)
        out.append({"T": float(T[s]), "kT": kT, "lnz0": lnz0, "n": n, "ln_pi": mean,
                    "ln_pi_stderr": g["ln_pi_stderr"][s], "coex": coex, "iso": iso_mean, "iso_stderr": iso_se,
                    "replicas": len(lps)})
    return out, volume


def lnz_values(run, spec):
    """The isotherm's ln z: 'a:b:k' (k values), a comma list, or by default ln z sampled +- 2 in 81."""
    import numpy as np
    if spec:
        try:
            if ":" in spec:
                a, b, k = spec.split(":")
                return np.linspace(float(a), float(b), int(k))
            return np.array([float(x) for x in spec.split(",")])
        except ValueError:
            raise AnalyzeError("--lnz %r: expected start:stop:count or a comma list" % spec) from None
    z = run.f["results/tmmc/lnz"][:]
    return np.linspace(z.min() - 2.0, z.max() + 2.0, 81)


# --- output ------------------------------------------------------------------------------------
def print_table(res, stream):
    stream.write("%10s %10s %24s %22s %22s %24s %22s %22s %14s\n" % (
        "T", "ln z", "ln z_coex", "rho_vapour", "rho_liquid", "P_sat", "U/N vapour", "U/N liquid",
        "beta dF"))
    for r in res:
        c = r["coex"]
        if c is None:
            stream.write("%10.5g %10.5g %24s\n" % (r["T"], r["lnz0"], "one phase (no second peak)"))
            continue
        stream.write("%10.5g %10.5g %24s %22s %22s %24s %22s %22s %14s\n" % (
            r["T"], r["lnz0"], fmt_pm(c["lnz"], c["lnz_stderr"]), fmt_pm(c["rho_vapour"], c["rho_vapour_stderr"]),
            fmt_pm(c["rho_liquid"], c["rho_liquid_stderr"]), fmt_pm(c["pressure"], c["pressure_stderr"]),
            fmt_pm(c["u_vapour"], c["u_vapour_stderr"]), fmt_pm(c["u_liquid"], c["u_liquid_stderr"]),
            fmt_pm(c["barrier"], c["barrier_stderr"])))
    stream.write("mean ± standard error over the replicas' own ln Pi (the values: of their mean); beta dF: the "
                 "barrier, ln Pi of the lower peak over the valley at coexistence\n")


def write_h5(path, run, res, grid, volume, args):
    """Into a new file (new_h5: no half file on failure)."""
    import numpy as np
    f = new_h5(path)
    with f:
        source_attrs(f, run)
        f.attrs["mcens_analyze_version"] = args.analyze_version
        g = f.create_group("tmmc")
        g.attrs["volume"] = volume
        g.attrs["depth"] = args.depth
        g.create_dataset("temperature", data=[r["T"] for r in res])
        g.create_dataset("lnz_sampled", data=[r["lnz0"] for r in res])
        c = g.create_group("coexistence")
        c.attrs["description"] = ("per state point: the coexistence of the mean ln Pi, NaN above Tc; *_stderr "
                                  "from the replicas' own (NaN with one replica)")
        for k in COEX_KEYS:
            for suffix in ("", "_stderr"):
                c.create_dataset(k + suffix, data=[r["coex"][k + suffix] if r["coex"] else math.nan for r in res])
        i = g.create_group("isotherm")
        i.create_dataset("lnz", data=grid)
        i.create_dataset("density", data=np.array([r["iso"][:, 0] for r in res]))
        i.create_dataset("density_stderr", data=np.array([r["iso_stderr"][:, 0] for r in res]))
        i.create_dataset("pressure", data=np.array([r["iso"][:, 1] for r in res]))
        i.create_dataset("pressure_stderr", data=np.array([r["iso_stderr"][:, 1] for r in res]))
        i.attrs["description"] = ("<N>/V and P = kT/V ln(Xi) of ln Pi reweighted to each ln z; below the "
                                  "critical temperature of the stable phase (the vapour's N below ln z_coex, the "
                                  "liquid's above); NaN where the distribution reaches n_max")
    os.replace(path + ".tmp", path)


def plot_figures(run, res, grid, outdir, gibbs_file):
    import numpy as np
    plt = plot_setup()
    # ln Pi at coexistence (or as sampled above Tc), with the replicas' band
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for r in res:
        dl = (r["coex"]["lnz"] - r["lnz0"]) if r["coex"] else 0.0
        w = reweight(r["ln_pi"], r["n"], dl)
        line, = ax.plot(r["n"], w, label="T = %g%s" % (r["T"], "" if r["coex"] else " (as sampled)"))
        se = r["ln_pi_stderr"]
        if np.isfinite(se).any():
            ax.fill_between(r["n"], w - se, w + se, color=line.get_color(), alpha=0.3, lw=0)
    ax.set_xlabel("N")
    ax.set_ylabel(r"$\ln \Pi(N)$ at coexistence")
    ax.legend(fontsize=8)
    finish(fig, "Macrostate distributions reweighted to equal phase areas (bands: ±1 standard error)")
    save_figure(fig, os.path.join(outdir, "tmmc_ln_pi.png"))
    # the isotherms: density against ln z, and pressure against density
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.5))
    for r in res:
        rho, p = r["iso"][:, 0], r["iso"][:, 1]
        below = grid < (r["coex"]["lnz"] if r["coex"] else math.inf)  # the branches apart: no line across the jump
        line, = a1.plot(grid[below], rho[below], label="T = %g" % r["T"])
        a1.plot(grid[~below], rho[~below], color=line.get_color())
        a2.plot(rho[below], p[below], color=line.get_color())
        a2.plot(rho[~below], p[~below], color=line.get_color())
        if r["coex"]:
            c = r["coex"]
            a1.axvline(c["lnz"], color=line.get_color(), ls=":", lw=0.8)
            a2.plot([c["rho_vapour"], c["rho_liquid"]], [c["pressure"]] * 2, "o--", color=line.get_color(), ms=4)
    a1.set_xlabel(r"$\ln z$")
    a1.set_ylabel(r"$\langle N \rangle / V$")
    a2.set_xlabel(r"$\langle N \rangle / V$")
    a2.set_ylabel(r"$P$")
    a1.legend(fontsize=8)
    finish(fig, "Isotherms from ln Pi, the stable phase on each side of coexistence (dotted: ln z_coex; dashed: the "
           "coexisting densities at P_sat)")
    save_figure(fig, os.path.join(outdir, "tmmc_isotherm.png"))
    # the phase diagram: coexisting densities against T, with a Gibbs-ensemble file's where given
    two = [r for r in res if r["coex"]]
    if two:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        for key, mark in (("rho_vapour", "o"), ("rho_liquid", "o")):
            ax.errorbar([r["coex"][key] for r in two], [r["T"] for r in two],
                        xerr=[r["coex"][key + "_stderr"] for r in two], fmt=mark, color="C0",
                        label="TMMC (this file)" if key == "rho_vapour" else None)
        if gibbs_file:
            from .run import Run
            gr = Run(gibbs_file)
            if "results/liquid_density/mean" not in gr.f:
                raise AnalyzeError("%s: no /results/liquid_density: not a Gibbs-ensemble run" % gibbs_file)
            t = gr.ds("statepoints/temperature")[:]
            for k in ("liquid", "vapour"):
                ax.errorbar(gr.ds("results/%s_density/mean" % k)[:], t, xerr=gr.ds("results/%s_density/stderr" % k)[:],
                            fmt="s", mfc="none", color="C1", label="Gibbs ensemble (%s)" % os.path.basename(gibbs_file)
                            if k == "liquid" else None)
        ax.set_xlabel(r"$\rho$")
        ax.set_ylabel("T")
        ax.legend(fontsize=8)
        finish(fig, "Vapour-liquid coexistence from ln Pi")
        save_figure(fig, os.path.join(outdir, "tmmc_phase_diagram.png"))
    plt.close("all")


def add_parser(sub):
    p = sub.add_parser("tmmc", help="coexistence and isotherms from a grand-canonical run's ln Pi(N)",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("file", help="mcens output of a run with [ensemble] type = gcmc")
    p.add_argument("--lnz", help="the isotherm's ln z: start:stop:count or a comma list (default: as sampled "
                                 "+- 2, 81 values)")
    p.add_argument("--depth", type=float, default=4.0,
                   help="how far (in ln Pi) a second peak must rise above the valley to count as a phase (4)")
    p.add_argument("--gibbs", help="a Gibbs-ensemble output whose coexistence densities join the phase diagram")
    p.add_argument("--out", help="the HDF5 file written (default FILE-tmmc.h5)")
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.add_argument("-o", "--output", metavar="DIR", help="directory for tmmc_ln_pi.png, tmmc_isotherm.png and "
                   "tmmc_phase_diagram.png (default: FILE without .h5, plus -tmmc)")


def main(run, args):
    import sys
    if not args.depth > 0:
        raise AnalyzeError("--depth %g: expected > 0" % args.depth)
    grid = lnz_values(run, args.lnz)
    res, volume = analyse(run, grid, args.depth)
    stem = os.path.splitext(run.path)[0]
    out = args.out or stem + "-tmmc.h5"
    if os.path.exists(out) and os.path.samefile(out, run.path):
        raise AnalyzeError("%s: is the run's file; tmmc writes a new file" % out)
    if os.path.exists(out) and not args.force:
        raise AnalyzeError("%s: exists; tmmc writes a new file (--force to replace it)" % out)
    print_table(res, sys.stdout)
    write_h5(out, run, res, grid, volume, args)
    outdir = args.output or stem + "-tmmc"
    figure_dir(outdir)
    plot_figures(run, res, grid, outdir, args.gibbs)
    print(out)
    print(outdir)
    return 0
