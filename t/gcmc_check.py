#!/usr/bin/env python3
"""Checks of grand-canonical runs ([ensemble] type = gcmc) read from their HDF5 files (t/gcmc.sh).

Each replica's ln Pi is rebuilt here from its windows' collection matrices (/chains/tmmc): the
transition N -> N + 1 of replica r is t_r(N) = ln P(N -> N+1) - ln P(N+1 -> N), and over R replicas
its mean has the standard error sd / sqrt(R). Transitions are nearly independent of one another
(ln Pi itself is their running sum, so its errors are correlated from N to N), so each comparison
is on transitions, as a t statistic with R - 1 degrees of freedom, and a run passes when the
largest |t| stays below the two-sided Bonferroni bound for a 1% false alarm over all transitions
compared, and the mean of t^2 below its expectation (R-1)/(R-3) plus four of its standard errors.

Usage: gcmc_check.py CHECK FILE [ARGS]; exit 0: it holds, 1: it fails, 2: the checker broke.
  pooled FILE          /results/tmmc/ln_pi and ln_pi_stderr are the mean and standard error of the
                       replicas' normalised ln Pi rebuilt here (to 1e-10); energy the pooled sums
  ideal FILE [MIN]     the ideal gas: t(N) = ln z + ln V - ln(N + 1), exactly (a mixture: z the sum of
                       its species' activities), over the transitions every replica attempted at
                       least MIN times from both macrostates
  nist FILE T          the LJ fluid against NIST's SRSW ln Pi (t/refdata/tmmc/lj_lnpi_T{T}.tsv),
                       transitions and mean energies at every N of the run
  spce FILE            SPC/E water at 525 K (charges, the Ewald sum) against NIST's SRSW ln Pi
                       (t/refdata/tmmc/spce_lnpi_T525.tsv): every transition of the run, in real
                       units (ln z in nm^-3)
  flat FILE RATIO      with the bias, every window's visits by N within RATIO of each other
  plain FILE           bias = no: the chains' mean N from /chains/particles against <N> of ln Pi
  exchange FILE        the ideal gas with replica exchange along lnz (bias = no): at every state point
                       the chains' mean N and the variance of their N both z V (Poisson), and each
                       pair's swap acceptance the exact E[min(1, exp(-(ln z_a - ln z_b)(N_a - N_b)))]
                       over independent Poisson N_a, N_b (truncated at n_max), each a t test over the
                       replicas (the ladders, independent of one another) at 1% two-sided, Bonferroni
                       over the comparisons
"""
import math
import os
import sys

try:
    import h5py
    import numpy as np
    from scipy import stats
except ImportError as e:  # the checker cannot run: not a failure of mcens
    print(f"gcmc_check: {e}")
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def ln_pi_from_rows(c):
    """ln Pi, normalised, from collection rows c[M][3] (down, stay, up); missing transitions flat."""
    tot = c.sum(axis=1)
    t = np.zeros(len(c) - 1)
    for i in range(len(c) - 1):
        if c[i, 2] > 0 and c[i + 1, 0] > 0:
            t[i] = math.log(c[i, 2] / tot[i]) - math.log(c[i + 1, 0] / tot[i + 1])
    lp = np.concatenate([[0.0], np.cumsum(t)])
    return lp - (lp.max() + math.log(np.exp(lp - lp.max()).sum())), t, np.minimum(tot[:-1], tot[1:])


def replicas(f, s):
    """Per replica of state point s: (ln Pi, transitions, energy sums, visits, the fewer attempts of
    each transition's two rows), windows pooled."""
    g, ch = f["results/tmmc"], f["chains/tmmc"]
    W = int(g.attrs["windows"])
    per_sp = np.sum(f["chains/statepoint"][:] == s)
    R = per_sp // W
    coll, esum, vis = ch["collection"][:], ch["energy_sum"][:], ch["visits"][:]
    out = []
    for r in range(R):
        ks = [s * per_sp + w * R + r for w in range(W)]  # window-major chains of the state point
        c = sum(coll[k] for k in ks)
        lp, t, attempts = ln_pi_from_rows(c)
        out.append((lp, t, sum(esum[k] for k in ks), sum(vis[k] for k in ks), attempts))
    return out


