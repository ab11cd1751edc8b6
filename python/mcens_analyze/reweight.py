"""MBAR along the temperature axis: the ladders of a run, their uncorrelated samples, the MBAR
solve and the estimates of U/N, C/N (and in npt H/N and the density) at any temperature."""

import math

from .labels import TEXT_NAME, bracket, value_label
from .stats import equilibration_cut, inefficiency


# k_B in the energy unit per temperature unit: R in kJ/mol/K in real units (src/cfg.h,
# MC_BOLTZMANN_KJ_MOL_K, the exact SI constants), 1 in reduced units, where T is kT/epsilon.
KT_PER_TEMPERATURE = {"K": 0.008314462618, "epsilon/k_B": 1.0}


# Neighbouring states whose overlap-matrix element falls below this are poorly connected (the
# guideline of Klimovich, Shirts and Mobley, J. Comput.-Aided Mol. Des. 29, 397 (2015)).
MIN_OVERLAP = 0.03


MBAR_CITATION = "MBAR: Shirts and Chodera, J. Chem. Phys. 129, 124105 (2008)"


def particles(run):
    """N of U/N: the particles, or for molecules the sites, of one chain (mcens's plan->n)."""
    if "molecules" in run.f:
        return int((run.ds("molecules/count")[:] * run.ds("molecules/nsites")[:]).sum())
    return int(run.ds("species/count")[:].sum())


def rotational_dof(body):
    """0 for one site, 2 for sites on a line, else 3: src/mc_molecule.c's rotational_dof, with its
    tolerances, on the molecule frame the file records."""
    import numpy as np
    if len(body) == 1:
        return 0
    u = np.zeros(3)
    k = 1
    while k < len(body) and u @ u < 1e-20:
        u = body[k] - body[0]
        k += 1
    for v in body[k:] - body[0]:
        if np.cross(u, v) @ np.cross(u, v) > 1e-18 * (u @ u) * (v @ v):
            return 3
    return 2


def kinetic_per_particle(run):
    """The ideal part of mcens's C/N: 3/2 per atom; molecules (3 + rotational dof)/2 each, per site
    (src/mc_molecule.c, kinetic_per_site)."""
    if "molecules" not in run.f:
        return 1.5
    count, nsites = run.ds("molecules/count")[:], run.ds("molecules/nsites")[:]
    body = run.ds("molecules/site_body")[:]
    kin = sum(c * 0.5 * (3 + rotational_dof(body[t, :nsites[t]])) for t, c in enumerate(count))
    return kin / (count * nsites).sum()


def ladders(run):
    """[((TeX label, text label), value, unit, [state points])]: the state points sharing a
    density (nvt) or a pressure (npt), the rungs differing in temperature; an open cluster is one
    ladder."""
    name = "pressure" if run.npt else (None if run.cluster else "density")
    if name is None:
        return [((None, None), None, "", list(range(run.nstate)))]
    v = run.ds("statepoints/" + name)[:]
    unit = run.unit("statepoints/" + name)
    return [((value_label(name, x, unit), "%s = %.6g%s" % (TEXT_NAME[name], x, bracket(unit))),
             x, unit, [s for s in range(run.nstate) if v[s] == x]) for x in sorted(set(v.tolist()))]


