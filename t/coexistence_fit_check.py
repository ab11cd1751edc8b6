"""Checks of `mcens-analyze coexistence` (t/coexistence_fit.sh) on synthetic Gibbs-ensemble files
whose coexistence densities are drawn from the two laws with known parameters and Gaussian noise of
known standard error. Exit 0: the check holds; 1: it does not (the message says where); 2: the
checker itself broke. Every tolerance is a multiple of the standard errors the fit reports.

  coexistence_fit_check.py synth OUT.h5 CASE SEED [OPTION=VALUE ...]
        write a fake mcens output of CASE (nist: reduced units; argon: K and nm^-3; steep: Tc
        and rho_c strongly correlated), options:
        nan=S,S,...  no replica separated at these state points (NaN densities and pressures)
        noerr=S,...  one separated replica there: a density without a standard error (NaN)
        above=1      one more state point above Tc, where the boxes hold one fluid
        scale=K      draw the noise K times the standard error the file states (a dishonest file)
        drop=NAME    leave /results/NAME out
  coexistence_fit_check.py recover RUN.h5 FIT.h5 CASE STDOUT
        the fitted Tc, rho_c, B and A within 4 of their reported errors of CASE's truth; the
        file's layout, units, covariance and points; the printed values equal the file's
  coexistence_fit_check.py honesty ANALYZE CASE N [scale=K] [beta=B] [tcfixed=1]
        N synthetic seeds through ANALYZE's fit_coexistence (the script, imported): the rms of
        (fit - truth)/error of each parameter within [0.7, 1.3], their mean within [-0.3, 0.3], the
        mean reduced chi^2 within [0.85, 1.15]; scale=K draws the noise K times the stated errors,
        beta=B the data from an exponent other than the fit's, tcfixed=1 takes rho_c's error
        as if Tc were known (its uncertainty not propagated)
  coexistence_fit_check.py skipped RUN.h5 FIT.h5 STDOUT
        state points without finite densities or errors are not fitted, are listed in /skipped and
        the table says why; at least one such point
  coexistence_fit_check.py above RUN.h5 FIT.h5 STDOUT
        a state point above the fitted Tc is flagged in /points/above_tc, the table and a warning
  coexistence_fit_check.py png FILE.png
        a PNG of at least 600 x 500 pixels, over 20 kB, with drawn content (not a blank page)
"""
import importlib.machinery
import importlib.util
import math
import os
import re
import sys

import h5py
import numpy as np

from checkrun import check, run


BETA = 0.326
NAMES = ("Tc", "rho_c", "B", "A")
# The truths: these four numbers (the test checks the fit, not the physics). nist: like the
# Lennard-Jones fluid truncated at 3 sigma with tail corrections, Tc and rho_c about NIST's (1.31,
# 0.316), B and A set by hand so that the binodal lies within 0.02 of NIST SRSW's SAT-TMMC
# densities at T = 0.9 and 1.0. argon: the same shape in real units about argon's critical point
# (150.7 K, 535.6 kg/m^3 = 8.07 nm^-3), errors scaled by sigma^-3 = 25 nm^-3.
# Standard errors grow towards Tc, as a Gibbs ensemble's do (the boxes' densities fluctuate more).
CASES = {
    "nist": {"truth": (1.31, 0.316, 1.10, -0.19), "t": np.arange(0.85, 1.2501, 0.05),
             "se": (0.002, 0.001, 0.006, 0.004), "units": ("epsilon/k_B", "sigma^-3", "epsilon",
                                                           "epsilon sigma^-3", "epsilon")},
    "argon": {"truth": (150.7, 8.07, 27.9, -0.040), "t": np.arange(100.0, 145.01, 5.0),
              "se": (0.05, 0.025, 0.15, 0.10), "units": ("K", "nm^-3", "kJ/mol", "bar", "kJ/mol")},
    # Tc extrapolated from 0.70 to 1.00, with a diameter three times as steep as nist's: Tc's error
    # is then three quarters of rho_c's variance (Tc and rho_c correlate by about -0.87), so that
    # an rho_c error that leaves Tc's uncertainty out is too small by half
    "steep": {"truth": (1.31, 0.316, 1.10, -0.6), "t": np.arange(0.70, 1.0001, 0.05),
              "se": (0.002, 0.001, 0.006, 0.004), "units": ("epsilon/k_B", "sigma^-3", "epsilon",
                                                            "epsilon sigma^-3", "epsilon")},
}
REPLICAS = 4