def t_test(name, diff, se, ref_se=None, independent=True):
    """diff [R][n] per replica minus the reference; returns after printing, failing on the bounds.
    The mean t^2 bound needs the n entries independent; where they are not (independent=False:
    ln Pi's entries, or transitions that correlate from N to N), only the max |t| bound applies."""
    R, n = diff.shape
    mean = diff.mean(axis=0)
    err = diff.std(axis=0, ddof=1) / math.sqrt(R)
    if ref_se is not None:
        err = np.sqrt(err ** 2 + ref_se ** 2)
    ok = err > 0
    tt = mean[ok] / err[ok]
    bound = stats.t.ppf(1 - 0.005 / len(tt), R - 1)
    # t^2 of R - 1 degrees of freedom has a finite mean from R = 4 and a finite variance from R = 6
    expect = (R - 1) / (R - 3) if R > 3 else math.inf
    var_t2 = 2 * (R - 1) ** 2 * (R - 2) / ((R - 3) ** 2 * (R - 5)) if R > 5 else math.inf
    ms_bound = expect + 4 * math.sqrt(var_t2 / len(tt))
    worst = np.argmax(abs(tt))
    print(f"{name}: {len(tt)} entries, {R} replicas: max |t| {abs(tt).max():.2f} (bound {bound:.2f}, at "
          f"index {np.flatnonzero(ok)[worst]}), mean t^2 {np.mean(tt ** 2):.2f} (expected {expect:.2f}, bound "
          f"{ms_bound:.2f}); largest standard error {err.max():.4f}")
    if abs(tt).max() > bound or (independent and np.mean(tt ** 2) > ms_bound):
        fail(f"{name}: the transitions differ from the reference beyond their errors")


def check_pooled(f):
    g = f["results/tmmc"]
    for s in range(len(g["lnz"])):
        reps = replicas(f, s)
        lps = np.array([r[0] for r in reps])
        mean = lps.mean(axis=0)
        se = lps.std(axis=0, ddof=1) / math.sqrt(len(lps)) if len(lps) > 1 else np.full(mean.shape, np.nan)
        d = np.max(abs(mean - g["ln_pi"][s]))
        dse = np.nanmax(abs(se - g["ln_pi_stderr"][s])) if len(lps) > 1 else 0.0
        e = sum(r[2] for r in reps) / np.maximum(sum(r[3] for r in reps), 1)
        de = np.nanmax(abs(e - g["energy"][s]) / np.maximum(abs(e), 1))
        print(f"state point {s}: ln_pi within {d:.2e}, stderr within {dse:.2e}, energy within {de:.2e} of the "
              f"replicas rebuilt from /chains/tmmc")
        if not (d < 1e-10 and dse < 1e-10 and de < 1e-12):
            fail("/results/tmmc is not the pooled /chains/tmmc")
        if g["missing_transitions"][s] != 0:
            fail(f"state point {s}: {g['missing_transitions'][s]} transitions without data")


def check_ideal(f, min_attempts):
    """Transitions whose rows every replica attempted at least min_attempts times (an unbiased chain
    seldom reaches the tails, and a ratio of few counts is biased besides its noise)."""
    g = f["results/tmmc"]
    n, V = g["n"][:], float(g.attrs["volume"])
    kinds = g["kind_lnz"][:]
    for s, lnz in enumerate(g["lnz"][:]):
        # the kinds are independent ideal gases: their total is the ideal gas of z = sum of their z
        z = sum(math.exp(lnz + d) for d in kinds)
        exact = math.log(z * V) - np.log(n[1:])  # ln Pi(N) - ln Pi(N - 1) = ln(z V / N)
        reps = replicas(f, s)
        use = np.min([r[4] for r in reps], axis=0) >= max(min_attempts, 1e-300)
        t = np.array([r[1] for r in reps])
        t_test(f"ideal gas, ln z = {lnz}, {use.sum()} of {len(use)} transitions attempted {min_attempts:g} times "
               f"by every replica", (t - exact)[:, use], None)


def check_nist(f, T):
    ref = np.loadtxt(os.path.join(HERE, "refdata", "tmmc", f"lj_lnpi_T{T}.tsv"), comments=("#", "N"))
    g = f["results/tmmc"]
    n = g["n"][:]
    lnz_ref = float(open(os.path.join(HERE, "refdata", "tmmc", f"lj_lnpi_T{T}.tsv")).read().split("lnz* = ln(activity)")[1]
                    .split("=")[2].split()[0])
    for s, lnz in enumerate(g["lnz"][:]):
        lp = ref[n, 1] + (lnz - lnz_ref) * n  # reweighted to the run's activity (normalisation drops out)
        ref_t = np.diff(lp)
        # NIST gives the spread of ln Pi over its 5 runs, not of its transitions: their error is taken
        # as that of two independent entries, which overstates it (the entries are correlated), so
        # this comparison is the weaker for it, never stricter than the errors allow
        ref_se = np.sqrt(ref[n[1:], 2] ** 2 + ref[n[:-1], 2] ** 2) / math.sqrt(5)
        reps = replicas(f, s)
        t_test(f"NIST T = {T}, transitions", np.array([r[1] for r in reps]) - ref_t, ref_se)
        # mean energies at every N with data in every replica, from N = 2 (N = 1 is the tail alone)
        e = np.array([r[2] / np.maximum(r[3], 1) for r in reps])
        vis = np.array([r[3] for r in reps])
        use = (vis.min(axis=0) > 0) & (n >= 2)
        t_test(f"NIST T = {T}, U(N)", (e - ref[n, 3])[:, use], ref[n[use], 4] / math.sqrt(5))


