#!/usr/bin/env python3
"""pipeline-model.py: a model of shape F's remaining route (doc/performance.md version 32), two
batches in flight on the large-chain cell path, checked against the sequential Metropolis chain.

On the GPU (cuda/cu_cells.cu) a batch of K trials is summed by kernel A against the configuration
at the batch's start and decided in order by kernel B, which corrects each trial for the earlier
accepted trials on its conflict list. With two batches in flight, kernel A of batch b runs while
kernel B decides batch b - 1, so it sums against the configuration R at the start of batch b - 1:

- kernel A of batch b sees a window: batch b - 1's trials, then batch b's, every position the one
  in R. For each trial of batch b it gives `base` (its move's energy change in R), `base2` for a
  second occurrence in the window (the change if the first one was accepted and moved the particle
  to its drawn position), and the conflict list: every earlier window trial of the same particle or
  whose particle lies in R within rc + step (mult_i + mult_m), where mult counts a particle's
  occurrences in the window up to that trial and step is the longest single move;
- kernel B of batch b decides in order against the true configuration C_b at its start (batch
  b - 1 written): a trial whose particle was moved earlier in the window by a first occurrence
  takes base2, one with more occurrences is summed afresh in C_b (and then corrected only for
  batch b's accepted trials), and every other takes base corrected for the accepted trials of both
  batches on its list, from their true old and new positions;
- a batch that ends early (a pair term beyond CU_CANCEL_LIMIT, here a chosen set of steps) voids
  the batch in flight: the round ends, and the next round's first batch is summed against its own
  start, as every batch is today.

The model uses all pairs within the cutoff instead of cells (the cells change which pairs are
summed, not the algorithm) and numpy's generator keyed by (seed, step) instead of Philox. It
prints, for each shape, the decisions that differ from the sequential chain's (none expected), the
largest difference of an energy change (rounding: the corrections are taken in another order), and
the counts the kernels would see: conflicts a trial, trials with a second occurrence in the window,
and trials summed afresh. Exit status 1 if a decision differs or an energy change differs by more
than 1e-9 kT.

It fails, as it should, with any of these changed (each tried): the previous batch's corrections
left out; the reach without the step terms (rc alone); a fresh sum taken in the configuration as
changed by the batch instead of at its start; kernel A of the next batch summing against the same
configuration as this one.

Usage: python3 doc/pipeline-model.py   (Debian's python3 with numpy; about ten seconds)
"""
import sys

import numpy as np

BETA = 1.0


def wrap(q, box):
    return q - box * np.floor(q / box)


def energy_of(p, q, X, box, rc):
    """Pair energy of particle p placed at q with every other particle of X (LJ, cut at rc)."""
    d = X - q
    d -= box * np.rint(d / box)
    r2 = (d * d).sum(1)
    r2[p] = np.inf
    r2 = r2[r2 < rc * rc]
    ir6 = 1.0 / r2**3
    return float((4.0 * (ir6 * ir6 - ir6)).sum())


def pair(q1, q2, box, rc):
    d = q1 - q2
    d -= box * np.rint(d / box)
    r2 = float((d * d).sum())
    if r2 >= rc * rc:
        return 0.0
    ir6 = 1.0 / r2**3
    return 4.0 * (ir6 * ir6 - ir6)


def correction(o, n, om, nm, box, rc):
    """The change of a trial's energy change (o -> n) when another particle moved from om to nm."""
    return (pair(n, nm, box, rc) - pair(n, om, box, rc)) - (pair(o, nm, box, rc) - pair(o, om, box, rc))


def draw(seed, step, n, max_disp):
    """Trial `step`: particle, displacement and acceptance threshold (accept if beta dE < it)."""
    rng = np.random.default_rng([seed, step])
    p = int(rng.integers(n))
    d = rng.uniform(-max_disp, max_disp, 3)
    return p, d, -np.log(1.0 - rng.random())


