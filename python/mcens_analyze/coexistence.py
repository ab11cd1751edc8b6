"""mcens-analyze coexistence: the critical point of a Gibbs-ensemble temperature sweep into a
new HDF5 file, a table and a phase diagram."""

import math
import os
import sys

from .critical import COEX_DIAMETER, COEX_NAMES, COEX_SCALING, coex_curve, fit_coexistence
from .errors import AnalyzeError
from .outputs import figure_dir, new_h5, save_figure, source_attrs
from .figures import finish, plot_setup
from .labels import TEX_NAME, axis_label, bracket, fmt_pm, tex_unit


# a chain whose /chains/separation is below this did not separate into two phases (mcens's flag)
COEX_SEPARATED = 3.0


def coex_result(run, name):
    """(mean, stderr, unit, blocking_converged or None) of /results/NAME, or None where absent."""
    base = "results/%s/" % name
    if base + "mean" not in run.f:
        return None
    m, e = run.ds(base + "mean")[:], run.ds(base + "stderr")[:]
    if m.shape[0] != run.nstate or e.shape != m.shape:
        run.fail("/%smean and stderr: shapes %s and %s for %d state points" % (
            base, m.shape, e.shape, run.nstate))
    c = run.ds(base + "blocking_converged")[:] if base + "blocking_converged" in run.f else None
    return m, e, run.unit(base + "mean"), c


def coex_points(run, tmin=None):
    """Per state point the two coexistence densities and whether they enter the fit (not below
    tmin, where given: the scaling law is a near-critical law):
    {t, t_unit, unit, l, v (each (mean, stderr, unit, converged)), reason[S] ('' if fitted)}."""
    import numpy as np
    br = {k: coex_result(run, k + "_density") for k in ("liquid", "vapour")}
    missing = ["/results/%s_density" % k for k in br if br[k] is None]
    if missing:
        run.fail("coexistence: no %s: not a Gibbs-ensemble run ([ensemble] type = gibbs)"
                 % " and no ".join(missing))
    if br["liquid"][2] != br["vapour"][2]:
        run.fail("coexistence: liquid density in %r, vapour density in %r" % (br["liquid"][2],
                                                                           br["vapour"][2]))
    reason = []
    for s in range(run.nstate):
        ml, sl = br["liquid"][0][s], br["liquid"][1][s]
        mv, sv = br["vapour"][0][s], br["vapour"][1][s]
        if tmin is not None and run.ds("statepoints/temperature")[s] < tmin:
            reason.append("skipped: below --tmin")
        elif not (np.isfinite(ml) and np.isfinite(mv)):
            reason.append("skipped: no replica separated into two phases")
        elif not (np.isfinite(sl) and np.isfinite(sv) and sl > 0 and sv > 0):
            reason.append("skipped: no standard error")
        else:
            reason.append("")
    return {"t": run.ds("statepoints/temperature")[:], "t_unit": run.unit("statepoints/temperature"),
            "unit": br["liquid"][2], "l": br["liquid"], "v": br["vapour"], "reason": reason}


def coex_separated(run):
    """['k/n' per state point]: of its n chains, the k whose /chains/separation reaches
    COEX_SEPARATED; None without that dataset."""
    if "chains/separation" not in run.f or "chains/statepoint" not in run.f:
        return None
    sep, sp = run.ds("chains/separation")[:], run.chain_statepoints()
    if sep.shape != sp.shape:  # not one number per chain: not the flag this reads
        return None
    return ["%d/%d" % (((sp == s) & (sep >= COEX_SEPARATED)).sum(), (sp == s).sum())
            for s in range(run.nstate)]


def unit_per(unit, t_unit):
    return "%s / %s" % (unit, "(%s)" % t_unit if "/" in t_unit or " " in t_unit else t_unit)


