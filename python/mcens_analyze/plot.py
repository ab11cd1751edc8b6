"""mcens-analyze plot: PNG figures of g(r), the results against the state point, acceptance,
per-chain time series and replica exchange."""

import json
import math
import os

from .figures import colours, figure_counts, finish, grid, groups, plot_setup
from .labels import TEX_NAME, axis_label, tex_name, value_label
from .outputs import figure_dir, open_out, save_figure
from .stats import equilibration_cut


def plot_rdf(run, plt):
    """g(r) per species pair (panels; and per group of state points where there are several),
    a curve per state point, with a band of the replicas' spread where /chains/rdf_g exists."""
    import numpy as np
    r = run.ds("results/rdf/r")[:]
    g = run.ds("results/rdf/g")[:]
    pairs = run.strings("results/rdf/pairs")
    rows = list(range(len(pairs)))
    if "molecules/nsites" in run.f and (run.ds("molecules/nsites")[:] == 1).all():
        rows = [p for p in rows if pairs[p] != "centres"]  # one-site molecules: the site row again
    per_chain = run.f["chains/rdf_g"][:] if "chains/rdf_g" in run.f else None
    sp = run.chain_statepoints()
    x, grp = groups(run)
    panels = [(p, gl, idx) for p in rows for gl, idx in grp]
    # a row of panels per species pair when there are a few groups, else as many as fit
    fig, axs = grid(plt, len(panels), ncols=len(grp) if 1 < len(grp) <= 3 else 3)
    banded = 0
    for ax, (p, gl, idx) in zip(axs, panels):
        cs = colours(plt, len(idx))
        for c, s in zip(cs, idx):
            ax.plot(r, g[s, p], color=c, label=value_label(x[0], x[1][s], x[2]), gid="curve")
            if per_chain is not None:
                reps = per_chain[sp == s, p]
                if len(reps) > 1:
                    se = reps.std(axis=0, ddof=1) / math.sqrt(len(reps))
                    ax.fill_between(r, g[s, p] - se, g[s, p] + se, color=c, alpha=0.3,
                                    linewidth=0, gid="band")
                    banded = max(banded, len(reps))
        name = pairs[p]
        title = "centre-centre" if name == "centres" else ("" if name == "all-all" else name)
        ax.set_title(", ".join(t for t in (title, gl) if t))
        ax.set_xlabel(axis_label(r"$r$", run.unit("results/rdf/r")))
        ax.set_ylabel(r"$g(r)$")
        if not run.cluster:
            ax.axhline(1.0, color="0.7", lw=0.6, zorder=0)
        ax.set_xlim(0, r[-1] + (r[1] - r[0]) / 2)
        if len(idx) <= 6:
            # the legend goes top right, where a fluid's g(r) has long settled near 1; only
            # where the curves still rise high there (a cluster's, a solid's) is room made
            # above them
            top = ax.get_ylim()[1]
            right = max(np.nanmax(g[s, p][len(r) // 2:]) for s in idx)
            if right > 0.5 * top:
                ax.set_ylim(top=1.5 * top)
            ax.legend(loc="upper right")
        else:  # many curves: a colour bar of the state-point axis reads better than a legend
            import matplotlib as mpl
            vals = x[1][idx]
            sm = mpl.cm.ScalarMappable(mpl.colors.Normalize(vals.min(), vals.max()),
                                       mpl.colors.ListedColormap(cs))
            fig.colorbar(sm, ax=ax, label=axis_label(TEX_NAME[x[0]], x[2]), pad=0.02)
    note = ("bands: ±1 standard error over the %d replicas" % banded) if banded else (
        "no per-chain g(r) in the file: no replica bands" if per_chain is None else
        "one replica per state point: no bands")
    if run.cluster:
        note += "; open cluster: g(r) normalised to the wall's sphere, only its shape means something"
    if run.gibbs:  # each sample counts the denser box; rho is the run's total density
        note += "; Gibbs ensemble: the liquid box's g(r), rho the total density"
    finish(fig, "Radial distribution functions\n" + note)
    return fig


# Gibbs ensemble: the liquid's and the vapour's value of a quantity share a panel, so that
# coexistence (mu_l = mu_v, P_l = P_v) and the gap between the phases read at a glance
PHASE_STYLE = {None: dict(marker="o", ls="-"), "liquid": dict(marker="o", ls="-"),
               "vapour": dict(marker="s", ls="--")}


def statepoint_panels(run, names):
    """[(quantity, label suffix, [(result name, column or None, phase or None)])]: a panel per
    result column, except that in the Gibbs ensemble liquid_X and vapour_X share one, and so do
    each species' columns of the chemical potential (the liquid's species, then the vapour's)."""
    if not run.gibbs:
        return [(n, suffix, [(n, col, None)]) for n in names for suffix, col in run.columns(n)]
    panels = []
    for n in names:
        q = n.split("_", 1)[1] if n.startswith(("liquid_", "vapour_")) else None
        if q and "liquid_" + q in names and "vapour_" + q in names:
            if n.startswith("liquid_"):
                panels.append((q, "", [("liquid_" + q, None, "liquid"), ("vapour_" + q, None, "vapour")]))
            continue
        if n == "chemical_potential":  # its columns: the liquid's kinds, then the vapour's
            labels = run.kind_names()
            m = len(labels)
            for i in range(m):
                panels.append((n, "[%s]" % labels[i] if m > 1 else "", [(n, i, "liquid"), (n, m + i, "vapour")]))
            continue
        panels += [(n, suffix, [(n, col, None)]) for suffix, col in run.columns(n)]
    return panels


def plot_vs_statepoint(run, plt, names, title, full_range=None):
    """One panel per observable against the state-point axis (statepoint_panels), a curve per
    group (and per phase), error bars of the pooled standard error; open markers where blocking
    did not converge. full_range=(lo, hi): each panel's y axis spans at least that, so that noise
    in a quantity held nearly constant (an adapted acceptance) does not look like structure."""
    import numpy as np
    from matplotlib.lines import Line2D
    x, grp = groups(run)
    panels = statepoint_panels(run, names)
    fig, axs = grid(plt, len(panels), ncols=2 if len(panels) in (2, 4) else 3, w=2.45, h=2.1)
    unconverged = False
    phases = []
    cs = colours(plt, len(grp))
    for ax, (quantity, suffix, series) in zip(axs, panels):
        for n, col, phase in series:
            r = run.result(n)
            pick = (lambda a: a) if col is None else (lambda a, col=col: a[:, col])
            m, e, c = pick(r["mean"]), pick(r["stderr"]), pick(r["converged"])
            style = PHASE_STYLE[phase]
            if phase and phase not in phases:
                phases.append(phase)
            for colour, (gl, idx) in zip(cs, grp):
                idx = np.array(idx)
                # no error estimate (one replica of a per-chain quantity): no bar
                eb = ax.errorbar(x[1][idx], m[idx], yerr=np.nan_to_num(e[idx]), color=colour,
                                 capsize=2, label=gl, **style)
                eb.lines[0].set_gid("errorbar")  # the data line; the container takes no gid
                bad = idx[c[idx] == 0]
                if len(bad):
                    unconverged = True
                    ax.plot(x[1][bad], m[bad], style["marker"], mfc="white", mec=colour, zorder=3)
        if full_range is not None:
            lo, hi = ax.get_ylim()
            ax.set_ylim(min(lo, full_range[0]), max(hi, full_range[1]))
        tex = tex_name(run, quantity)
        ax.set_ylabel(axis_label(tex + (" " + suffix.strip("[]") if suffix else ""),
                                 run.result(series[0][0])["unit"]))
        ax.set_xlabel(axis_label(TEX_NAME[x[0]], x[2]))
    if unconverged:
        title += "\n(open markers: blocking did not converge, the error bar is not trustworthy)"
    handles = list(axs[0].containers[:len(grp)]) if grp[0][0] is not None else []
    handles += [Line2D([], [], color="0.3", label=ph, **PHASE_STYLE[ph]) for ph in phases]
    finish(fig, title, handles or None, ncol=min(len(handles), 6) or 1)
    return fig


def plot_series(run, plt, name, max_panels=12, max_replicas=4):
    """Each chain's series NAME against sweeps, a panel per state point, a colour per replica,
    each chain's equilibration cut dashed in its colour."""
    import numpy as np
    from matplotlib.lines import Line2D
    sweeps, v = run.series(name)
    sp = run.chain_statepoints()
    rep = run.ds("chains/replica")[:]
    states = np.unique(np.linspace(0, run.nstate - 1, min(max_panels, run.nstate)).round()
                       .astype(int))
    shown = [k for s in states for k in np.flatnonzero(sp == s)[:max_replicas]]
    cuts, source = equilibration_cut(run, v, shown)
    fig, axs = grid(plt, len(states), ncols=3, w=2.45, h=1.9)
    axes = run.axes()
    unit = run.unit("observables/%s/value" % name if "observables/%s/value" % name in run.f
                    else "chains/" + name)
    shown_all = len(states) == run.nstate
    nrep = 0
    for ax, s in zip(axs, states):
        chains = np.flatnonzero(sp == s)
        shown_all &= len(chains) <= max_replicas
        for k in chains[:max_replicas]:
            c = plt.get_cmap("tab10")(rep[k] % 10)
            nrep = max(nrep, rep[k] + 1)
            ax.plot(sweeps, v[k], color=c, lw=0.6, gid="curve")
            ax.axvline(sweeps[min(cuts[k], len(sweeps) - 1)], color=c, ls="--", lw=1.0, gid="cut")
        ax.set_title(", ".join(value_label(a[0], a[1][s], a[2]) for a in axes), fontsize=8)
        ax.set_xlabel("sweep")
        ax.set_ylabel(axis_label(tex_name(run, name), unit))
    handles = [Line2D([], [], color=plt.get_cmap("tab10")(r % 10), lw=1.2, label="replica %d" % r)
               for r in range(min(nrep, max_replicas))]
    handles.append(Line2D([], [], color="0.3", ls="--", lw=1.0,
                          label="equilibrated from (%s)" % source))
    title = "%s of each chain over the production samples" % tex_name(run, name)
    if not shown_all:
        title += " (%d of %d state points, at most %d replicas each)" % (
            len(states), run.nstate, max_replicas)
    finish(fig, title, handles, ncol=len(handles))
    return fig


def plot_exchange(run, plt):
    """Replica exchange: the paths of the first ladder's walkers through its temperatures (or
    pressures, or ln z), and each neighbour pair's swap acceptance against the lower rung's value."""
    import numpy as np
    f = run.f
    axis = f["results/exchange"].attrs["axis"]
    axis = axis.decode() if isinstance(axis, bytes) else str(axis)
    values = f["statepoints/" + axis][...]
    unit = f["statepoints/" + axis].attrs.get("unit", b"")
    unit = unit.decode() if isinstance(unit, bytes) else str(unit)
    state, sp = f["chains/state"][...], f["chains/statepoint"][...]
    acc = f["results/exchange/acceptance"][...]
    every = int(f["results/exchange"].attrs["exchange_every"])
    fig, (left, right) = grid(plt, 2, ncols=2, w=3.4, h=2.4)
    # chain 0's ladder: its replica, and its value of the other axis (a walker is named by the
    # chain it started in, so the ladder's walkers are its chains)
    rep = f["chains/replica"][...]
    if axis != "temperature":  # a pressure or ln z ladder runs at one temperature
        other_name = "temperature"
    else:
        other_name = "pressure" if run.npt else ("lnz" if "statepoints/lnz" in f else "density")
    other = f["statepoints/" + other_name][...] if "statepoints/" + other_name in f else np.zeros(len(values))
    ladder = [c for c in range(len(sp)) if rep[c] == rep[0] and other[sp[c]] == other[sp[0]]]
    shown = ladder[:: max(1, -(-len(ladder) // 6))][:6]
    cs = colours(plt, len(shown))
    sample = np.arange(state.shape[1])
    for colour, w in zip(cs, shown):
        left.plot(sample, values[state[w]], color=colour, lw=0.8, label="walker %d" % w, gid="curve")
    left.set_xlabel("sample")
    symbol = {"temperature": "$T$", "pressure": "$P$", "lnz": r"$\ln z$"}.get(axis, axis)
    left.set_ylabel(axis_label(symbol, unit))
    left.legend(fontsize=6, ncol=3, loc="best")
    ok = ~np.isnan(acc)
    right.plot(values[ok], acc[ok], "o", ms=3, gid="curve")
    right.set_xlabel(axis_label("lower rung's " + symbol, unit))
    right.set_ylabel("swap acceptance")
    right.set_ylim(0, 1)
    finish(fig, "Replica exchange every %d sweeps along %s: walkers' paths and swap acceptance" % (every, axis))
    return fig


def cmd_plot(run, args):
    plt = plot_setup()
    outdir = args.output or os.path.splitext(run.path)[0] + "-figures"
    figure_dir(outdir)
    obs = [n for n in run.observables() if run.defined(n)]
    acc = [n for n in obs if n.endswith("acceptance")]
    # mass_density is density times a constant mass: its own panel would repeat density's
    phys = [n for n in obs if n not in acc and not (n == "mass_density" and "density" in obs)]
    if run.gibbs:  # the two boxes swap roles: their averages mix the phases (the liquid_ and vapour_ panels)
        phys = [n for n in phys if not n.startswith("box")]
    figs = [("rdf", lambda: plot_rdf(run, plt))]
    if phys:
        figs.append(("observables", lambda: plot_vs_statepoint(
            run, plt, phys, "Pooled results against the state point")))
    if acc:
        figs.append(("acceptance", lambda: plot_vs_statepoint(run, plt, acc, "Acceptance ratios",
                                                              full_range=(0.0, 1.0))))
    for name in ("energy", "density", "liquid_density", "vapour_density"):
        if "chains/%s" % name in run.f or "observables/%s/value" % name in run.f:
            figs.append(("timeseries_" + name, lambda n=name: plot_series(run, plt, n)))
    if "results/exchange/acceptance" in run.f:
        figs.append(("exchange", lambda: plot_exchange(run, plt)))
    manifest = {}
    for name, make in figs:
        fig = make()
        path = os.path.join(outdir, name + ".png")
        save_figure(fig, path)
        manifest[name + ".png"] = figure_counts(fig)
        plt.close(fig)
        print(path)
    if args.manifest:
        with open_out(args.manifest) as out:
            json.dump(manifest, out, indent=1)
    return 0


def add_parser(sub):
    p = sub.add_parser("plot", help="PNG figures: g(r), results against the state point, "
                       "acceptance, per-chain time series")
    p.add_argument("file", metavar="FILE")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="directory for the figures (default: FILE without .h5, plus -figures)")
    p.add_argument("--manifest", metavar="JSON", help="also write each figure's panels and "
                   "curve counts as JSON (the tests read it)")


main = cmd_plot
