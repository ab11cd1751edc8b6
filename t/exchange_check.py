#!/usr/bin/env python3
"""Assertions on replica-exchange output (t/exchange.sh). Each subcommand prints '# ' diagnostics
and exits 0 when its check holds, 1 when it does not, 2 when the checker breaks (t/checkrun.py).
Thresholds are z-scores of combined standard errors, Bonferroni-corrected for the number of
comparisons a check makes."""
import math
import sys

import h5py
import numpy as np

from checkrun import fail, run


def z_threshold(m, alpha=0.01):
    """Two-sided normal quantile of alpha / m (Bonferroni over m comparisons), by bisection."""
    lo, hi = 0.0, 10.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if math.erfc(mid / math.sqrt(2)) > alpha / m:
            lo = mid
        else:
            hi = mid
    return hi


def ladders(f):
    """{ladder key: [chain per rung]} from the file: chains of one replica and one density
    (pressure) along temperature, or the other way round along the axis attribute."""
    axis = f["results/exchange"].attrs["axis"]
    axis = axis.decode() if isinstance(axis, bytes) else axis
    sp, rep = f["chains/statepoint"][...], f["chains/replica"][...]
    T = f["statepoints/temperature"][...]
    other = f["statepoints/pressure"][...] if "statepoints/pressure" in f else f["statepoints/density"][...]
    run_axis, fixed = (T, other) if axis == "temperature" else (other, T)
    out = {}
    for c in range(len(sp)):
        out.setdefault((fixed[sp[c]], rep[c]), []).append(c)
    for key in out:
        out[key].sort(key=lambda c: run_axis[sp[c]])
    return out


def paths(path):
    """The walker bookkeeping: at every sample each ladder's chains hold a permutation of the
    ladder's walkers, /chains/state is the inverse of /chains/walker, walkers move only between
    neighbouring rungs between samples when sample_every = exchange_every, and the acceptance
    and round trips are in range."""
    with h5py.File(path, "r") as f:
        walker, state, sp = f["chains/walker"][...], f["chains/state"][...], f["chains/statepoint"][...]
        C, S = walker.shape
        for key, chains in ladders(f).items():
            held = walker[chains]
            if any(sorted(held[:, t]) != sorted(chains) for t in range(S)):
                fail(f"ladder {key}: the walkers held are not a permutation of the ladder's own at some sample")
        for c in range(C):
            if not np.array_equal(state[walker[c], np.arange(S)], np.full(S, sp[c])):
                fail(f"/chains/state is not the inverse of /chains/walker for chain {c}")
        acc = f["chains/exchange_acceptance"][...]
        tops = [chains[-1] for chains in ladders(f).values()]
        if not np.all(np.isnan(acc[tops])):
            fail("the last rung of a ladder has an exchange acceptance")
        others = np.delete(acc, tops)
        if not np.all((others > 0) & (others < 1)):
            fail(f"exchange acceptances outside (0, 1): {others}")
        moved = np.count_nonzero(walker != np.arange(C)[:, None])
        trips = f["chains/round_trips"][...]
        if moved == 0 or trips.sum() <= 0:
            fail("no walker ever left its chain or crossed a ladder")
        print(f"# {C} chains x {S} samples: permutations hold, state inverts walker; {moved} samples hold another "
              f"chain's walker; round trips {trips.sum():.1f} in all; acceptance {np.round(others, 3)}")


def unchanged(a, b, *names):
    """Exchange leaves every average unchanged: each state point's NAME means of files A and B
    (with and without exchange) agree within the Bonferroni threshold of combined errors."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        m = sum(len(fa[f"results/{n}/mean"]) for n in names)
        zmax, worst = z_threshold(m), 0.0
        for n in names:
            ma, ea = fa[f"results/{n}/mean"][...], fa[f"results/{n}/stderr"][...]
            mb, eb = fb[f"results/{n}/mean"][...], fb[f"results/{n}/stderr"][...]
            z = np.abs(ma - mb) / np.hypot(ea, eb)
            print(f"# {n}: {a} {np.round(ma, 4)}, {b} {np.round(mb, 4)}, z {np.round(z, 2)}")
            worst = max(worst, float(np.max(z)))
        if not worst < zmax:
            fail(f"largest difference {worst:.2f} combined standard errors, beyond {zmax:.2f} ({m} comparisons)")
        print(f"# largest difference {worst:.2f} sigma < {zmax:.2f} ({m} comparisons, 1% family-wise)")


def overlap(path):
    """The measured swap acceptance of every neighbouring pair equals the one its energy
    distributions predict, <min(1, exp[(beta_i - beta_j)(U_i - U_j)])> over independent samples of
    the two state points (nvt temperature ladders). Errors: the spread of per-replica values."""
    with h5py.File(path, "r") as f:
        n = int(f["species/count"][...].sum()) if "species/count" in f else None
        if n is None:
            fail("no particle count in the file")
        T, sp = f["statepoints/temperature"][...], f["chains/statepoint"][...]
        U = f["chains/energy"][...] * n
        start = f["chains/equilibration_sample"][...]
        attempts_acc = f["chains/exchange_acceptance"][...]
        lad = list(ladders(f).values())
        pairs = len(lad[0]) - 1
        zmax, worst = z_threshold(pairs), 0.0
        for r in range(pairs):
            pred, meas = [], []
            for chains in lad:
                i, j = chains[r], chains[r + 1]
                ui, uj = U[i, start[i]:], U[j, start[j]:]
                dbeta = 1 / T[sp[i]] - 1 / T[sp[j]]
                pred.append(np.mean(np.minimum(1.0, np.exp(dbeta * (ui[:, None] - uj[None, :])))))
                meas.append(attempts_acc[i])
            pred, meas = np.array(pred), np.array(meas)
            k = len(lad)
            err = math.sqrt(np.var(pred - meas, ddof=1) / k)
            z = abs(np.mean(pred) - np.mean(meas)) / err
            print(f"# pair {r}-{r + 1}: measured {np.mean(meas):.4f}, from the energy histograms {np.mean(pred):.4f} "
                  f"+- {err:.4f} (z {z:.2f})")
            worst = max(worst, z)
        if not worst < zmax:
            fail(f"a pair's acceptance differs from its prediction by {worst:.2f} sigma, beyond {zmax:.2f}")


def agree(a, b, *names):
    """Two runs of one system from different starts give the same NAME at every state point within
    the Bonferroni threshold of combined errors."""
    unchanged(a, b, *names)


def disagree(a, b, name):
    """The negative control: without exchange the two starts differ at some state point by more than
    the threshold (so that agreement with exchange means something)."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        ma, ea = fa[f"results/{name}/mean"][...], fa[f"results/{name}/stderr"][...]
        mb, eb = fb[f"results/{name}/mean"][...], fb[f"results/{name}/stderr"][...]
        z = np.abs(ma - mb) / np.hypot(ea, eb)
        print(f"# {name}: {np.round(ma, 4)} against {np.round(mb, 4)}, z {np.round(z, 1)}")
        if not np.max(z) > z_threshold(len(z)):
            fail("the two starts agree without exchange too: the check has no power")


if __name__ == "__main__":
    run({"paths": paths, "unchanged": unchanged, "overlap": overlap, "agree": agree, "disagree": disagree},
        sys.argv)