def print_coex_table(run, pts, fit, stream):
    """A row per state point: T, both densities, the pressures, energies and (pure fluid) chemical
    potentials of both phases where the file has them, separated chains, and what the fit made
    of the point."""
    extra = []
    for label, name, col in (("P_l", "liquid_pressure", None), ("P_v", "vapour_pressure", None),
                             ("U_l", "liquid_energy", None), ("U_v", "vapour_energy", None),
                             ("mu_l", "chemical_potential", 0), ("mu_v", "chemical_potential", 1)):
        r = coex_result(run, name)
        if r is not None and (col is None) == (r[0].ndim == 1) and (col is None or r[0].shape[1] == 2):
            extra.append((label, r, col))  # mu of a mixture (more than 2 columns): not shown
    sep = coex_separated(run)
    head = ["state", "T" + bracket(pts["t_unit"]), "rho_l" + bracket(pts["unit"]),
            "rho_v" + bracket(pts["unit"])] + [lab + bracket(r[2]) for lab, r, _ in extra]
    head += (["separated"] if sep else []) + ["note"]
    rows, flagged = [], False
    for s in range(run.nstate):
        row = [str(s), "%.6g" % pts["t"][s]]
        for r, col in [(pts["l"], None), (pts["v"], None)] + [(r, col) for _, r, col in extra]:
            m, e = (r[k][s] if col is None else r[k][s, col] for k in (0, 1))
            cell = fmt_pm(float(m), float(e))
            c = r[3]
            if c is not None and math.isfinite(float(m)) and not (c[s] if col is None else c[s, col]):
                cell += " *"
                flagged = True
            row.append(cell)
        if sep:
            row.append(sep[s])
        note = pts["reason"][s]
        if not note and fit is not None and pts["t"][s] >= fit["p"][0]:
            note = "above the fitted Tc"
        rows.append(row + [note])
    width = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    for line in [head] + rows:
        stream.write("  ".join(c.rjust(w) if i < len(head) - 1 else c
                               for i, (c, w) in enumerate(zip(line, width))).rstrip() + "\n")
    stream.write("\nmean ± standard error, pooled over replicas; l: liquid, v: vapour.\n")
    if sep:
        stream.write("separated: chains whose /chains/separation is at least %g, of the state "
                     "point's chains.\n" % COEX_SEPARATED)
    if flagged:
        stream.write("* blocking_converged = 0: the run was too short for a trustworthy error bar.\n")


def print_coex_fit(pts, fit, used, stream):
    """The fitted parameters with their errors, the correlation of Tc and rho_c, each law's reduced
    chi^2, and warnings: points above Tc, a scatter the error bars do not explain."""
    from scipy.stats import chi2 as chi2_dist
    t_u, u = pts["t_unit"], pts["unit"]
    tu = pts["t"][used]
    stream.write("\ncritical point: %s and %s, beta = %g fixed; weighted least squares of both "
                 "branches, %d temperatures from %g to %g:\n" % (
                     COEX_SCALING, COEX_DIAMETER, fit["beta"], fit["n"], tu.min(), tu.max()))
    for name, v, e, unit in zip(COEX_NAMES, fit["p"], fit["err"], (t_u, u, u, unit_per(u, t_u))):
        stream.write("  %-5s = %s%s\n" % (name, fmt_pm(float(v), float(e)), bracket(unit)))
    stream.write("  correlation of Tc and rho_c: %.3f\n" % (
        fit["cov"][0, 1] / (fit["err"][0] * fit["err"][1])))
    c = fit["chi2"]
    red = {k: c[k][0] / c[k][1] for k in c}  # n >= 3: at least 1 dof each
    p = chi2_dist.sf(*c["joint"])
    stream.write("  reduced chi^2: scaling law %.3g (%d dof), diameter %.3g (%d dof), both branches "
                 "%.3g (%d dof, p = %.2g)\n" % (red["scaling"], c["scaling"][1], red["diameter"],
                                                c["diameter"][1], red["joint"], c["joint"][1], p))
    above = [float(x) for x in tu[fit["above"]]]
    if above:
        stream.write("warning: T = %s lie%s above the fitted Tc, where the fit has one fluid, "
                     "rho_l = rho_v; where the boxes there did separate, the laws or the points "
                     "below are wrong (/chains/separation says which chains separated)\n"
                     % (", ".join("%g" % x for x in above), "s" if len(above) == 1 else ""))
    if p < 1e-3:
        stream.write("warning: the points scatter more than their error bars allow (p = %.2g): the "
                     "errors above are too small (by about sqrt(chi^2/dof) = %.2g if the laws hold), "
                     "or the laws do not hold this far below Tc\n" % (p, math.sqrt(red["joint"])))