def law(p, t, beta=BETA):
    tc, rho_c, b, a = p
    half = 0.5 * b * np.clip(1 - t / tc, 0, None) ** beta
    return rho_c + a * (t - tc) + half, rho_c + a * (t - tc) - half


def stated_errors(case, t):
    c = CASES[case]
    w = (t / c["truth"][0]) ** 6
    return c["se"][0] + c["se"][2] * w, c["se"][1] + c["se"][3] * w


def draw(case, seed, scale=1.0, beta=BETA):
    """(T, rho_l, se_l, rho_v, se_v): the laws (with exponent beta) at CASE's temperatures plus
    Gaussian noise of scale times the stated standard errors."""
    rng = np.random.default_rng(seed)
    t = CASES[case]["t"]
    ml, mv = law(CASES[case]["truth"], t, beta)
    sl, sv = stated_errors(case, t)
    return t, ml + scale * sl * rng.standard_normal(len(t)), sl, mv + scale * sv * rng.standard_normal(len(t)), sv


def options(args):
    out = {}
    for a in args:
        k, _, v = a.partition("=")
        check(k in ("nan", "noerr", "above", "scale", "drop", "beta", "tcfixed"),
              "unknown option %r" % a)
        out[k] = v
    return out


def cmd_synth(out, case, seed, *args):
    opt = options(args)
    c = CASES[case]
    t_unit, rho_unit, e_unit, p_unit, mu_unit = c["units"]
    t, rl, sl, rv, sv = draw(case, int(seed), float(opt.get("scale", 1)))
    if opt.get("above"):
        # above Tc both boxes hold the one fluid, near the diameter's density
        tc, rho_c, _, a = c["truth"]
        t = np.append(t, tc * 1.03)
        d = rho_c + a * 0.03 * tc
        e = c["se"][2]
        rng = np.random.default_rng(int(seed) + 1)
        rl, rv = np.append(rl, d + e * rng.standard_normal()), np.append(rv, d + e * rng.standard_normal())
        sl, sv = np.append(sl, e), np.append(sv, e)
    S = len(t)
    sep = np.full(S * REPLICAS, 12.0)
    for s in (int(x) for x in opt.get("nan", "").split(",") if x):
        rl[s] = rv[s] = sl[s] = sv[s] = np.nan
        sep[s * REPLICAS:(s + 1) * REPLICAS] = 1.0
    for s in (int(x) for x in opt.get("noerr", "").split(",") if x):
        sl[s] = sv[s] = np.nan
        sep[s * REPLICAS + 1:(s + 1) * REPLICAS] = 1.0
    # plausible companions, not checked: vapour pressure of a slightly non-ideal gas, equal in both
    # boxes; U/N proportional to the density; mu equal in both
    scale_e = 1.0 if case == "nist" else 0.996  # epsilon of argon in kJ/mol
    p = rv * t * (1 - 2 * rv / (1 if case == "nist" else 25.0)) * (1.0 if case == "nist" else 0.138)
    results = {
        "liquid_density": (rl, sl, rho_unit), "vapour_density": (rv, sv, rho_unit),
        "liquid_pressure": (p, 0.02 * abs(p), p_unit), "vapour_pressure": (p, 0.01 * abs(p), p_unit),
        "liquid_energy": (-6.5 * scale_e * rl, 0.01 + 0 * rl, e_unit),
        "vapour_energy": (-6.5 * scale_e * rv, 0.01 + 0 * rv, e_unit),
        "chemical_potential": (np.stack([np.log(rv) * t, np.log(rv) * t], axis=1),
                               np.full((S, 2), 0.03), mu_unit),
    }
    for name in ("liquid_pressure", "vapour_pressure", "liquid_energy", "vapour_energy"):
        m, e, _ = results[name]
        m[np.isnan(rl)], e[np.isnan(rl)] = np.nan, np.nan
    results["chemical_potential"][0][np.isnan(rl)] = np.nan
    with h5py.File(out, "w") as f:
        f["parameters"] = ("[system]\nn = 512\n[ensemble]\ntype = gibbs\ntemperature = %s\n"
                           "density = 0.3\nreplicas = %d\n" % (", ".join("%g" % x for x in t), REPLICAS))
        f["parameters"].attrs["mcens_version"] = "synthetic (t/coexistence_fit_check.py %s %s)" % (case, seed)
        f["parameters"].attrs["units"] = "reduced" if case == "nist" else "real"

        def ds(name, data, unit):
            f[name] = data
            f[name].attrs["unit"] = unit

        ds("statepoints/temperature", t, t_unit)
        ds("statepoints/density", np.full(S, 0.3 if case == "nist" else 7.6), rho_unit)
        ds("chains/statepoint", np.repeat(np.arange(S), REPLICAS).astype(np.int32), "1")
        ds("chains/replica", np.tile(np.arange(REPLICAS), S).astype(np.int32), "1")
        ds("chains/separation", sep, "1")
        f["species/name"] = np.array(["LJ" if case == "nist" else "Ar"], dtype=h5py.string_dtype())
        ds("species/count", np.array([512], dtype=np.int32), "1")
        for name, (m, e, unit) in results.items():
            if name == opt.get("drop"):
                continue
            ds("results/%s/mean" % name, m, unit)
            ds("results/%s/stderr" % name, e, unit)
            ds("results/%s/blocking_converged" % name, np.ones(m.shape, dtype=np.int32), "1")
    print("%s: %s, seed %s, %d state points, noise %s x the stated errors%s" % (
        out, case, seed, S, opt.get("scale", "1"),
        "".join(", %s=%s" % kv for kv in opt.items() if kv[0] != "scale")))