def check_spce(f):
    path = os.path.join(HERE, "refdata", "tmmc", "spce_lnpi_T525.tsv")
    ref = np.loadtxt(path, comments=("#", "N"))
    lnz_ref = -8.14 + 3 * math.log(10)  # NIST's ln z, in A^-3, in the run's nm^-3
    g = f["results/tmmc"]
    n = g["n"][:]
    for s, lnz in enumerate(g["lnz"][:]):
        ref_lp = ref[n, 1] + (lnz - lnz_ref) * n  # reweighted to the run's activity
        ref_lp -= ref_lp[0]
        ref_t = np.diff(ref_lp)
        # NIST's spread is of ln Pi over 3 runs; its transitions' error taken as two independent
        # entries', as check_nist does (an overstatement, never a tightening)
        ref_se = np.sqrt(ref[n[1:], 2] ** 2 + ref[n[:-1], 2] ** 2) / math.sqrt(3)
        reps = replicas(f, s)
        # water's transitions correlate from N to N (a replica's clusters at N and N + 1 are nearly
        # the same): five runs of t/gcmc.sh's case, 8 replicas each, scattered together by about
        # 0.03 over N = 2..10, so the mean t^2 bound, which needs them independent, does not apply;
        # each transition's own |t|, and each ln Pi(N) - ln Pi(0)'s, do
        t_test("NIST SPC/E T = 525 K, transitions", np.array([r[1] for r in reps]) - ref_t, ref_se, independent=False)
        lps = np.array([r[0] - r[0][0] for r in reps])[:, 1:] - ref_lp[1:]
        t_test("NIST SPC/E T = 525 K, ln Pi(N) - ln Pi(0)", lps,
               np.sqrt(ref[n[1:], 2] ** 2 + ref[n[0], 2] ** 2) / math.sqrt(3), independent=False)


def check_flat(f, ratio):
    ch = f["chains/tmmc"]
    lo = int(f["results/tmmc/n"][0])
    worst = math.inf
    for k, (a, b) in enumerate(ch["window"][:]):
        v = ch["visits"][k][a - lo:b - lo + 1].astype(float)
        worst = min(worst, v.min() / v.max())
    print(f"fewest visits of a macrostate over most, worst window: {worst:.3f} (at least {ratio})")
    if not worst >= ratio:
        fail("the bias did not flatten the visits of a window")


def check_plain(f):
    g = f["results/tmmc"]
    part, sp = f["chains/particles"][:], f["chains/statepoint"][:]
    for s in range(len(g["lnz"])):
        means = part[sp == s].mean(axis=1)
        m, se = means.mean(), means.std(ddof=1) / math.sqrt(len(means))
        d = (m - g["n_mean"][s]) / se
        print(f"state point {s}: chains' mean N {m:.3f} +- {se:.3f}, <N> of ln Pi {g['n_mean'][s]:.3f} ({d:.2f} se)")
        if abs(d) > stats.t.ppf(1 - 0.005, len(means) - 1):
            fail("the unbiased chains' N does not match their ln Pi")


def check_exchange(f):
    lnz = f["statepoints/lnz"][...]
    V = float(f["statepoints/box_length"][0]) ** 3
    n_max = int(f["results/tmmc/n"][-1])
    part, sp = f["chains/particles"][...], f["chains/statepoint"][...]
    acc = f["chains/exchange_acceptance"][...]
    S = len(lnz)
    n = np.arange(n_max + 1)
    pmf = [stats.poisson.pmf(n, math.exp(l) * V) for l in lnz]
    pmf = [q / q.sum() for q in pmf]  # N <= n_max
    bound = stats.t.ppf(1 - 0.005 / (3 * S), (sp == 0).sum() - 1)
    worst = [0.0]

    def against(what, per_replica, exact, failure):
        """A t test of the replicas' values (one per ladder, independent) against the exact value."""
        m, se = per_replica.mean(), per_replica.std(ddof=1) / math.sqrt(len(per_replica))
        t = (m - exact) / se
        worst[0] = max(worst[0], abs(t))
        print(f"{what} {m:.4f} +- {se:.4f}, exact {exact:.4f} (t = {t:.2f})")
        if abs(t) > bound:
            fail(failure)

    for s in range(S):
        mean = float((n * pmf[s]).sum())
        var = float(((n - mean) ** 2 * pmf[s]).sum())
        chains = part[sp == s]
        against(f"state point {s} (ln z {lnz[s]:g}): mean N", chains.mean(axis=1), mean,
                f"state point {s}: the mean N with exchange is not the Poisson value")
        against(f"state point {s} (ln z {lnz[s]:g}): variance of N", chains.var(axis=1, ddof=1), var,
                f"state point {s}: the variance of N with exchange is not the Poisson value")
        if s + 1 < S:  # the pair (s, s + 1): their ladder's neighbours
            d = lnz[s] - lnz[s + 1]
            expect = float(np.sum(pmf[s][:, None] * pmf[s + 1][None, :] *
                                  np.minimum(1.0, np.exp(-d * (n[:, None] - n[None, :])))))
            against(f"swaps {s}-{s + 1}: accepted", acc[sp == s], expect,
                    f"the swaps of state points {s} and {s + 1} are not accepted at the exact rate")
    walkers = f["chains/walker"][...]
    if not (walkers != np.arange(len(walkers))[:, None]).any():
        fail("no configuration left its chain")
    print(f"largest |t| {worst[0]:.2f} (bound {bound:.2f})")


