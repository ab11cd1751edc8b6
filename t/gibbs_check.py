#!/usr/bin/env python3
"""Checks of the Gibbs ensemble (t/gibbs.sh, t/gibbs_molecules.sh) on mcens output files: against
NIST's SAT-TMMC coexistence data, against the exact ideal-gas distributions, a mixture of identical
species against the pure fluid, the equal pressures and chemical potentials of coexisting phases,
and the flag on chains that did not separate. Every tolerance is a quantile of the
statistic's distribution under the stated error bars, Bonferroni-corrected over the comparisons
made (1% false alarm for the whole check); prints one line per comparison; exits 1 when any fails
and 2 when the checker itself breaks."""

import csv
import sys

import h5py
import numpy as np
from scipy import stats

from checkrun import run

FAMILY_ALPHA = 0.01


def normal_threshold(m):
    """|z| above which one of m normal comparisons fails with probability FAMILY_ALPHA in all."""
    return stats.norm.isf(FAMILY_ALPHA / (2 * m))


def student_threshold(m, dof):
    return stats.t.isf(FAMILY_ALPHA / (2 * m), dof)


def report(rows, threshold):
    """rows: (label, value, error, reference, reference error); True when every |z| <= threshold."""
    good = True
    for label, x, e, ref, ref_e in rows:
        z = (x - ref) / np.hypot(e, ref_e)
        fine = bool(np.isfinite(z) and abs(z) <= threshold)
        good &= fine
        print(f"{'ok  ' if fine else 'FAIL'} {label:34s} {x:12.6g} +- {e:.3g}  reference {ref:12.6g} +- {ref_e:.2g}"
              f"  z = {z:+.2f} (limit {threshold:.2f})")
    return good


def nist(path, ref_path):
    """Liquid and vapour densities, the saturation pressure (from the vapour box, whose virial is
    precise), the energies per particle and beta mu of both phases against SAT-TMMC, at every
    temperature of the file that the reference has."""
    with open(ref_path) as f:
        ref = {float(r["T"]): r for r in csv.DictReader(line for line in f if not line.startswith("#"))}
    quantities = [("liquid_density", "rho_liq"), ("vapour_density", "rho_vap"), ("vapour_pressure", "psat"),
                  ("liquid_energy", "Uliq"), ("vapour_energy", "Uvap")]
    rows = []
    with h5py.File(path, "r") as f:
        temperatures = f["statepoints/temperature"][:]
        res = f["results"]
        for s, t in enumerate(temperatures):
            r = ref.get(round(float(t), 3))
            if r is None:
                continue
            for name, key in quantities:
                rows.append((f"T = {t:g} {name}", res[name]["mean"][s], res[name]["stderr"][s], float(r[key]),
                             float(r[key + "_pm"])))
            mu, mu_e = res["chemical_potential/mean"][s], res["chemical_potential/stderr"][s]
            for phase, word in enumerate(("liquid", "vapour")):
                rows.append((f"T = {t:g} beta mu {word}", mu[phase] / t, mu_e[phase] / t, float(r["lnzsat"]),
                             float(r["lnzsat_pm"])))
    if not rows:
        print("FAIL no temperature of the file is in the reference")
        return False
    return report(rows, normal_threshold(len(rows)))


def replica_mean(values):
    """Mean over independent chains and its standard error from their spread."""
    values = np.asarray(values, float)
    return values.mean(), values.std(ddof=1) / np.sqrt(len(values))


