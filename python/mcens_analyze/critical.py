"""The critical point from coexistence densities: the scaling law and the rectilinear diameter
fitted to both branches at once (pure functions of arrays)."""

from .errors import AnalyzeError


# beta, the order-parameter exponent, is held at the 3D Ising value (0.3265(3): Pelissetto and
# Vicari, Phys. Rep. 368, 549 (2002)), as is usual for a few subcritical points, from which
# fitting it too is ill-conditioned. The two laws fitted to Gibbs-ensemble densities: Smit,
# J. Chem. Phys. 96, 8639 (1992); Frenkel and Smit, Understanding Molecular Simulation, ch. 8.
COEX_BETA = 0.326


COEX_SCALING = "rho_l - rho_v = B (1 - T/Tc)^beta"


COEX_DIAMETER = "(rho_l + rho_v)/2 = rho_c + A (T - Tc)"


COEX_NAMES = ("Tc", "rho_c", "B", "A")


def coex_model(p, t, beta=COEX_BETA):
    """(rho_l, rho_v) at temperatures t of the two laws with p = (Tc, rho_c, B, A). Above Tc the
    order parameter is 0 and both branches lie on the diameter, so that a trial Tc below a point
    gives the fit a finite residual rather than a NaN."""
    import numpy as np
    tc, rho_c, b, a = p
    half = 0.5 * b * np.clip(1.0 - np.asarray(t, dtype=float) / tc, 0.0, None) ** beta
    d = rho_c + a * (np.asarray(t, dtype=float) - tc)
    return d + half, d - half


def coex_start(t, rl, sl, rv, sv, beta):
    """Starting values: at a fixed Tc both laws are linear in (rho_c, A, B), so chi^2 minimised over
    those is a function of Tc alone, scanned from the highest temperature whose branches differ by
    more than 2 errors (Tc lies above it) up to 3 times that. The scan finds the global minimum that
    a local fit from a guess can miss, e.g. when a point above Tc has rho_l = rho_v."""
    import numpy as np
    y, w = np.concatenate([rl, rv]), 1 / np.concatenate([sl, sv])
    apart = rl - rv > 2 * np.hypot(sl, sv)
    t_top = t[apart].max() if apart.any() else t.max()
    best = None
    for x in np.geomspace(1e-5, 2 / 3, 200):  # x = 1 - t_top/Tc
        tc = t_top / (1 - x)
        u = 0.5 * np.clip(1 - t / tc, 0, None) ** beta
        m = np.column_stack([np.ones(2 * len(t)), np.tile(t - tc, 2), np.concatenate([u, -u])])
        q = np.linalg.lstsq(m * w[:, None], y * w, rcond=None)[0]
        c2 = (((m @ q - y) * w) ** 2).sum()
        if best is None or c2 < best[0]:
            best = (c2, np.array([tc, q[0], q[2], q[1]]))
    return best[1]


def fit_coexistence(t, rl, sl, rv, sv, beta=COEX_BETA):
    """The critical point from coexistence densities rho_l +- sl, rho_v +- sv at temperatures t:
    weighted least squares of both laws at once, rho_{l,v} = d(T) +- Delta(T)/2 with
    Delta = B (1 - T/Tc)^beta and d = rho_c + A (T - Tc), each branch weighted by its own standard
    error (the branches' errors are independent; Delta's and d's are not, unless sl = sv). As d is
    linear in T, its intercept rho_c - A Tc and slope A carry no information on Tc, which comes
    from Delta alone: with sl = sv this is exactly the fit of Delta for (B, Tc), then of d for
    (rho_c, A) given Tc, with Tc's uncertainty carried into rho_c by the delta method; the joint
    covariance does that propagation for any errors. Errors are absolute (curve_fit's
    absolute_sigma): not rescaled by the scatter, which the reduced chi^2 reports.
    Returns {p, err, cov, n, chi2: {scaling, diameter, joint: (chi^2, dof)}, above: [T >= Tc]}."""
    import warnings
    import numpy as np
    from scipy.optimize import OptimizeWarning, curve_fit
    t, rl, sl, rv, sv = (np.asarray(x, dtype=float) for x in (t, rl, sl, rv, sv))
    n = len(t)
    if n < 3:
        raise AnalyzeError("coexistence: %d temperature%s with both densities and their errors; "
                           "the fit of 4 parameters needs at least 3" % (n, "" if n == 1 else "s"))
    y, sigma = np.concatenate([rl, rv]), np.concatenate([sl, sv])

    def f(_, *p):
        return np.concatenate(coex_model(p, t, beta))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OptimizeWarning)
        try:
            p, cov = curve_fit(f, None, y, p0=coex_start(t, rl, sl, rv, sv, beta), sigma=sigma,
                               absolute_sigma=True, maxfev=20000)
        except (RuntimeError, ValueError) as e:
            raise AnalyzeError("coexistence: the fit did not converge (%s)" % e) from None
    if not (np.isfinite(p).all() and np.isfinite(cov).all() and p[0] > 0):
        raise AnalyzeError("coexistence: the fit did not determine Tc, rho_c, B and A (Tc = %g); "
                           "are the temperatures below the critical one and distinct?" % p[0])
    ml, mv = coex_model(p, t, beta)
    s2 = np.hypot(sl, sv)
    chi2 = {"scaling": (float(((((rl - rv) - (ml - mv)) / s2) ** 2).sum()), n - 2),
            # d's standard error is s2/2: the residual of 2d over s2
            "diameter": (float(((((rl + rv) - (ml + mv)) / s2) ** 2).sum()), n - 2),
            "joint": (float((((y - np.concatenate([ml, mv])) / sigma) ** 2).sum()), 2 * n - 4)}
    return {"p": p, "err": np.sqrt(np.diag(cov)), "cov": cov, "n": n, "chi2": chi2,
            "above": t >= p[0], "beta": beta}


def coex_curve(fit, tmin, npts=201):
    """The fitted binodal and diameter from tmin up to Tc: (T, rho_l, rho_v, d), the temperatures
    closer together near Tc, where the branches bend."""
    import numpy as np
    tc = fit["p"][0]
    t = tc - (tc - min(tmin, tc)) * np.linspace(1, 0, npts) ** 3
    rl, rv = coex_model(fit["p"], t, fit["beta"])
    return t, rl, rv, (rl + rv) / 2