def sequential(X, moves, shape):
    X = X.copy()
    out = []
    for t in range(moves):
        p, d, th = draw(shape['seed'], t, len(X), shape['max_disp'])
        o = X[p].copy()
        n = wrap(o + d, shape['box'])
        dE = energy_of(p, n, X, shape['box'], shape['rc']) - energy_of(p, o, X, shape['box'], shape['rc'])
        acc = BETA * dE < th
        if acc:
            X[p] = n
        out.append((acc, dE))
    return X, out


class Trial:
    """A window trial: as drawn, as kernel A sees it (positions in R), and as kernel B decides it."""

    def __init__(self, step, p, d, th, a, box):
        self.step, self.p, self.d, self.th, self.a = step, p, d, th, a
        self.b = wrap(a + d, box)          # drawn new position from a
        self.mult, self.prev = 1, None     # occurrence in the window, previous occurrence
        self.base = self.base2 = None
        self.conf = []
        self.acc, self.old, self.new = False, None, None


def window(batch_prev, steps, R, shape):
    """Kernel A's window: the previous batch's trials (if any) and this batch's, positions in R."""
    seed, box, n = shape['seed'], shape['box'], len(R)
    win = []
    for t in batch_prev:  # as kernel B decided them, their positions as kernel A sees them now
        u = Trial(t.step, t.p, t.d, t.th, R[t.p].copy(), box)
        u.acc, u.old, u.new = t.acc, t.old, t.new
        win.append(u)
    for s in steps:
        p, d, th = draw(seed, s, n, shape['max_disp'])
        win.append(Trial(s, p, d, th, R[p].copy(), box))
    last = {}
    for w, t in enumerate(win):
        if t.p in last:
            t.prev = last[t.p]
            t.mult = win[t.prev].mult + 1
        last[t.p] = w
    return win


def kernel_a(win, first, R, shape):
    """Sums and conflict lists of the window's trials from index `first` on (this batch)."""
    box, rc = shape['box'], shape['rc']
    step = np.sqrt(3.0) * shape['max_disp']
    for w in range(first, len(win)):
        t = win[w]
        if t.mult <= 2:
            t.base = energy_of(t.p, t.b, R, box, rc) - energy_of(t.p, t.a, R, box, rc)
        if t.mult == 2:
            f = win[t.prev]
            q = wrap(f.b + t.d, box)
            t.base2 = energy_of(t.p, q, R, box, rc) - energy_of(t.p, f.b, R, box, rc)
        for m in range(w):
            u = win[m]
            reach = rc + step * (t.mult + u.mult) + 1e-9
            dd = t.a - u.a
            dd -= box * np.rint(dd / box)
            if u.p == t.p or float((dd * dd).sum()) < reach * reach:
                t.conf.append(m)


def kernel_b(win, first, C, shape, cancel, stats):
    """Decides the window's trials from `first` on against C (the true configuration at this
    batch's start, changed as it goes); returns the index of the first trial left undecided."""
    box, rc = shape['box'], shape['rc']
    X = C.copy()  # the positions kernel B writes at the end; the sums read C as the batch starts
    for w in range(first, len(win)):
        t = win[w]
        if t.step in cancel and w > first:
            C[:] = X
            return w  # the batch ends before t: a term beyond the cancel limit
        m = t.prev
        while m is not None and not win[m].acc:
            m = win[m].prev
        fresh = t.mult > 2
        if fresh:
            o = win[m].new if m is not None else t.a
            n = wrap(o + t.d, box)
            dE = energy_of(t.p, n, C, box, rc) - energy_of(t.p, o, C, box, rc)
            stats['fresh'] += 1
        elif m is not None:  # mult 2, its first occurrence accepted
            o, n, dE = win[m].new, wrap(win[m].new + t.d, box), t.base2
            stats['second'] += 1
        else:
            o, n, dE = t.a, t.b, t.base
        for c in t.conf:  # ascending: a fixed order
            u = win[c]
            if not u.acc or u.p == t.p or (fresh and c < first):
                continue  # a fresh sum already holds the previous batch's moves (they are in C)
            dE += correction(o, n, u.old, u.new, box, rc)
        t.acc = BETA * dE < t.th
        t.old, t.new, t.dE = o, n, dE
        if t.acc:
            X[t.p] = n
    C[:] = X
    return len(win)