def write_coex(path, run, pts, used, fit, version):
    """The fit into a new file (new_h5: no half file on failure); version: mcens-analyze's,
    recorded as an attribute."""
    import h5py
    import numpy as np
    from scipy.stats import chi2 as chi2_dist
    f = new_h5(path)
    t_u, u = pts["t_unit"], pts["unit"]
    with f:
        source_attrs(f, run)
        f.attrs["mcens_analyze_version"] = version
        f.attrs["scaling_law"] = COEX_SCALING
        f.attrs["diameter_law"] = COEX_DIAMETER
        f.attrs["beta"] = fit["beta"]
        f.attrs["beta_note"] = "fixed, the 3D Ising exponent"
        f.attrs["method"] = ("weighted least squares of both laws at once to both branches, each "
                             "point weighted by its standard error (absolute, not rescaled by the "
                             "scatter); scipy.optimize.curve_fit")
        g = f.create_group("parameters")
        g.attrs["description"] = "the fitted parameters: value, with attributes stderr and unit"
        for k, name, unit, what in zip(range(4), COEX_NAMES, (t_u, u, u, unit_per(u, t_u)), (
                "critical temperature", "critical number density", "amplitude of the scaling law",
                "slope of the rectilinear diameter")):
            d = g.create_dataset(name, data=fit["p"][k])
            d.attrs.update(stderr=fit["err"][k], unit=unit, description=what)
        d = g.create_dataset("covariance", data=fit["cov"])
        d.attrs["order"] = np.array(COEX_NAMES, dtype=h5py.string_dtype())
        d.attrs["description"] = "covariance of (Tc, rho_c, B, A), each in its unit"
        g = f.create_group("fit")
        g.attrs["description"] = ("chi^2 of the laws' residuals, Delta = rho_l - rho_v (scaling) and "
                                  "d = (rho_l + rho_v)/2 (diameter), and of both branches (joint, "
                                  "its p-value p_joint)")
        for k, (c2, dof) in fit["chi2"].items():
            g.attrs["chi2_" + k], g.attrs["dof_" + k] = c2, dof
        g.attrs["points"] = fit["n"]
        g.attrs["p_joint"] = chi2_dist.sf(*fit["chi2"]["joint"])
        write_coex_points(f, pts, used, fit)
    os.replace(path + ".tmp", path)


def write_coex_points(f, pts, used, fit):
    """/points (fitted), /skipped (not, and why) and /curve (the fitted binodal) of the new file."""
    import h5py
    import numpy as np
    t_u, u = pts["t_unit"], pts["unit"]
    sp = np.flatnonzero(used)
    g = f.create_group("points")
    g.attrs["description"] = "the state points fitted"
    g.create_dataset("statepoint", data=sp).attrs["description"] = "index into /statepoints"
    g.create_dataset("temperature", data=pts["t"][sp]).attrs["unit"] = t_u
    for k, name in (("l", "liquid_density"), ("v", "vapour_density")):
        for i, what in ((0, "mean"), (1, "stderr")):
            g.create_dataset("%s/%s" % (name, what), data=pts[k][i][sp]).attrs["unit"] = u
    g.create_dataset("above_tc", data=fit["above"].astype(np.int8)).attrs["description"] = \
        "1: the point lies at or above the fitted Tc, where the fit has rho_l = rho_v"
    skipped = [s for s in range(len(pts["t"])) if pts["reason"][s]]
    g = f.create_group("skipped")
    g.attrs["description"] = "the state points not fitted, and why"
    g.create_dataset("statepoint", data=np.array(skipped, dtype=np.int64))
    g.create_dataset("temperature", data=pts["t"][skipped]).attrs["unit"] = t_u
    g.create_dataset("reason", data=np.array([pts["reason"][s] for s in skipped],
                                             dtype=h5py.string_dtype()))
    g = f.create_group("curve")
    g.attrs["description"] = "the fitted binodal and diameter from the lowest fitted T to Tc"
    for name, v, unit in zip(("temperature", "liquid_density", "vapour_density", "diameter"),
                             coex_curve(fit, pts["t"][sp].min()), (t_u, u, u, u)):
        g.create_dataset(name, data=v).attrs["unit"] = unit