def fitted(fit):
    return np.array([fit["parameters/" + n][()] for n in NAMES]), \
        np.array([fit["parameters/" + n].attrs["stderr"] for n in NAMES])


def finite_points(run):
    ok = np.ones(len(run["statepoints/temperature"]), dtype=bool)
    for b in ("liquid", "vapour"):
        m, e = run["results/%s_density/mean" % b][:], run["results/%s_density/stderr" % b][:]
        ok &= np.isfinite(m) & np.isfinite(e) & (e > 0)
    return np.flatnonzero(ok)


def cmd_recover(run_path, fit_path, case, stdout):
    run, fit = h5py.File(run_path, "r"), h5py.File(fit_path, "r")
    truth = np.array(CASES[case]["truth"])
    t_unit, rho_unit = CASES[case]["units"][:2]
    p, err = fitted(fit)
    # the numbers: each parameter within 4 of its reported error of the truth
    for name, v, e, tr in zip(NAMES, p, err, truth):
        print("%-5s = %.6g ± %.2g, truth %.6g: %+.2f errors" % (name, v, e, tr, (v - tr) / e))
    for name, v, e, tr in zip(NAMES, p, err, truth):
        check(0 < e < 0.05 * abs(tr), "%s: error %g not within (0, 5%% of the value)" % (name, e))
        check(abs(v - tr) < 4 * e, "%s = %g ± %g is %.1f errors from the truth %g"
              % (name, v, e, (v - tr) / e, tr))
    # layout and units
    check(fit.attrs["beta"] == BETA, "beta attribute %r, expected %g" % (fit.attrs["beta"], BETA))
    check(fit.attrs["scaling_law"] == "rho_l - rho_v = B (1 - T/Tc)^beta",
          "scaling_law attribute %r" % fit.attrs["scaling_law"])
    check(fit.attrs["diameter_law"] == "(rho_l + rho_v)/2 = rho_c + A (T - Tc)",
          "diameter_law attribute %r" % fit.attrs["diameter_law"])
    check(fit.attrs["source"] == os.path.abspath(run_path), "source %r" % fit.attrs["source"])
    units = [fit["parameters/" + n].attrs["unit"] for n in NAMES]
    want = [t_unit, rho_unit, rho_unit, "%s / %s" % (rho_unit, "(%s)" % t_unit if "/" in t_unit else t_unit)]
    check(units == want, "units %s, expected %s" % (units, want))
    cov = fit["parameters/covariance"][:]
    check(cov.shape == (4, 4) and np.allclose(cov, cov.T, rtol=1e-12, atol=0),
          "covariance not a symmetric 4 x 4 matrix")
    check(np.allclose(np.sqrt(np.diag(cov)), err, rtol=1e-12, atol=0),
          "the errors are not the square roots of the covariance's diagonal")
    check((np.linalg.eigvalsh(cov) > 0).all(), "covariance not positive definite")
    check(list(fit["parameters/covariance"].attrs["order"]) == list(NAMES), "covariance order")
    sp = finite_points(run)
    check(list(fit["points/statepoint"][:]) == list(sp),
          "fitted state points %s, expected those with finite densities and errors %s"
          % (list(fit["points/statepoint"][:]), list(sp)))
    n = len(sp)
    check(fit["fit"].attrs["points"] == n and fit["fit"].attrs["dof_joint"] == 2 * n - 4,
          "points %d, dof %d; expected %d, %d" % (fit["fit"].attrs["points"],
                                                 fit["fit"].attrs["dof_joint"], n, 2 * n - 4))
    for b in ("liquid", "vapour"):
        check(np.array_equal(fit["points/%s_density/mean" % b][:],
                             run["results/%s_density/mean" % b][sp]), "points/%s_density differ" % b)
    ct, cl, cv = (fit["curve/" + k][:] for k in ("temperature", "liquid_density", "vapour_density"))
    check(abs(ct[-1] - p[0]) < 1e-12 * p[0] and abs(cl[-1] - p[1]) < 1e-9 and abs(cv[-1] - p[1]) < 1e-9,
          "the binodal curve does not end at the critical point")
    c2 = {k: fit["fit"].attrs["chi2_" + k] / fit["fit"].attrs["dof_" + k]
          for k in ("scaling", "diameter", "joint")}
    print("reduced chi^2: " + ", ".join("%s %.3g" % kv for kv in c2.items()))
    # the printed values are the file's, to their printed precision
    text = open(stdout, encoding="utf-8").read()
    for name, v, e in zip(NAMES, p, err):
        m = re.search(r"^  %s\s*= (\S+) ± (\S+)" % re.escape(name), text, re.M)
        check(m is not None, "no line for %s in the printed output" % name)
        dec = len(m.group(2).partition(".")[2])
        check(abs(float(m.group(1)) - v) <= 0.5001 * 10 ** -dec and
              abs(float(m.group(2)) - e) <= 0.5001 * 10 ** -dec,
              "printed %s = %s ± %s, the file %r ± %r" % (name, m.group(1), m.group(2), v, e))


