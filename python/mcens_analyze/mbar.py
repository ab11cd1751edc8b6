"""mcens-analyze mbar: MBAR reweighting along the temperature axis (issue 15) into a new HDF5
file, a table and a figure."""

import json
import os
import sys

from .errors import AnalyzeError
from .figures import colours, figure_counts, finish, grid, plot_setup
from .labels import TEX_NAME, axis_label, bracket, fmt_pm, tex_name, text_name
from .outputs import figure_dir, new_h5, open_out, save_figure, source_attrs
from .reweight import (KT_PER_TEMPERATURE, MBAR_CITATION, MIN_OVERLAP, Ladder, estimate_grid,
                       kinetic_per_particle, ladders, neighbour_overlap, particles, solve_mbar)


MBAR_DESCRIPTION = {
    "energy": "MBAR estimate of the potential energy per particle (molecules: per site) U/N",
    "enthalpy": "MBAR estimate of the configurational enthalpy per particle (U + P V)/N",
    "density": "MBAR estimate of the number density N/V",
    "heat_capacity": "MBAR estimate of C/N = kinetic + N var(x)/kT^2, x = U/N (nvt: C_V) or H/N "
                     "(npt: C_P), as mcens's /results/heat_capacity; error by the delta method",
}


def write_estimates(g, est, units):
    for name, (mean, err) in est.items():
        sub = g.create_group(name)
        sub.attrs["description"] = MBAR_DESCRIPTION[name]
        for k, v in (("mean", mean), ("stderr", err)):
            d = sub.create_dataset(k, data=v)
            d.attrs["unit"] = units[name]


def write_mbar(path, run, out, units, t_unit, version):
    """The estimates of every ladder into a new file (new_h5: no half file on failure); version:
    mcens-analyze's, recorded as an attribute."""
    import importlib.metadata
    f = new_h5(path)
    with f:
        source_attrs(f, run)
        f.attrs["estimator"] = MBAR_CITATION + ", pymbar " + importlib.metadata.version("pymbar")
        f.attrs["mcens_analyze_version"] = version
        f.attrs["ensemble"] = "npt" if run.npt else ("open cluster" if run.cluster else "nvt")
        for i, (lad, grid_t, est, sampled, overlap) in enumerate(out):
            g = f.create_group("ladder_%03d" % i)
            if lad.value is not None:
                name = "pressure" if run.npt else "density"
                g.attrs[name] = lad.value
                g.attrs[name + "_unit"] = lad.unit
            g.attrs["label"] = lad.text or "all state points (open cluster)"
            g.attrs["statepoints"] = lad.statepoints
            g.attrs["reduced_potential"] = "N (%s) / kT" % ("H/N" if run.npt else "U/N")
            g.attrs["particles"] = units["_n"]
            g.attrs["kinetic_per_particle"] = units["_kin"]
            g.attrs["kT_per_temperature"] = units["_ktpt"]
            g.attrs["min_neighbour_overlap"] = overlap[1]
            d = g.create_dataset("temperature", data=grid_t)
            d.attrs["unit"] = t_unit
            write_estimates(g, est, units)
            s = g.create_group("sampled")
            s.attrs["description"] = "MBAR estimates at the sampled temperatures"
            d = s.create_dataset("temperature", data=lad.temps)
            d.attrs["unit"] = t_unit
            s.create_dataset("samples", data=lad.n_k).attrs["description"] = \
                "uncorrelated samples of each temperature (all its chains)"
            s.create_dataset("overlap", data=overlap[0]).attrs["description"] = \
                "MBAR overlap matrix of the sampled temperatures (pymbar computeOverlap)"
            write_estimates(s, sampled, units)
            c = g.create_group("chains")
            c.attrs["description"] = "the chains of the ladder and the samples taken from each"
            sp = run.chain_statepoints()
            for k, v, what in (
                    ("chain", lad.chains, "index into /chains"),
                    ("statepoint", sp[lad.chains], "its state point"),
                    ("equilibration_sample", lad.cut, "first production sample used (%s)"
                     % lad.cut_source),
                    ("statistical_inefficiency", lad.g, "g of the series after the cut (the "
                     "largest of the series estimated, npt); every g-th sample is used"),
                    ("samples_used", lad.used, "uncorrelated samples taken (0: the chain had "
                     "fewer than 2 samples after the cut and is left out)")):
                d = c.create_dataset(k, data=v)
                d.attrs["description"] = what
    os.replace(path + ".tmp", path)


def tex_obs(run, name):
    return tex_name(run, name) if name in ("heat_capacity",) else TEX_NAME[name]