def draw_coex(a, pts, used, above, fit, cs):
    """One panel of the phase diagram: the fitted binodal and diameter, each branch's points and
    their mean with error bars (open: fitted but above Tc; a cross: no error, not fitted), and the
    critical point with its errors. cs: the liquid's, vapour's and diameter's colours."""
    import numpy as np
    t = pts["t"]
    ct, crl, crv, cd = coex_curve(fit, t[used].min(), npts=801)
    a.plot(np.concatenate([crv, crl[::-1]]), np.concatenate([ct, ct[::-1]]), color="k", gid="curve")
    a.plot(cd, ct, color=cs[2], ls="--", gid="curve")
    series = [(pts["l"][0], pts["l"][1]), (pts["v"][0], pts["v"][1]),
              ((pts["l"][0] + pts["v"][0]) / 2, np.hypot(pts["l"][1], pts["v"][1]) / 2)]
    for (m, e), c in zip(series, cs):
        for sel, style in ((used & ~above, dict(fmt="o", mfc=c)), (above, dict(fmt="o", mfc="white")),
                           (~used, dict(fmt="x"))):
            if sel.any():
                eb = a.errorbar(m[sel], t[sel], xerr=np.nan_to_num(e[sel]), color=c, mec=c,
                                capsize=2, zorder=3, ms=3 if c is cs[2] else 4, **style)
                eb.lines[0].set_gid("errorbar")
    eb = a.errorbar([fit["p"][1]], [fit["p"][0]], xerr=[fit["err"][1]], yerr=[fit["err"][0]],
                    fmt="*", ms=9, color="k", mfc="gold", capsize=3, zorder=4)
    eb.lines[0].set_gid("errorbar")
    a.set_xlabel(axis_label(TEX_NAME["density"], pts["unit"]))


def zoom_critical(a, pts, fit):
    """Limits of a panel about the critical point (a few errors wide), its joint 68% region
    (chi^2 within 2.30 of its minimum, for two parameters) and the values as the title."""
    import numpy as np
    tc, rho_c = fit["p"][:2]
    phi = np.linspace(0, 2 * np.pi, 121)
    ell = np.linalg.cholesky(fit["cov"][np.ix_([1, 0], [1, 0])]) @ \
        np.array([np.cos(phi), np.sin(phi)]) * math.sqrt(2.30)
    a.plot(rho_c + ell[0], tc + ell[1], color="goldenrod", lw=1.0, gid="ellipse")
    dx, dy = 4.5 * fit["err"][1], 4.5 * fit["err"][0]
    a.set_xlim(rho_c - dx, rho_c + dx)
    a.set_ylim(tc - 1.6 * dy, tc + dy)
    a.set_title("$T_\\mathrm{c}$ = %s %s\n$\\rho_\\mathrm{c}$ = %s %s" % (
        fmt_pm(float(tc), float(fit["err"][0])), tex_unit(pts["t_unit"]),
        fmt_pm(float(rho_c), float(fit["err"][1])), tex_unit(pts["unit"])), fontsize=8)
    a.ticklabel_format(useOffset=False)
    a.locator_params(axis="x", nbins=4)