def load_analyze(path):
    """The mcens-analyze script as a module (its main() runs only as __main__)."""
    loader = importlib.machinery.SourceFileLoader("mcens_analyze", path)
    spec = importlib.util.spec_from_loader("mcens_analyze", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def cmd_honesty(analyze, case, n, *args):
    """With honest errors the pulls (fit - truth)/error of N independent data sets are about
    standard normal: their rms is 1 within about 1/sqrt(2N) (0.05 for N = 200), so [0.7, 1.3]
    passes honest errors and fails errors wrong by a third or more."""
    opt = options(args)
    scale, beta = float(opt.get("scale", 1)), float(opt.get("beta", BETA))
    mod = load_analyze(analyze)
    truth = np.array(CASES[case]["truth"])
    pulls, red = [], []
    for seed in range(1000, 1000 + int(n)):
        fit = mod.fit_coexistence(*draw(case, seed, scale, beta))
        check(fit["chi2"]["joint"][1] == 2 * len(CASES[case]["t"]) - 4, "seed %d: dof" % seed)
        err = fit["err"].copy()
        if opt.get("tcfixed"):  # rho_c's error given Tc: as if Tc's uncertainty were not carried
            cov = fit["cov"]
            err[1] = math.sqrt(cov[1, 1] - cov[0, 1] ** 2 / cov[0, 0])
        pulls.append((fit["p"] - truth) / err)
        red.append(fit["chi2"]["joint"][0] / fit["chi2"]["joint"][1])
    pulls = np.array(pulls)
    rms, mean = np.sqrt((pulls ** 2).mean(axis=0)), pulls.mean(axis=0)
    print("%s, %s seeds, noise %g x the stated errors, data's beta %g (the fit's %g)%s; mean "
          "reduced chi^2 %.3f" % (case, n, scale, beta, mod.COEX_BETA,
                                  ", rho_c's error given Tc" if opt.get("tcfixed") else "",
                                  np.mean(red)))
    for k, name in enumerate(NAMES):
        print("  %-5s pulls: rms %.3f, mean %+.3f, largest |pull| %.2f"
              % (name, rms[k], mean[k], abs(pulls[:, k]).max()))
    for k, name in enumerate(NAMES):
        check(0.7 <= rms[k] <= 1.3, "%s: rms of (fit - truth)/error %.3f outside [0.7, 1.3]: "
              "the reported errors are not honest" % (name, rms[k]))
        # the mean of N standard normal pulls scatters by 1/sqrt(N), 0.07 for N = 200
        check(abs(mean[k]) <= 0.3, "%s: mean (fit - truth)/error %+.3f outside [-0.3, 0.3]: "
              "the fit is biased" % (name, mean[k]))
    # the mean of N reduced chi^2 with dof degrees of freedom: 1 within sqrt(2/(N dof)) (0.03)
    check(0.85 <= np.mean(red) <= 1.15, "mean reduced chi^2 %.3f outside [0.85, 1.15]"
          % np.mean(red))


def table_rows(stdout):
    """{state point: its table line} of the printed table."""
    rows, inside = {}, False
    for line in open(stdout, encoding="utf-8"):
        if line.startswith("state "):
            inside = True
        elif inside and not line.strip():
            break
        elif inside:
            rows[int(line.split()[0])] = line
    return rows


def cmd_skipped(run_path, fit_path, stdout):
    run, fit = h5py.File(run_path, "r"), h5py.File(fit_path, "r")
    S = len(run["statepoints/temperature"])
    good = set(finite_points(run).tolist())
    bad = [s for s in range(S) if s not in good]
    check(bad, "the file has no state point without finite densities or errors: nothing to check")
    check(set(fit["points/statepoint"][:].tolist()) == good, "fitted %s, expected %s" % (
        sorted(fit["points/statepoint"][:].tolist()), sorted(good)))
    check(fit["skipped/statepoint"][:].tolist() == bad, "/skipped/statepoint %s, expected %s" % (
        fit["skipped/statepoint"][:].tolist(), bad))
    rows = table_rows(stdout)
    check(sorted(rows) == list(range(S)), "table rows %s, expected 0 to %d" % (sorted(rows), S - 1))
    reasons = [r.decode() if isinstance(r, bytes) else r for r in fit["skipped/reason"][:]]
    for s, why in zip(bad, reasons):
        nan = not np.isfinite(run["results/liquid_density/mean"][s])
        want = "no replica separated into two phases" if nan else "no standard error"
        check(want in why, "state point %d: reason %r, expected %r" % (s, why, want))
        check("skipped: " + want in rows[s], "table row of state point %d does not say "
              "'skipped: %s': %r" % (s, want, rows[s]))
        print("state point %d (T = %g): %s" % (s, run["statepoints/temperature"][s], why))
    for s in good:
        check("skipped" not in rows[s], "state point %d is fitted but its row says skipped" % s)
    if "chains/separation" in run:
        for s in bad:
            sep = run["chains/separation"][:][run["chains/statepoint"][:] == s]
            k = int((sep >= 3).sum())
            check(" %d/%d " % (k, len(sep)) in rows[s], "state point %d: separated %d/%d not in "
                  "%r" % (s, k, len(sep), rows[s]))


def cmd_above(run_path, fit_path, stdout):
    run, fit = h5py.File(run_path, "r"), h5py.File(fit_path, "r")
    tc = fit["parameters/Tc"][()]
    t = run["statepoints/temperature"][:]
    above = [s for s in finite_points(run) if t[s] >= tc]
    check(above, "no fitted state point lies above Tc = %g: nothing to check" % tc)
    flag = fit["points/above_tc"][:]
    sp = fit["points/statepoint"][:].tolist()
    check([sp[i] for i in np.flatnonzero(flag)] == above, "/points/above_tc marks %s, expected %s"
          % ([sp[i] for i in np.flatnonzero(flag)], above))
    rows = table_rows(stdout)
    text = open(stdout, encoding="utf-8").read()
    for s in above:
        check("above the fitted Tc" in rows[s], "row %d does not say 'above the fitted Tc'" % s)
        check(re.search(r"^warning: T = [^\n]*%g[^\n]* above the fitted Tc" % t[s], text, re.M),
              "no warning naming T = %g" % t[s])
        print("state point %d: T = %g above the fitted Tc = %g, flagged" % (s, t[s], tc))
    for s in set(range(len(t))) - set(above):
        check("above the fitted Tc" not in rows[s], "row %d flagged above Tc wrongly" % s)


def cmd_png(path):
    from PIL import Image
    with open(path, "rb") as fh:
        head = fh.read(8)
    check(head == b"\x89PNG\r\n\x1a\n", "%s: not a PNG" % path)
    size = os.path.getsize(path)
    img = np.asarray(Image.open(path).convert("RGB"))
    h, w = img.shape[:2]
    ink = (img.min(axis=2) < 200).mean()
    colours = len(np.unique(img.reshape(-1, 3), axis=0))
    print("%s: %d x %d pixels, %d bytes, %.1f%% drawn, %d colours" % (path, w, h, size, 100 * ink, colours))
    check(w >= 600 and h >= 500, "%d x %d pixels, expected at least 600 x 500" % (w, h))
    check(ink > 0.01 and colours >= 20, "%.2f%% of the pixels drawn in %d colours: a blank figure"
          % (100 * ink, colours))
    check(size > 20000, "%d bytes: too small for a phase diagram" % size)


if __name__ == "__main__":
    run({"synth": cmd_synth, "recover": cmd_recover, "honesty": cmd_honesty, "skipped": cmd_skipped,
         "above": cmd_above, "png": cmd_png}, sys.argv, __doc__)