def check_trajectory(f, equilibration, sample_every):
    """The trajectory of a varying N (io/traj.c): each frame's present particles (slots with id >= 0;
    molecules: whose sites have) are as many as /chains/particles says at that frame's sample; an
    absent slot's position (and its molecule's centre and orientation) is NaN, a present one's
    inside the box; a molecule's sites are present or absent together."""
    box = float(f["statepoints/box_length"][0]) if "statepoints/box_length" in f else None
    particles = f["chains/particles"][...]
    rigid = "molecules" in f
    frames = 0
    for k in range(particles.shape[0]):
        g = f["particles/chain_%06d" % k]
        ids, pos, steps = g["id/value"][...], g["position/value"][...], g["position/step"][...]
        present = ids >= 0
        sample = (steps - equilibration) // sample_every - 1
        if rigid:  # a molecule's first site stands for it (all its sites alike: below)
            first = np.unique(f["molecules/site_molecule"][...], return_index=True)[1]
            n = present[:, first].sum(axis=1)
        else:
            n = present.sum(axis=1)
        if not np.array_equal(n, particles[k, sample].astype(int)):
            fail(f"chain {k}: present particles per frame {n.tolist()}, /chains/particles {particles[k, sample].tolist()}")
        if not np.array_equal(ids[present], np.nonzero(present)[1]):
            fail(f"chain {k}: an id is not its slot's index")
        if not (np.isnan(pos[~present]).all() and np.isfinite(pos[present]).all()):
            fail(f"chain {k}: absent slots must be NaN and present ones finite")
        if box is not None and not ((pos[present] >= 0).all() and (pos[present] < box).all()):
            fail(f"chain {k}: a present position lies outside [0, {box})")
        if rigid:
            site_mol = f["molecules/site_molecule"][...]
            M = g["centre/value"].shape[1]
            mol_present = np.zeros((len(steps), M), bool)
            for fr in range(len(steps)):
                for m in range(M):
                    p = present[fr, site_mol == m]
                    if p.any() != p.all():
                        fail(f"chain {k} frame {fr}: molecule {m} is partly present")
                    mol_present[fr, m] = p.all()
            c, q = g["centre/value"][...], g["orientation/value"][...]
            if not (np.isnan(c[~mol_present]).all() and np.isfinite(c[mol_present]).all() and
                    np.isnan(q[~mol_present]).all() and np.isfinite(q[mol_present]).all()):
                fail(f"chain {k}: an absent molecule's centre or orientation is not NaN, or a present one's is")
        frames += len(steps)
    print(f"{particles.shape[0]} chains, {frames} frames: present slots match /chains/particles, absent ones NaN")


def main():
    check, path = sys.argv[1], sys.argv[2]
    with h5py.File(path, "r") as f:
        if check == "pooled":
            check_pooled(f)
        elif check == "ideal":
            check_ideal(f, float(sys.argv[3]) if len(sys.argv) > 3 else 0.0)
        elif check == "nist":
            check_nist(f, sys.argv[3])
        elif check == "flat":
            check_flat(f, float(sys.argv[3]))
        elif check == "spce":
            check_spce(f)
        elif check == "plain":
            check_plain(f)
        elif check == "exchange":
            check_exchange(f)
        elif check == "trajectory":
            check_trajectory(f, int(sys.argv[3]), int(sys.argv[4]))
        else:
            print("unknown check", check)
            sys.exit(2)
    print("ok")


if __name__ == "__main__":
    try:
        main()
    except SystemExit:
        raise
    except Exception as e:  # a broken checker is not a failure of mcens
        print(f"gcmc_check: {type(e).__name__}: {e}")
        sys.exit(2)