def plot_coex(plt, pts, used, fit):
    """The phase diagram, T against rho, and beside it a zoom on the critical point, where its
    error bars and joint 68% confidence region show."""
    import numpy as np
    from matplotlib.lines import Line2D
    fig, (ax, zoom) = plt.subplots(1, 2, figsize=(7.0, 4.3), gridspec_kw={"width_ratios": [2.2, 1]})
    cs = (plt.get_cmap("tab10")(3), plt.get_cmap("tab10")(0), "0.45")
    above = np.zeros(len(pts["t"]), dtype=bool)
    above[np.flatnonzero(used)[fit["above"]]] = True
    for a in (ax, zoom):
        draw_coex(a, pts, used, above, fit, cs)
    zoom_critical(zoom, pts, fit)
    ax.set_ylabel(axis_label(TEX_NAME["temperature"], pts["t_unit"]))
    ax.set_xlim(left=0)
    handles = [Line2D([], [], color=cs[0], marker="o", ls="", label="liquid"),
               Line2D([], [], color=cs[1], marker="o", ls="", label="vapour"),
               Line2D([], [], color=cs[2], marker="o", ms=3, ls="",
                      label=r"$(\rho_\mathrm{l} + \rho_\mathrm{v})/2$"),
               Line2D([], [], color="k", label="fitted binodal"),
               Line2D([], [], color=cs[2], ls="--", label="rectilinear diameter"),
               Line2D([], [], color="k", marker="*", mfc="gold", ms=9, ls="", label="critical point"),
               Line2D([], [], color="goldenrod", lw=1.0, label="joint 68% region")]
    if above.any():
        handles.append(Line2D([], [], color="0.3", marker="o", mfc="white", ls="",
                              label="above the fitted $T_\\mathrm{c}$"))
    if (~used).any():
        why = sorted({r[len("skipped: "):] for r in pts["reason"] if r.startswith("skipped: ") and
                      not r.endswith("two phases")})  # those are NaN: not drawn
        handles.append(Line2D([], [], color="0.3", marker="x", ls="", label="not fitted (%s)" % "; ".join(why)))
    c = fit["chi2"]["joint"]
    finish(fig, "Vapour-liquid coexistence, $\\beta$ = %g fixed: reduced $\\chi^2$ %.2g over %d "
           "temperatures; error bars ±1 standard error" % (fit["beta"], c[0] / c[1], fit["n"]),
           handles, ncol=5)
    return fig


def cmd_coexistence(run, args):
    import numpy as np
    stem = os.path.splitext(run.path)[0]
    out_path = args.out or stem + "-coexistence.h5"
    if os.path.exists(out_path) and os.path.samefile(out_path, run.path):
        raise AnalyzeError("%s: is the run's file; coexistence writes a new file" % out_path)
    if os.path.exists(out_path) and not args.force:
        raise AnalyzeError("%s: exists; coexistence writes a new file (--force to replace it)"
                           % out_path)
    pts = coex_points(run, args.tmin)
    used = np.array([not r for r in pts["reason"]])
    if used.sum() < 3:
        why = {}
        for s in np.flatnonzero(~used):
            why.setdefault(pts["reason"][s][len("skipped: "):], []).append("%g" % pts["t"][s])
        run.fail("coexistence: %d of %d state points have finite liquid and vapour densities with "
                 "standard errors (/results/liquid_density, /results/vapour_density); the fit needs "
                 "at least 3 (%s)" % (used.sum(), run.nstate, "; ".join(
                     "%s at T = %s" % (k, ", ".join(v)) for k, v in why.items())))
    fit = fit_coexistence(pts["t"][used], pts["l"][0][used], pts["l"][1][used],
                          pts["v"][0][used], pts["v"][1][used])
    sys.stdout.write("%s: Gibbs-ensemble coexistence, %d state points, %d fitted\n\n" % (
        run.path, run.nstate, used.sum()))
    print_coex_table(run, pts, fit, sys.stdout)
    print_coex_fit(pts, fit, used, sys.stdout)
    write_coex(out_path, run, pts, used, fit, args.analyze_version)
    plt = plot_setup()
    figdir = args.output or stem + "-coexistence"
    figure_dir(figdir)
    fig = plot_coex(plt, pts, used, fit)
    path = os.path.join(figdir, "coexistence.png")
    save_figure(fig, path)
    plt.close(fig)
    print(out_path)
    print(path)
    return 0


def add_parser(sub):
    p = sub.add_parser("coexistence", help="the critical point of a Gibbs-ensemble sweep: the "
                       "scaling law and rectilinear diameter fitted to the coexistence densities, "
                       "into a new HDF5 file and a phase diagram")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--out", metavar="OUT.h5", help="the fit (default: FILE without .h5, plus "
                   "-coexistence.h5); an existing file is kept unless --force")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    p.add_argument("--tmin", type=float, metavar="T", help="fit only the temperatures from T up (in "
                   "the file's unit): the laws hold near Tc, and far below it precise points "
                   "show their curvature (default: all)")
    p.add_argument("-o", "--output", metavar="DIR", help="directory for coexistence.png (default: "
                   "FILE without .h5, plus -coexistence)")


main = cmd_coexistence