class Ladder:
    """The uncorrelated samples of one ladder. Each chain's production series is cut at its
    equilibration sample, then thinned by its statistical inefficiency (pymbar's
    subsampleCorrelatedData), because MBAR's error estimate assumes independent samples. The
    MBAR states are the ladder's temperatures; replicas (and state points of equal temperature)
    pool into one state."""

    def __init__(self, run, label, value, unit, sps, series, kt_per_t):
        import numpy as np
        from pymbar import timeseries
        (self.label, self.text), self.value, self.unit = label, value, unit
        self.statepoints = sps
        t_sp = run.ds("statepoints/temperature")[:]
        self.temps = np.array(sorted(set(t_sp[sps].tolist())))
        self.kt = self.temps * kt_per_t
        chain_sp = run.chain_statepoints()
        self.chains = [k for k in range(len(chain_sp)) if chain_sp[k] in sps]
        # the series whose correlation sets the thinning: the reduced potential's observable
        # (U/N, npt H/N) and, in npt, the other observables estimated (U/N and the density)
        key = "enthalpy" if run.npt else "energy"
        cuts, self.cut_source = equilibration_cut(run, series[key], self.chains)
        self.cut = np.array([cuts[k] for k in self.chains])
        self.g = np.ones(len(self.chains))
        self.used = np.zeros(len(self.chains), dtype=int)
        per_state = [[] for _ in self.temps]
        for i, k in enumerate(self.chains):
            tail = {n: v[k, self.cut[i]:] for n, v in series.items()}
            if len(tail[key]) < 2:
                continue  # nothing stationary to use: the chain is left out
            self.g[i] = max(inefficiency(x) for x in tail.values())
            idx = np.array(timeseries.subsampleCorrelatedData(tail[key], g=self.g[i]), dtype=int)
            self.used[i] = len(idx)
            per_state[np.searchsorted(self.temps, t_sp[chain_sp[k]])].append(
                {n: x[idx] for n, x in tail.items()})
        keep = [j for j, p in enumerate(per_state) if p]
        self.temps, self.kt = self.temps[keep], self.kt[keep]
        self.n_k = np.array([sum(len(d[key]) for d in per_state[j]) for j in keep])
        # samples ordered by state, as MBAR's N_k counts them
        self.obs = {n: np.concatenate([d[n] for j in keep for d in per_state[j]]) for n in series}
        self.x = self.obs[key]  # per particle: U/N (nvt) or H/N (npt)
        self.key = key


def solve_mbar(lad, n):
    """MBAR over the ladder's temperatures: u_k(x) = N x / kT_k (x = U/N, or H/N in npt, so the
    reduced potential is beta U, or beta (U + P V) at the ladder's one pressure; the factors that do
    not depend on the temperature cancel)."""
    import pymbar
    u_kn = n * lad.x[None, :] / lad.kt[:, None]
    return pymbar.MBAR(u_kn, lad.n_k)


def expectations(mbar, lad, n, kin, kt):
    """MBAR estimates at temperature kT (energy unit): {name: (mean, stderr)} for the reduced
    potential's observable x, C/N = kin + N var(x)/kT^2 (mcens's convention: C_V from U/N, in npt
    C_P from H/N), and in npt U/N and the density. var(x) = <y^2> - <y>^2 of y = x - c, c a
    constant near <x> (the state nearest kT's sample mean) so that the difference loses no digits;
    its error by the delta method from the asymptotic covariance of <y> and <y^2>."""
    import numpy as np
    near = np.argmin(abs(lad.kt - kt))
    lo = lad.n_k[:near].sum()
    c = lad.x[lo:lo + lad.n_k[near]].mean()
    y = lad.x - c
    names = [n_ for n_ in lad.obs if n_ != lad.key]
    A = np.array([y, y * y] + [lad.obs[n_] for n_ in names])
    r = mbar.computeMultipleExpectations(A, n * lad.x / kt, return_theta=True, return_dict=True)
    I = len(A)
    th = r["Theta"]
    # pymbar 3's compute_covariance output is the log weights' Theta, not the observables'
    # covariance; that is formed here from the scaled Theta of return_theta, as pymbar forms its
    # own sigma (whose diagonal it equals)
    cov = th[:I, :I] + th[I:, I:] - th[:I, I:] - th[I:, :I]
    mu = r["mu"]
    var = mu[1] - mu[0] ** 2
    grad = np.array([-2.0 * mu[0], 1.0])
    var_var = max(0.0, grad @ cov[:2, :2] @ grad)
    scale = n / kt ** 2
    sd = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    out = {lad.key: (c + mu[0], sd[0]),
           "heat_capacity": (kin + scale * var, scale * math.sqrt(var_var))}
    for i, n_ in enumerate(names):
        out[n_] = (mu[2 + i], sd[2 + i])
    return out


def estimate_grid(mbar, lad, n, kin, kts):
    """{name: (mean[G], stderr[G])} at each kT of kts."""
    import numpy as np
    rows = [expectations(mbar, lad, n, kin, kt) for kt in kts]
    return {k: (np.array([r[k][0] for r in rows]), np.array([r[k][1] for r in rows]))
            for k in rows[0]}


def neighbour_overlap(mbar):
    """The overlap matrix O (pymbar's computeOverlap: O[i, j] the probability that a sample of
    state i is seen as from j) and its smallest element between neighbouring temperatures."""
    import numpy as np
    o = np.asarray(mbar.computeOverlap(return_dict=True)["matrix"])
    return o, (min(o[k, k + 1] for k in range(len(o) - 1)) if len(o) > 1 else 1.0)