def ideal(path, cutoff):
    """epsilon = 0: the Gibbs ensemble's weight is then sum_n C(N, n) V0^n V1^(N-n) = V^N for every
    V0, so V0 is uniform on the allowed range [Vmin, V - Vmin] (Vmin the smallest box, (twice the
    cutoff)^3) and n0 given V0 binomial(N, V0 / V). Checked per chain (each an independent sample),
    over the replicas' spread: the mean density of each box equals N/V; V0's mean and variance and
    n0's variance equal the exact ones; the transfer acceptance equals its exact average of
    min(1, n_src V_dst / ((n_dst + 1) V_src)) over that distribution (a source box drawn uniformly)."""
    with h5py.File(path, "r") as f:
        ch = f["chains"]
        n0, n1 = ch["box0_particles"][:], ch["box1_particles"][:]
        v0, v1 = ch["box0_volume"][:], ch["box1_volume"][:]
        accept = ch["transfer_acceptance"][:]
    cutoff = float(cutoff)
    N = int(n0[0, 0] + n1[0, 0])
    V = float(v0[0, 0] + v1[0, 0])
    vmin = (2 * cutoff) ** 3
    a, b = vmin / V, 1 - vmin / V  # p = V0 / V uniform on [a, b]
    p = np.linspace(a, b, 4001)
    n = np.arange(N + 1)
    weights = stats.binom.pmf(n[None, :], N, p[:, None])  # [p, n0]
    weights /= weights.sum()
    # transfer from box 0 (n_src = n0 >= 1) or box 1, each half the time; n_src = 0 is rejected
    with np.errstate(divide="ignore", invalid="ignore"):
        from0 = np.where(n[None, :] > 0, np.minimum(1, n[None, :] * (1 - p[:, None]) / ((N - n[None, :] + 1) * p[:, None])), 0)
        from1 = np.where(N - n[None, :] > 0, np.minimum(1, (N - n[None, :]) * p[:, None] / ((n[None, :] + 1) * (1 - p[:, None]))), 0)
    exact_accept = float((weights * 0.5 * (from0 + from1)).sum())
    var_p = (b - a) ** 2 / 12
    exact_var_n0 = N * float(((p * (1 - p))[:, None] * weights).sum()) + N * N * var_p
    chains = v0.shape[0]
    rows = []
    for label, per_chain, exact in [
        ("mean density of box 0 (N/V)", (n0 / v0).mean(axis=1), N / V),
        ("mean density of box 1 (N/V)", (n1 / v1).mean(axis=1), N / V),
        ("mean of V0 / V", (v0 / V).mean(axis=1), 0.5),
        ("variance of V0 / V", ((v0 / V - 0.5) ** 2).mean(axis=1), var_p),
        ("variance of n0", ((n0 - N / 2) ** 2).mean(axis=1), exact_var_n0),
        ("transfer acceptance", accept, exact_accept),
    ]:
        m, e = replica_mean(per_chain)
        rows.append((label, m, e, exact, 0.0))
    print(f"N = {N}, V = {V:g}, Vmin = {vmin:g}, {chains} chains")
    return report(rows, student_threshold(len(rows), chains - 1))


def same_phases(path_a, path_b):
    """Two runs of one fluid (a pure fluid, and the same fluid as a mixture of identical species):
    the coexisting densities, energies and vapour pressure agree within their pooled errors."""
    names = ["liquid_density", "vapour_density", "liquid_energy", "vapour_energy", "vapour_pressure"]
    rows = []
    with h5py.File(path_a, "r") as fa, h5py.File(path_b, "r") as fb:
        ta = list(fa["statepoints/temperature"][:])
        for s, t in enumerate(fb["statepoints/temperature"][:]):
            if t not in ta:
                continue
            for name in names:
                ra, rb = fa["results"][name], fb["results"][name]
                rows.append((f"T = {t:g} {name}", rb["mean"][s], rb["stderr"][s], ra["mean"][ta.index(t)],
                             ra["stderr"][ta.index(t)]))
    if not rows:
        print("FAIL the files share no temperature")
        return False
    return report(rows, normal_threshold(len(rows)))


def coexistence(path):
    """The conditions of coexistence, for a fluid without reference data (molecules): at every state
    point the pressures of the two phases agree (the liquid's virial is the noisier), and so do their
    chemical potentials of every kind from test insertions, within the pooled errors. A wrong
    transfer or volume rule moves the boxes off coexistence and breaks one of them."""
    rows = []
    with h5py.File(path, "r") as f:
        temperatures = f["statepoints/temperature"][:]
        res = f["results"]
        mu, mu_e = res["chemical_potential/mean"][:], res["chemical_potential/stderr"][:]
        kinds = mu.shape[1] // 2
        for s, t in enumerate(temperatures):
            rows.append((f"T = {t:g} P liquid against vapour", res["liquid_pressure/mean"][s],
                         res["liquid_pressure/stderr"][s], res["vapour_pressure/mean"][s],
                         res["vapour_pressure/stderr"][s]))
            for k in range(kinds):
                rows.append((f"T = {t:g} mu[{k}] liquid against vapour", mu[s, k], mu_e[s, k], mu[s, kinds + k],
                             mu_e[s, kinds + k]))
    return report(rows, normal_threshold(len(rows)))


def not_separated(path):
    """Every chain of the file stayed one phase: its separation is below 3, and the pooled phase
    results are NaN rather than an average of unseparated boxes."""
    with h5py.File(path, "r") as f:
        sep = f["chains/separation"][:]
        liquid = f["results/liquid_density/mean"][:]
        vapour = f["results/vapour_density/mean"][:]
    print(f"separation per chain: {np.array2string(sep, precision=2)}; pooled liquid density {liquid}")
    good = bool(np.all(sep < 3) and np.all(np.isnan(liquid)) and np.all(np.isnan(vapour)))
    print("ok  " if good else "FAIL", "no chain separated and the phase results are NaN")
    return good


def separated(path):
    """Every chain of the file separated (separation above 3)."""
    with h5py.File(path, "r") as f:
        sep = f["chains/separation"][:]
    print(f"separation per chain: {np.array2string(sep, precision=2)}")
    return bool(np.all(sep > 3))


if __name__ == "__main__":
    run({"nist": nist, "ideal": ideal, "same_phases": same_phases, "coexistence": coexistence,
         "not_separated": not_separated, "separated": separated}, sys.argv)