def plot_mbar(run, plt, out, units, t_unit):
    """A panel per observable against T: each ladder's MBAR curve with a ±1 standard-error band,
    and mcens's direct average (/results) at each sampled state point with its error bar."""
    import numpy as np
    from matplotlib.lines import Line2D
    names = ["enthalpy", "heat_capacity", "energy", "density"] if run.npt else \
        ["energy", "heat_capacity"]
    fig, axs = grid(plt, len(names), ncols=2, w=3.2, h=2.5)
    cs = colours(plt, len(out))
    t_sp = run.ds("statepoints/temperature")[:]
    for ax, name in zip(axs, names):
        direct = run.result(name) if "results/%s/mean" % name in run.f else None
        for c, (lad, grid_t, est, _, _) in zip(cs, out):
            m, e = est[name]
            ax.fill_between(grid_t, m - e, m + e, color=c, alpha=0.3, linewidth=0, gid="band")
            ax.plot(grid_t, m, color=c, label=lad.label, gid="curve")
            if direct is not None:
                sp = np.array(lad.statepoints)
                eb = ax.errorbar(t_sp[sp], direct["mean"][sp], yerr=np.nan_to_num(direct["stderr"][sp]),
                                 fmt="o", mfc="white", mec=c, ecolor=c, capsize=2, zorder=3)
                eb.lines[0].set_gid("errorbar")
        ax.set_xlabel(axis_label(TEX_NAME["temperature"], t_unit))
        ax.set_ylabel(axis_label(tex_obs(run, name), units[name]))
    handles = []
    if out[0][0].label is not None:
        handles += [Line2D([], [], color=c, label=lad.label) for c, (lad, *_) in zip(cs, out)]
    handles += [Line2D([], [], color="0.4", lw=6, alpha=0.3, label="MBAR ± 1 s.e."),
                Line2D([], [], color="0.4", marker="o", mfc="white", ls="", label="direct (mcens) ± 1 s.e.")]
    title = "MBAR reweighting over the sampled temperatures%s; points: mcens's direct averages" % (
        "" if run.cluster else " of each " + ("pressure" if run.npt else "density"))
    # the table's warning, on the figure too: a figure travels without its table
    poor = [(lad, overlap[1]) for lad, _, _, _, overlap in out if overlap[1] < MIN_OVERLAP]
    for lad, o in poor:
        title += "\nWARNING%s: smallest neighbour overlap %.3f < %g: poorly connected, errors " \
            "unreliable (add temperatures between)" % ("" if lad.label is None else " (%s)" % lad.label,
                                                        o, MIN_OVERLAP)
    finish(fig, title, handles, ncol=min(len(handles), 5))
    return fig


def temperature_grid(run, lads, args):
    """[grid of T] per ladder: --points from --tmin/--tmax (default each ladder's own sampled
    range), which must lie within every ladder's range (MBAR does not extrapolate honestly)."""
    import numpy as np
    if args.points < 2:
        run.fail("mbar: --points %d: at least 2" % args.points)
    grids = []
    for lad in lads:
        lo = lad.temps[0] if args.tmin is None else args.tmin
        hi = lad.temps[-1] if args.tmax is None else args.tmax
        if lo >= hi:
            run.fail("mbar: --tmin %g is not below --tmax %g" % (lo, hi))
        if not lad.temps[0] <= lo < hi <= lad.temps[-1]:
            run.fail("mbar: grid %g to %g is outside the sampled range %g to %g%s" % (
                lo, hi, lad.temps[0], lad.temps[-1],
                "" if lad.text is None else " of the ladder at " + lad.text))
        grids.append(np.linspace(lo, hi, args.points))
    return grids


def mbar_series(run):
    """{name: [C, K]} of the series the ladders need: U/N, and in npt H/N and the density."""
    names = ["energy"] + (["enthalpy", "density"] if run.npt else [])
    series, units = {}, {}
    for n in names:
        if "chains/" + n not in run.f and "observables/%s/value" % n not in run.f:
            run.fail("no per-sample %s series (/chains/%s): nothing to reweight" % (n, n))
        series[n] = run.series(n)[1]
        units[n] = run.unit("observables/%s/value" % n if "observables/%s/value" % n in run.f
                            else "chains/" + n)
    return series, units