def pipelined(X, moves, K, shape, cancel):
    X = X.copy()
    out = {}
    stats = dict(batches=0, conf=0, trials=0, second=0, fresh=0, rounds=0, voided=0)
    start = 0
    while start < moves:  # rounds
        stats['rounds'] += 1
        prev, R = [], X.copy()  # the round's first batch: no batch in flight, R its own start
        s = start
        while s < moves:
            steps = list(range(s, min(s + K, moves)))
            win = window(prev, steps, R, shape)
            first = len(prev)
            kernel_a(win, first, R, shape)
            R_next = X.copy()  # kernel A of the next batch reads the configuration at this one's start
            stop = kernel_b(win, first, X, shape, cancel, stats)
            stats['batches'] += 1
            for t in win[first:stop]:
                out[t.step] = (t.acc, t.dE)
                stats['conf'] += sum(1 for c in t.conf if win[c].p != t.p)
                stats['trials'] += 1
            if stop < len(win):  # the batch in flight (summed against R_next) is void
                stats['voided'] += 1
                start = steps[stop - first]
                break
            prev, R, s = win[first:], R_next, s + len(steps)
        else:
            start = moves
    return X, [out[t] for t in range(moves)], stats


def lattice(n, box):
    m = int(np.ceil(n ** (1 / 3)))
    g = (np.arange(m) + 0.5) * box / m
    pts = np.array([(x, y, z) for x in g for y in g for z in g])[:n]
    return pts


def check(name, n, rho, rc, max_disp, K, moves, cancel_every, seed=7):
    box = (n / rho) ** (1 / 3)
    shape = dict(box=box, rc=rc, max_disp=max_disp, seed=seed)
    X0 = lattice(n, box)
    cancel = set(range(cancel_every // 2, moves, cancel_every)) if cancel_every else set()
    Xs, seq = sequential(X0, moves, shape)
    Xp, pip, st = pipelined(X0, moves, K, shape, cancel)
    differ = sum(a[0] != b[0] for a, b in zip(seq, pip))
    worst = max(abs(a[1] - b[1]) for a, b in zip(seq, pip))
    acc = np.mean([a[0] for a in seq])
    same_end = np.array_equal(Xs, Xp)
    print(f"{name}: N={n} rho={rho} rc={rc} max_disp={max_disp} K={K} moves={moves}: "
          f"{differ} decisions differ, largest |dE difference| {worst:.2e}, final positions "
          f"{'identical' if same_end else 'DIFFER'}; acceptance {acc:.3f}; a batch: "
          f"{st['conf'] / st['trials']:.2f} conflicts a trial (other particles), "
          f"{st['second'] / st['batches']:.2f} second occurrences taken, {st['fresh'] / st['batches']:.3f} "
          f"summed afresh; {st['rounds']} rounds, {st['voided']} batches in flight voided")
    return differ == 0 and worst < 1e-9 and same_end


def main():
    ok = True
    # dense and small: most trials conflict, particles recur within and across batches
    ok &= check("dense", n=64, rho=0.8, rc=2.0, max_disp=0.15, K=8, moves=4000, cancel_every=0)
    ok &= check("dense, early stops", n=64, rho=0.8, rc=2.0, max_disp=0.15, K=8, moves=4000, cancel_every=97)
    ok &= check("larger", n=500, rho=0.8, rc=2.5, max_disp=0.1, K=32, moves=3000, cancel_every=0)
    ok &= check("larger, early stops", n=500, rho=0.8, rc=2.5, max_disp=0.1, K=32, moves=3000, cancel_every=211)
    print("pipeline model:", "every decision the sequential chain's" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