def print_mbar_table(run, out, units, t_unit, stream):
    """Per ladder, MBAR against mcens's direct averages at the sampled temperatures."""
    names = ["energy", "heat_capacity"] + (["enthalpy", "density"] if run.npt else [])
    for i, (lad, grid_t, est, sampled, overlap) in enumerate(out):
        stream.write("ladder_%03d%s: %d temperatures, %d chains, %d uncorrelated samples; grid %g "
                     "to %g (%d points); smallest neighbour overlap %.3f%s\n" % (
                         i, "" if lad.text is None else " (%s)" % lad.text,
                         len(lad.temps), len(lad.chains), lad.n_k.sum(), grid_t[0], grid_t[-1],
                         len(grid_t), overlap[1],
                         "  (< %g: poorly connected, errors unreliable)" % MIN_OVERLAP
                         if overlap[1] < MIN_OVERLAP else ""))
        head = ["T" + bracket(t_unit)]
        for n in names:
            head += [text_name(run, n) + " MBAR" + bracket(units[n]), "direct"]
        rows = []
        t_sp = run.ds("statepoints/temperature")[:]
        for j, t in enumerate(lad.temps):
            row = ["%g" % t]
            sp = [s for s in lad.statepoints if t_sp[s] == t]
            for n in names:
                row.append(fmt_pm(float(sampled[n][0][j]), float(sampled[n][1][j])))
                d = run.result(n) if "results/%s/mean" % n in run.f else None
                row.append(fmt_pm(float(d["mean"][sp[0]]), float(d["stderr"][sp[0]]))
                           if d is not None and len(sp) == 1 else "-")
            rows.append(row)
        width = [max(len(h), *(len(r[c]) for r in rows)) for c, h in enumerate(head)]
        for line in [head] + rows:
            stream.write("  " + "  ".join(c.rjust(w) for c, w in zip(line, width)).rstrip() + "\n")
    stream.write("mean ± standard error; MBAR from the uncorrelated samples after each chain's "
                 "equilibration cut, direct from /results (all production samples).\n")


def cmd_mbar(run, args):
    if run.gibbs:  # the weight of a Gibbs chain is not exp(-beta U) of one box
        run.fail("mbar: a Gibbs-ensemble run has no single-box energy to reweight (see coexistence)")
    if run.gcmc:  # its chains' N varies; ln Pi(N) is reweighted in ln z by mcens-analyze tmmc
        run.fail("mbar: a grand-canonical run is reweighted from ln Pi(N) (see tmmc)")
    stem = os.path.splitext(run.path)[0]
    out_path = args.out or stem + "-mbar.h5"
    if os.path.exists(out_path) and not args.force:
        raise AnalyzeError("%s: exists; mbar writes a new file (--force to replace it)" % out_path)
    t_unit = run.unit("statepoints/temperature")
    if t_unit not in KT_PER_TEMPERATURE:
        run.fail("mbar: temperature unit %r is neither K nor epsilon/k_B" % t_unit)
    series, units = mbar_series(run)
    units["heat_capacity"] = "k_B"
    n, kin = particles(run), kinetic_per_particle(run)
    units.update(_n=n, _kin=kin, _ktpt=KT_PER_TEMPERATURE[t_unit])
    lads, skipped = [], []
    for label, value, unit, sps in ladders(run):
        lad = Ladder(run, label, value, unit, sps, series, KT_PER_TEMPERATURE[t_unit])
        (lads if len(lad.temps) >= 2 else skipped).append(lad)
    if not lads:
        run.fail("mbar: no %s has two sampled temperatures to reweight between" % (
            "pressure" if run.npt else ("ladder" if run.cluster else "density")))
    grids = temperature_grid(run, lads, args)
    out = []
    for lad, grid_t in zip(lads, grids):
        mbar = solve_mbar(lad, n)
        est = estimate_grid(mbar, lad, n, kin, grid_t * KT_PER_TEMPERATURE[t_unit])
        sampled = estimate_grid(mbar, lad, n, kin, lad.kt)
        out.append((lad, grid_t, est, sampled, neighbour_overlap(mbar)))
    write_mbar(out_path, run, out, units, t_unit, args.analyze_version)
    print_mbar_table(run, out, units, t_unit, sys.stdout)
    for lad in skipped:
        print("not reweighted (one temperature): %s" % lad.text)
    plt = plot_setup()
    figdir = args.output or stem + "-mbar"
    figure_dir(figdir)
    fig = plot_mbar(run, plt, out, units, t_unit)
    path = os.path.join(figdir, "mbar.png")
    save_figure(fig, path)
    if args.manifest:
        with open_out(args.manifest) as f:
            json.dump({"mbar.png": figure_counts(fig)}, f, indent=1)
    plt.close(fig)
    print(out_path)
    print(path)
    return 0


def add_parser(sub):
    p = sub.add_parser("mbar", help="U/N and C/N (npt also H/N and density) on a fine temperature "
                       "grid by MBAR reweighting, into a new HDF5 file and a figure")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--points", metavar="N", type=int, default=101,
                   help="temperatures in the grid (default 101)")
    p.add_argument("--tmin", metavar="T", type=float, help="lowest grid temperature (default: the "
                   "lowest sampled one of each ladder)")
    p.add_argument("--tmax", metavar="T", type=float, help="highest grid temperature (default: the "
                   "highest sampled one)")
    p.add_argument("--out", metavar="FILE.h5", help="the estimates (default: FILE without .h5, plus "
                   "-mbar.h5); an existing file is kept unless --force")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument("-o", "--output", metavar="DIR", help="directory for the figure (default: FILE "
                   "without .h5, plus -mbar)")
    p.add_argument("--manifest", metavar="JSON", help="also write the figure's panels and curve "
                   "counts as JSON (the tests read it)")


main = cmd_mbar
