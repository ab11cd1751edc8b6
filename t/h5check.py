#!/usr/bin/env python3
"""Assertions on mcens output files for the shell tests. Each subcommand prints '# ' diagnostics
and exits 0 when its check holds, 1 when it does not."""
import csv
import math
import os
import subprocess
import sys

import h5py
import numpy as np

from checkrun import fail, run

REQUIRED = {  # dataset -> expected shape in terms of S (state points), C (chains), N, B (bins), K samples
    "parameters": (),
    "statepoints/temperature": ("S",), "statepoints/density": ("S",),
    "chains/statepoint": ("C",),
    "results/rdf/r": ("B",), "results/rdf/g": ("S", "P", "B"), "results/rdf/pairs": ("P",),
    "species/name": ("P1",), "species/pair_sigma": ("P1", "P1"),
}


# The conditions the observables' rows name ("WHEN only: ..."), each as a test on the file; a row
# with a condition this checker does not know fails the check, so a new one must be taught here.
def is_gibbs(f):
    return "chains/box_length" in f


CONDITIONS = {
    "npt": lambda f: "statepoints/pressure" in f,
    "gibbs": is_gibbs,
    "npt and gibbs": lambda f: "statepoints/pressure" in f or is_gibbs(f),
    "nvt and npt": lambda f: not is_gibbs(f) and "statepoints/lnz" not in f,
    "nvt, npt and gcmc": lambda f: not is_gibbs(f),
    "gcmc": lambda f: "statepoints/lnz" in f,
    "npt and gcmc": lambda f: "statepoints/pressure" in f or "statepoints/lnz" in f,
    "gibbs and gcmc": lambda f: is_gibbs(f) or "statepoints/lnz" in f,
    "molecules and open clusters": lambda f: "molecules" in f,
    "open clusters": lambda f: "molecules" in f and float(f["statepoints/box_length"][0]) == 0.0,
    "open clusters without replica exchange": lambda f: ("molecules" in f and float(f["statepoints/box_length"][0]) == 0.0
                                                         and "exchange" not in f["results"]),
}


def observable_rows():
    """The observables' datasets as mcens declares them (mcens --output-reference, from the one
    table in src/mc_observable.c): {path: (shape, condition or None)}. MCENS names the binary."""
    if "MCENS" not in os.environ:
        fail("MCENS must name the mcens binary (make check sets it)")
    ref = subprocess.run([os.environ["MCENS"], "--output-reference"], capture_output=True, text=True,
                         check=True).stdout
    rows = {}
    for line in ref.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        path, shape = cells[0].strip("`").lstrip("/"), tuple(d.strip() for d in cells[1].strip("[]").split(","))
        when = cells[2].split(" only: ")[0] if " only: " in cells[2] else None
        if when is not None and when not in CONDITIONS:
            fail(f"row {path}: condition '{when}' unknown to t/h5check.py (add it to CONDITIONS)")
        if "/{" in path:
            base, fields = path.split("/{")
            for field in fields.rstrip("}").split(","):
                rows[f"{base}/{field}"] = (shape, when)
        else:
            rows[path] = (shape, when)
    if not rows:
        fail("mcens --output-reference printed no rows")
    return rows


def final(f, element):
    """Every chain's last trajectory frame of ELEMENT (position, centre, orientation): [C, ...]."""
    return np.stack([f[f"particles/{g}/{element}/value"][-1] for g in sorted(f["particles"])])


def final_box(f):
    """Every chain's box edge at the end (0 for an open cluster, which has no edges)."""
    groups = sorted(f["particles"])
    if "edges" not in f[f"particles/{groups[0]}/box"]:
        return np.zeros(len(groups))
    return np.array([f[f"particles/{g}/box/edges/value"][-1][0, 0] for g in groups])


def nparticles(f):
    return f["particles/chain_000000/position/value"].shape[1]


def layout(path, S, C, N, B, K, species=1):
    """P: species pairs, P1: species (1 and 1 for a pure fluid); a gcmc file: N its slots, M its
    macrostates (from /results/tmmc/n), and /results/tmmc and /chains/tmmc besides."""
    ns = int(species)
    dims = {"S": int(S), "C": int(C), "N": int(N), "B": int(B), "K": int(K), "P": ns * (ns + 1) // 2, "P1": ns}
    with h5py.File(path, "r") as f:
        required = dict(REQUIRED)
        required.update({name: shape for name, (shape, when) in observable_rows().items()
                         if when is None or CONDITIONS[when](f)})
        if CONDITIONS["gcmc"](f):  # ln z is the axis; ln Pi over the M macrostates n_min..n_max
            del required["statepoints/density"]
            dims["M"] = f["results/tmmc/n"].shape[0] if "results/tmmc/n" in f else -1
            dims["KINDS"] = f["molecules/name"].shape[0] if "molecules" in f else dims["P1"]
            required.update({"statepoints/lnz": ("S",), "results/tmmc/n": ("M",), "results/tmmc/lnz": ("S",),
                             "results/tmmc/ln_pi": ("S", "M"), "results/tmmc/ln_pi_stderr": ("S", "M"),
                             "results/tmmc/energy": ("S", "M"), "results/tmmc/n_mean": ("S",),
                             "results/tmmc/density": ("S",), "results/tmmc/missing_transitions": ("S",),
                             "results/tmmc/kind_lnz": ("KINDS",), "chains/tmmc/collection": ("C", "M", 3),
                             "chains/tmmc/energy_sum": ("C", "M"), "chains/tmmc/visits": ("C", "M"),
                             "chains/tmmc/bias": ("C", "M"), "chains/tmmc/window": ("C", 2),
                             "chains/tmmc/present": ("C", "N")})
        for name, shape in required.items():
            if name not in f:
                fail(f"{name} missing")
            want = tuple(dims.get(d, d) for d in shape)
            if f[name].shape != want:
                fail(f"{name} has shape {f[name].shape}, expected {want}")
            if name != "parameters" and ("unit" not in f[name].attrs or "description" not in f[name].attrs):
                fail(f"{name} lacks a unit or description attribute")
        attrs = f["parameters"].attrs
        for a in ("mcens_version", "git_revision", "creation_time", "nranks", "hosts"):
            if a not in attrs:
                fail(f"/parameters lacks attribute {a}")
        for name in ("chains/energy", "chains/pressure", "results/rdf/g"):
            if not np.all(np.isfinite(f[name][...])):
                fail(f"{name} has non-finite values")
        if len(f["particles"]) != dims["C"] or f["particles/chain_000000/position/value"].shape[1:] != (dims["N"], 3):
            fail(f"/particles: {len(f['particles'])} chains of {f['particles/chain_000000/position/value'].shape}, "
                 f"expected {dims['C']} of [frames, {dims['N']}, 3]")
        sp = f["chains/statepoint"][...]
        if list(sp) != sorted(sp) or sp.max() != dims["S"] - 1:
            fail("chains/statepoint does not run 0..S-1 in order")
        print(f"# layout ok: S={S} C={C} N={N} B={B} samples={K}, nranks={attrs['nranks']}")


def datasets_under(f, tops):
    """Every dataset below the groups TOPS that f has, sorted."""
    found = []
    for top in tops:
        if top in f:
            f[top].visititems(lambda n, o: found.append(f"{top}/{n}") if isinstance(o, h5py.Dataset) else None)
    return sorted(found)


def same(a, b, *names):
    """The named datasets bit-identical; a name that is a group (particles) stands for every
    dataset below it."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        names = [d for n in names for d in (datasets_under(fa, [n]) if isinstance(fa.get(n), h5py.Group) else [n])]
        for name in names:
            x, y = fa[name][...], fb[name][...]
            if x.shape != y.shape or x.tobytes() != y.tobytes():
                diff = np.max(np.abs(x - y)) if x.shape == y.shape else "shape"
                fail(f"{name} differs between {a} and {b} (max |diff| {diff})")
        print(f"# bit-identical: {', '.join(names)}")


def same_results(a, b):
    """Every dataset under /chains, /results, /particles (the trajectory) and /observables
    bit-identical, and the same set of them (a restarted or extended run against an uninterrupted
    one)."""
    tops = ("chains", "results", "particles", "observables")
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        na, nb = datasets_under(fa, tops), datasets_under(fb, tops)
        if na != nb:
            fail(f"{a} and {b} hold different datasets: {sorted(set(na) ^ set(nb))}")
        differing = [n for n in na if fa[n].shape != fb[n].shape or fa[n][...].tobytes() != fb[n][...].tobytes()]
        if differing:
            fail(f"{len(differing)} of {len(na)} datasets differ between {a} and {b}: {', '.join(differing[:8])}")
        print(f"# all {len(na)} datasets of /chains, /results, /particles and /observables bit-identical")


def differ(a, b, name):
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        if fa[name][...].tobytes() == fb[name][...].tobytes():
            fail(f"{name} is identical in {a} and {b}; expected different random streams")
    print(f"# {name} differs, as it should")


def parameters_text(path, config):
    with h5py.File(path, "r") as f, open(config, "rb") as c:
        stored = f["parameters"][()]
        if stored != c.read():
            fail("/parameters does not hold the config text as given")
        print(f"# /parameters holds {len(stored)} bytes of config text")


def paths(path, expected):
    """Every rank's path (/parameters@paths, mc_backend_ops.path) is the expected one (or one of
    several, separated by |, for a config that either backend may run)."""
    with h5py.File(path, "r") as f:
        got = f["parameters"].attrs["paths"]
        got = got.decode() if isinstance(got, bytes) else str(got)
    ranks = got.split()
    if not ranks or any(r not in expected.split("|") for r in ranks):
        fail(f"{path}: /parameters@paths is '{got}'; expected '{expected}' on every rank")
    print(f"# {path}: every rank ran {expected}")


def set_gpu_shape(ckpt, sm_count, smem_per_block):
    """Edit the GPU a checkpoint's kernels were shaped for (SM count, shared memory a block in
    bytes) where it has one (a GPU run), and print the pair it holds now: "0 0" without a GPU."""
    with h5py.File(ckpt, "r+") as f:
        if int(f.attrs["gpu_sm_count"]) > 0:
            f.attrs["gpu_sm_count"] = np.int64(sm_count)
            f.attrs["gpu_smem_per_block"] = np.int64(smem_per_block)
        print(int(f.attrs["gpu_sm_count"]), int(f.attrs["gpu_smem_per_block"]))


def flip_bit(ckpt, where, index, bit):
    """Flip bit BIT of element INDEX (of the flattened dataset) of dataset WHERE, or of the
    attribute WHERE when it starts with '@', in place: damage as a bad disk or a stray write makes
    it. Prints the value before and after."""
    with h5py.File(ckpt, "r+") as f:
        if where.startswith("@"):
            a = np.array(f.attrs[where[1:]])
            raw = a.reshape(-1).view(np.uint64 if a.dtype.itemsize == 8 else np.uint32)
            raw[int(index)] ^= np.uint64(1) << np.uint64(int(bit)) if a.dtype.itemsize == 8 else np.uint32(1 << int(bit))
            f.attrs[where[1:]] = a
            print(f"# {where}: now {a}")
            return
        d = f[where]
        a = d[...]
        before = a.reshape(-1)[int(index)]
        raw = a.reshape(-1).view(np.uint64)
        raw[int(index)] ^= np.uint64(1) << np.uint64(int(bit))
        d[...] = a
        print(f"# {where}[{index}]: {before!r} -> {a.reshape(-1)[int(index)]!r}")


def segments(path, kinds, ranks):
    """/parameters@segments records the run's segments in order, a line each: the kinds given (comma
    separated: start, restart, extend), on the ranks given, each beginning at the sweep where the one
    before it ended, the first at 0 and the last at the run's total."""
    import re
    with h5py.File(path, "r") as f:
        text = f["parameters"].attrs["segments"]
    text = text.decode() if isinstance(text, bytes) else text
    lines = [line for line in text.split("\n") if line]
    print("\n".join(lines))
    want, nranks = kinds.split(","), [int(r) for r in ranks.split(",")]
    if len(lines) != len(want):
        fail(f"{len(lines)} segments, expected {len(want)}")
    end = 0
    for line, kind, n in zip(lines, want, nranks):
        m = re.match(r"(start|restart|extend by \d+ sweeps): sweeps (\d+) to (\d+) of (\d+), (\d+) ranks, mcens ", line)
        if not m or not m.group(1).startswith(kind) or int(m.group(2)) != end or int(m.group(5)) != n:
            fail(f"segment '{line}': expected {kind} from sweep {end} on {n} ranks")
        end = int(m.group(3))
    if end != int(m.group(4)):
        fail(f"the last segment ends at sweep {end}, the run's total is {m.group(4)}")


def gpu_shape(path, sm_count, smem_per_block):
    """/parameters@gpu_sm_count and gpu_smem_per_block, the GPU the run's kernels were shaped for,
    are the expected ones; smem_per_block "below:B" asks for one in (0, B): this run's own GPU."""
    with h5py.File(path, "r") as f:
        sm, smem = (int(f["parameters"].attrs[k]) for k in ("gpu_sm_count", "gpu_smem_per_block"))
    if smem_per_block.startswith("below:"):
        smem_ok = 0 < smem < int(smem_per_block[6:])
    else:
        smem_ok = smem == int(smem_per_block)
    if sm != int(sm_count) or not smem_ok:
        fail(f"{path}: kernels shaped for {sm} SMs and {smem} bytes of shared memory a block; expected "
             f"{sm_count} and {smem_per_block}")
    print(f"# {path}: kernels shaped for {sm} SMs, {smem} bytes of shared memory a block")


def rows(path):
    with open(path) as fh:
        return list(csv.DictReader(line for line in fh if not line.startswith("#")))


def within(name, got, se, ref, extra):
    tol = 3 * se + extra
    ok = abs(got - ref) <= tol
    print(f"# {name}: {got:.5f} +- {se:.5f}, reference {ref:.5f}, |diff| {abs(got - ref):.5f} "
          f"<= {tol:.5f} (3 se + {extra}): {'ok' if ok else 'FAIL'}")
    return ok


def eos(path, refcsv):
    """NVT U and P against the Thol et al. equation of state, at every reference point in the file."""
    refs = rows(refcsv)
    good, checked = True, 0
    with h5py.File(path, "r") as f:
        T, rho = f["statepoints/temperature"][...], f["statepoints/density"][...]
        U, dU = f["results/energy/mean"][...], f["results/energy/stderr"][...]
        P, dP = f["results/pressure/mean"][...], f["results/pressure/stderr"][...]
        nind = f["results/energy/n_independent"][...]
        mu, dmu = f["results/mu_excess/mean"][...], f["results/mu_excess/stderr"][...]
        for r in refs:
            hit = np.where((np.abs(T - float(r["T"])) < 1e-12) & (np.abs(rho - float(r["rho"])) < 1e-12))[0]
            if len(hit) == 0:
                continue
            s = hit[0]
            checked += 1
            print(f"# T={T[s]} rho={rho[s]}: {nind[s]:.0f} independent samples")
            for q in ("energy", "pressure"):
                if f[f"results/{q}/blocking_converged"][s] != 1:
                    print(f"# {q}: blocking found no plateau, so its error bar is not to be trusted")
                    good = False
            good &= within("U", U[s], dU[s], float(r["U_Thol"]), 0.01)
            good &= within("P", P[s], dP[s], float(r["P_Thol"]), 0.01)
            good &= within("muex", mu[s, 0], dmu[s, 0], float(r["muex_Thol"]), 0.02)
    if checked == 0:
        fail("no state point of the file is in the reference table")
    return good


def dilute(path, refcsv, column_u, column_b2):
    """rho -> 0: U/N = rho dU/drho, Z = P/(rho T) = 1 + B2 rho and (with Widom insertion)
    beta muex = 2 B2 rho, each to O(rho^2) (1e-3 relative)."""
    return dilute_check(path, {float(r["T"]): (float(r[column_u]), float(r[column_b2])) for r in rows(refcsv)})


def dilute_morse(path, eps, alpha, r0):
    """The dilute limit of the full Morse potential, eps [(1 - exp(-alpha (r - r0)))^2 - 1], with
    B2 = -2 pi int (exp(-u/T) - 1) r^2 dr and dU/drho = 2 pi int u exp(-u/T) r^2 dr by quadrature
    (Simpson on 0..r0 + 40/alpha, where u < 1e-17 eps)."""
    eps, alpha, r0 = float(eps), float(alpha), float(r0)
    r = np.linspace(0.0, r0 + 40.0 / alpha, 400001)
    e = np.exp(-alpha * (r - r0))
    u = eps * e * (e - 2.0)
    h = r[1] - r[0]
    wgt = np.ones_like(r)
    wgt[1:-1:2], wgt[2:-1:2] = 4.0, 2.0
    simpson = lambda f: h / 3.0 * np.sum(wgt * f)
    with h5py.File(path, "r") as f:
        temps = f["statepoints/temperature"][...]
    refs = {}
    for T in temps:
        boltz = np.exp(-u / T)
        refs[float(T)] = (2 * math.pi * simpson(u * boltz * r * r), -2 * math.pi * simpson((boltz - 1) * r * r))
        print(f"# Morse T={T}: B2 = {refs[float(T)][1]:.6f}, dU/drho = {refs[float(T)][0]:.6f} (quadrature)")
    return dilute_check(path, refs)


def dilute_check(path, refs):
    """refs: T -> (dU/drho, B2)."""
    good = True
    with h5py.File(path, "r") as f:
        T, rho = f["statepoints/temperature"][...], f["statepoints/density"][...]
        U, dU = f["results/energy/mean"][...], f["results/energy/stderr"][...]
        P, dP = f["results/pressure/mean"][...], f["results/pressure/stderr"][...]
        widom = "results/mu_excess" in f
        if widom:
            mu, dmu = f["results/mu_excess/mean"][...], f["results/mu_excess/stderr"][...]
        for s in range(len(T)):
            dudrho, b2 = refs[float(T[s])]
            u_ref = rho[s] * dudrho
            z_ref = 1 + b2 * rho[s]
            z, dz = P[s] / (rho[s] * T[s]), dP[s] / (rho[s] * T[s])
            good &= within(f"T={T[s]} U/N", U[s], dU[s], u_ref, 1e-3 * abs(u_ref))
            good &= within(f"T={T[s]} Z-1", z - 1, dz, z_ref - 1, 1e-3 * abs(z_ref - 1))
            if widom:
                mu_ref = 2 * b2 * rho[s] * T[s]
                good &= within(f"T={T[s]} muex", mu[s, 0], dmu[s, 0], mu_ref, 1e-3 * abs(mu_ref))
    return good


def diatomic_b2(bond, T, pair_u, R=12.0, tail_c6=0.0, nang=12, nr=2401):
    """B2 of a rigid homonuclear diatomic (sites at +-bond/2, each site pair u(r2) = pair_u(r2)) by
    quadrature: Gauss-Legendre in cos(theta1) and cos(theta2) on [0, 1] (the molecule is symmetric
    under u -> -u), a periodic trapezoid in the relative azimuth, Simpson in the centres' distance
    on [0, R]; beyond R the linearised dispersion of the four site pairs, -4 tail_c6 / r^6. Converged
    to 1e-9 relative at nang = 12 (checked against 16) for the LJ diatomic of bond 0.5 at T = 2."""
    x, w = np.polynomial.legendre.leggauss(nang)
    c, wc = 0.5 * (x + 1), 0.5 * w
    nphi = 2 * nang
    C1, C2, PH = np.meshgrid(c, c, 2 * np.pi * np.arange(nphi) / nphi, indexing="ij")
    W = (wc[:, None, None] * wc[None, :, None] * np.full(nphi, 1.0 / nphi)[None, None, :]).ravel()
    S1, S2 = np.sqrt(1 - C1.ravel() ** 2), np.sqrt(1 - C2.ravel() ** 2)
    u1 = np.stack([S1, np.zeros_like(S1), C1.ravel()], 1)
    u2 = np.stack([S2 * np.cos(PH.ravel()), S2 * np.sin(PH.ravel()), C2.ravel()], 1)
    r = np.linspace(0.0, R, nr)
    f_mean = np.full(nr, -1.0)  # <exp(-u/T) - 1> over orientations; -1 at r = 0 (overlap)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        for i in range(1, nr):
            u = np.zeros(len(W))
            for s1 in (-0.5 * bond, 0.5 * bond):
                for s2 in (-0.5 * bond, 0.5 * bond):
                    d = s2 * u2 - s1 * u1
                    d[:, 2] += r[i]
                    u += pair_u(np.sum(d * d, 1))
            f_mean[i] = np.sum(W * (np.exp(-u / T) - 1.0))
    wt = np.ones(nr)
    wt[1:-1:2], wt[2:-1:2] = 4.0, 2.0
    b2 = -2 * np.pi * (r[1] - r[0]) / 3.0 * np.sum(wt * f_mean * r * r)
    return b2 - 2 * np.pi / T * 4 * tail_c6 / (3 * R ** 3)


def widom_diatomic(path, bond, potential, *args):
    """Widom insertion of rigid homonuclear diatomics in the dilute limit: beta mu_ex = 2 B2 rho
    (rho in molecules), B2 of the full potential by quadrature (diatomic_b2): lj (eps = sigma = 1)
    or morse EPS ALPHA R0. Within 3 se plus the O(rho^2) term, (3/2) B3 rho^2, bounded by taking
    |B3| <= 2 B2^2 (hard spheres 0.625, LJ atoms near T = 2 about 1.1): a relative allowance of
    1.5 |B2| rho."""
    bond = float(bond)
    if potential == "lj":
        def pair_u(r2):
            ir6 = 1.0 / r2 ** 3
            return 4.0 * ir6 * (ir6 - 1.0)
        c6 = 4.0
    else:
        eps, alpha, r0 = (float(a) for a in args)
        def pair_u(r2):
            e = np.exp(-alpha * (np.sqrt(r2) - r0))
            return eps * e * (e - 2.0)
        c6 = 0.0
    good = True
    with h5py.File(path, "r") as f:
        T, rho = f["statepoints/temperature"][...], f["statepoints/density"][...]
        mu, dmu = f["results/mu_excess/mean"][...], f["results/mu_excess/stderr"][...]
        for s in range(len(T)):
            b2 = diatomic_b2(bond, T[s], pair_u, tail_c6=c6)
            mu_ref = 2 * b2 * rho[s] * T[s]
            print(f"# T={T[s]} rho={rho[s]}: B2 = {b2:.6f} (quadrature, bond {bond})")
            good &= within(f"T={T[s]} muex", mu[s, 0], dmu[s, 0], mu_ref, 1.5 * abs(b2) * rho[s] * abs(mu_ref))
    return good


def gr_core(path):
    """Interacting LJ: g(r) is ~0 inside r < 0.8 sigma at every state point."""
    with h5py.File(path, "r") as f:
        r, g = f["results/rdf/r"][...], f["results/rdf/g"][...]
    core = r < 0.8
    if np.any(g[..., core] > 1e-3):
        fail(f"g(r) inside r < 0.8 sigma reaches {g[..., core].max():.3g}")
    print(f"# g(r) < 1e-3 inside 0.8 sigma; peak {g.max():.3f}")


def ideal(path):
    """Ideal gas: g(r) = 1 within Poisson counting error in every bin; P = rho T; U = 0; C_V/N = 3/2."""
    with h5py.File(path, "r") as f:
        g, counts = f["results/rdf/g"][...], f["results/rdf/counts"][...]
        T, rho = f["statepoints/temperature"][...], f["statepoints/density"][...]
        U, P = f["results/energy/mean"][...], f["results/pressure/mean"][...]
    sigma = 1 / np.sqrt(np.maximum(counts, 1))
    z = (g - 1) / sigma
    print(f"# ideal gas: max |g-1|/sigma {np.abs(z).max():.2f} over {z.size} bins, "
          f"mean (g-1)/sigma {z.mean():.3f}; U {U}, P - rho T {P - rho * T}")
    if np.abs(z).max() > 5 or abs(z.mean()) > 5 / np.sqrt(z.size):
        fail("g(r) of the ideal gas is not 1")
    if np.any(np.abs(U) > 1e-6) or np.any(np.abs(P - rho * T) > 1e-6 * rho * T):
        fail("ideal gas energy or pressure off")
    with h5py.File(path, "r") as f:
        cv = f["results/heat_capacity/mean"][...]
        mu = f["results/mu_excess/mean"][...]
    if np.any(cv != 1.5):
        fail(f"ideal gas heat capacity {cv}, expected 3/2 exactly")
    if np.any(mu != 0.0):
        fail(f"ideal gas excess chemical potential {mu}, expected 0 exactly")


def agree(a, b, quantities="energy,pressure"):
    """Two independent runs of the same state points: the pooled quantities (U and P unless named,
    comma separated) within 3 combined errors."""
    good = True
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        for q in quantities.split(","):
            ma, ea = fa[f"results/{q}/mean"][...], fa[f"results/{q}/stderr"][...]
            mb, eb = fb[f"results/{q}/mean"][...], fb[f"results/{q}/stderr"][...]
            for s in range(len(ma)):
                good &= within(f"{q}[{s}] {a} vs {b}", ma[s], math.hypot(ea[s], eb[s]), mb[s], 0.0)
    return good


def cv_slope(path, shift="0"):
    """Three temperatures at one density: C_V/N - 3/2 at the middle one from fluctuations against
    the central difference of U(T), within 3 combined standard errors (curvature error O(dT^2) is
    far below them). shift moves the fluctuation value, for the negative control."""
    with h5py.File(path, "r") as f:
        T = f["statepoints/temperature"][...]
        U, dU = f["results/energy/mean"][...], f["results/energy/stderr"][...]
        C, dC = f["results/heat_capacity/mean"][...], f["results/heat_capacity/stderr"][...]
    if len(T) != 3:
        fail("expected three temperatures")
    slope = (U[2] - U[0]) / (T[2] - T[0])
    dslope = math.hypot(dU[2], dU[0]) / (T[2] - T[0])
    good = within(f"C_V/N - 3/2 at T={T[1]} (fluctuations) vs dU/dT", C[1] - 1.5 + float(shift),
                  math.hypot(dC[1], dslope), slope, 0.0)
    return good


def units_equivalent(reduced, real, sigma_nm, eps_k, mass):
    """The same system in reduced and real units: identical decisions, and every real-unit result
    equal to the reduced one times its unit, to rounding (1e-9 relative)."""
    sigma_nm, eps_k, mass = float(sigma_nm), float(eps_k), float(mass)
    R, NA = 0.008314462618, 6.02214076e23          # kJ/mol/K; 1/mol
    eps = eps_k * R                                  # kJ/mol
    bar = 1e3 / NA / 1e-27 / 1e5                     # kJ/mol/nm^3 in bar, from SI
    with h5py.File(reduced, "r") as a, h5py.File(real, "r") as b:
        if a["chains/acceptance"][...].tobytes() != b["chains/acceptance"][...].tobytes():
            fail("acceptance differs: the two runs did not make the same decisions")
        checks = [("results/energy/mean", eps), ("results/pressure/mean", eps / sigma_nm**3 * bar),
                  ("results/mu_excess/mean", eps), ("statepoints/temperature", eps_k),
                  ("statepoints/density", sigma_nm**-3), ("results/rdf/r", sigma_nm),
                  ("chains/energy", eps), ("results/heat_capacity/mean", 1.0)]
        for name, unit in checks:
            x, y = a[name][...] * unit, b[name][...]
            rel = np.max(np.abs(x - y) / np.maximum(np.abs(y), 1e-300))
            print(f"# {name}: reduced x unit vs real, max relative difference {rel:.2e} [{b[name].attrs['unit']}]")
            if not rel < 1e-9:
                fail(f"{name} differs between the unit systems")
        g = np.max(np.abs(a["results/rdf/g"][...] - b["results/rdf/g"][...]))
        if g > 1e-3:
            fail(f"g(r) differs by {g}")
        kgm3 = b["statepoints/density"][...] * mass * 1e-3 / NA / 1e-27
        if np.max(np.abs(b["statepoints/mass_density"][...] / kgm3 - 1)) > 1e-9:
            fail("mass density in kg/m^3 is off")
        units = b["parameters"].attrs["units"]
        units = units.decode() if isinstance(units, bytes) else str(units)
        if "k_B = R = 0.008314462618 kJ/mol/K" not in units:
            fail("the output does not state the Boltzmann constant")
        print(f"# argon: {b['statepoints/mass_density'][0]:.2f} kg/m^3 at {b['statepoints/temperature'][0]} K")


def value(path, name):
    """Print one number of the file (a scalar or the first element) for a shell test to use."""
    with h5py.File(path, "r") as f:
        print(repr(float(np.ravel(f[name][...])[0])))


def npt_nvt(nvt, npt):
    """An NPT run at the pressure an NVT run found returns the NVT density: |rho_npt - rho_nvt| <=
    3 sqrt(se_rho^2 + (se_P / (dP/drho))^2), the NVT pressure's error carried through the slope
    dP/drho = 1 / (rho kappa_T), kappa_T = var(V) / (kT <V>) from the NPT volume fluctuations.
    The NPT virial pressure must also average to the imposed pressure within 3 se."""
    with h5py.File(nvt, "r") as a, h5py.File(npt, "r") as b:
        rho0 = a["statepoints/density"][0]
        p_nvt, se_p = a["results/pressure/mean"][0], a["results/pressure/stderr"][0]
        p_set = b["statepoints/pressure"][0]
        kT = b["statepoints/temperature"][0]
        rho, se_rho = b["results/density/mean"][0], b["results/density/stderr"][0]
        p_vir, se_vir = b["results/pressure/mean"][0], b["results/pressure/stderr"][0]
        # chains/density counts molecules (atoms): so does the volume's N
        n = b["molecules/count"][...].sum() if "molecules" in b else nparticles(b)
        vol = n / b["chains/density"][...]
        kappa = np.mean(np.var(vol, axis=1, ddof=1) / (kT * np.mean(vol, axis=1)))
        slope = 1.0 / (rho * kappa)
        print(f"# imposed P {p_set:.5f} (NVT {p_nvt:.5f} +- {se_p:.5f}); dP/drho {slope:.3f} from "
              f"kappa_T {kappa:.4f}; volume acceptance {b['results/volume_acceptance/mean'][0]:.3f}")
        if abs(p_set - p_nvt) > 1e-6 * abs(p_nvt):
            fail("the NPT run was not given the NVT pressure")
        good = within("NPT density vs NVT", rho, math.hypot(se_rho, se_p / slope), rho0, 0)
        good &= within("NPT virial pressure vs imposed", p_vir, se_vir, p_set, 0)
        acc = b["chains/volume_acceptance"][...]
        if not np.all((acc > 0.1) & (acc < 0.9)):
            fail(f"volume acceptance {acc} not adapted")
    return good


def mixture_pure(mix, pure, pair_names="A-A,A-B,B-B"):
    """A mixture of identical species is the pure fluid: U and P within 3 combined standard
    errors, and g(r) of every species pair within 3 sigma of the pure g(r) at every bin with
    g > 0.2, sigma the counting error of both histograms (g / sqrt(counts)) inflated by the square
    root of the statistical inefficiency blocking found for the energy (samples are correlated)."""
    good = True
    with h5py.File(mix, "r") as a, h5py.File(pure, "r") as b:
        for q in ("energy", "pressure"):
            ma, sa = a[f"results/{q}/mean"][0], a[f"results/{q}/stderr"][0]
            mb, sb = b[f"results/{q}/mean"][0], b[f"results/{q}/stderr"][0]
            good &= within(f"mixture {q} vs pure", ma, math.hypot(sa, sb), mb, 0)
        if "results/mu_excess" in a and "results/mu_excess" in b:
            mb, sb = b["results/mu_excess/mean"][0, 0], b["results/mu_excess/stderr"][0, 0]
            for k, sp in enumerate(a["species/name"][...]):
                ma, sa = a["results/mu_excess/mean"][0, k], a["results/mu_excess/stderr"][0, k]
                good &= within(f"mixture mu_ex of {sp.decode() if isinstance(sp, bytes) else sp} vs pure",
                               ma, math.hypot(sa, sb), mb, 0)
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in a["results/rdf/pairs"][...]]
        ga, ca = a["results/rdf/g"][0], a["results/rdf/counts"][0]
        gb, cb = b["results/rdf/g"][0, 0], b["results/rdf/counts"][0, 0]
        s = max(a["results/energy/statistical_inefficiency"][0], b["results/energy/statistical_inefficiency"][0], 1.0)
        for k, name in enumerate(names):
            use = (gb > 0.2) & (ca[k] > 0) & (cb > 0)
            sig = np.sqrt(s) * np.sqrt(ga[k][use] ** 2 / ca[k][use] + gb[use] ** 2 / cb[use])
            z = np.abs(ga[k][use] - gb[use]) / sig
            worst = int(np.argmax(z))
            ok = z.max() <= 3.0
            print(f"# g_{name} vs pure over {use.sum()} bins: max |diff| / sigma = {z.max():.2f} "
                  f"(at r = {a['results/rdf/r'][...][use][worst]:.3f}; s = {s:.1f}): {'ok' if ok else 'FAIL'}")
            good &= ok
        if names != pair_names.split(","):
            fail(f"pair names {names}, expected {pair_names}")
    return good


def npt_ideal(path):
    """Ideal gas in NPT: with the weight V^N exp(-beta P V), <N/V> = beta P and <V> = (N+1)/(beta P)."""
    with h5py.File(path, "r") as f:
        kT, p = f["statepoints/temperature"][0], f["statepoints/pressure"][0]
        n = nparticles(f)
        rho, se_rho = f["results/density/mean"][0], f["results/density/stderr"][0]
        vol = (n / f["chains/density"][...]).mean(axis=1)  # per replica
        v, se_v = vol.mean(), vol.std(ddof=1) / math.sqrt(len(vol))
        good = within("ideal <N/V>", rho, se_rho, p / kT, 0)
        good &= within("ideal <V>", v, se_v, (n + 1) * kT / p, 0)
    return good


def moved_volume(path, start_density):
    """Every chain of an NPT run accepted some of its production volume moves, not all, and ended in
    another box than the one it started in at START_DENSITY."""
    with h5py.File(path, "r") as f:
        acc = np.ravel(f["chains/volume_acceptance"][...])
        start = (nparticles(f) / float(start_density)) ** (1 / 3)
        edges = final_box(f)
    if not np.all((acc > 0) & (acc < 1)):
        fail(f"volume acceptance {acc}: expected every chain's between 0 and 1")
    if np.any(np.abs(edges / start - 1) < 1e-6):
        fail(f"final box edges {edges}: a chain still has its starting edge {start}")
    print(f"# volume acceptance {acc.min():.3f} to {acc.max():.3f}; box edges {start:.4f} -> "
          f"{edges.min():.4f} to {edges.max():.4f}")


def wall(path, radius, strength):
    """Non-interacting particles in the spherical wall E = k (r - R)^2 / 2 beyond R sample
    p(r) ~ r^2 exp(-E(r)/kT): the radii of the final positions (independent chains) pass a
    Kolmogorov-Smirnov test against its CDF at the 0.1% level (D < 1.949/sqrt(n)), and the pooled
    energy per particle is the Boltzmann average of E within 3 standard errors."""
    R, k = float(radius), float(strength)
    with h5py.File(path, "r") as f:
        kT = f["statepoints/temperature"][0]
        pos = final(f, "position").reshape(-1, 3)
        u, se = f["results/energy/mean"][0], f["results/energy/stderr"][0]
    r = np.sort(np.linalg.norm(pos, axis=1))
    grid = np.linspace(0.0, R + 15.0 * math.sqrt(kT / k), 400001)
    e = np.where(grid > R, 0.5 * k * (grid - R) ** 2, 0.0)
    w = grid ** 2 * np.exp(-e / kT)
    cdf = np.concatenate(([0.0], np.cumsum(0.5 * (w[1:] + w[:-1]) * np.diff(grid))))
    mean_e = np.sum(0.5 * (w[1:] * e[1:] + w[:-1] * e[:-1]) * np.diff(grid)) / cdf[-1]
    cdf /= cdf[-1]
    model = np.interp(r, grid, cdf)
    n = len(r)
    d = max(np.max(np.arange(1, n + 1) / n - model), np.max(model - np.arange(0, n) / n))
    crit = 1.949 / math.sqrt(n)
    print(f"# KS over {n} radii against R = {R}, k = {k}: D = {d:.4f}, critical {crit:.4f}: {'ok' if d < crit else 'FAIL'}")
    good = d < crit
    good &= within("wall energy per particle", u, se, mean_e, 0.0)
    return good


def rigid_layout(path):
    """Molecular output: /molecules tables, final centres [C, M, 3] and unit quaternions [C, M, 4]
    that rebuild every final site (centre + R(q) body, folded into the box when periodic) to
    1e-9, the RDF's last row the centres, finite energies."""
    with h5py.File(path, "r") as f:
        C = f["chains/statepoint"].shape[0]
        mtype, site_mol = f["molecules/molecule_type"][...], f["molecules/site_molecule"][...]
        body, nsites = f["molecules/site_body"][...], f["molecules/nsites"][...]
        centres, quats = final(f, "centre"), final(f, "orientation")
        sites, box = final(f, "position"), final_box(f)
        pairs = [p.decode() if isinstance(p, bytes) else str(p) for p in f["results/rdf/pairs"][...]]
        M = len(mtype)
        if centres.shape != (C, M, 3) or quats.shape != (C, M, 4) or sites.shape != (C, len(site_mol), 3):
            fail(f"shapes: centres {centres.shape}, orientations {quats.shape}, sites {sites.shape}")
        if pairs[-1] != "centres" or not np.all(np.isfinite(f["chains/energy"][...])):
            fail(f"rdf rows {pairs}, or non-finite energies")
        if np.max(np.abs(np.linalg.norm(quats, axis=2) - 1)) > 1e-12:
            fail("orientations are not unit quaternions")
    worst = 0.0
    for c in range(C):
        k = np.zeros(M, dtype=int)
        for i, m in enumerate(site_mol):
            w, x, y, z = quats[c, m]
            R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                          [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                          [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
            want = centres[c, m] + R @ body[mtype[m], k[m]]
            k[m] += 1
            d = sites[c, i] - want
            if box[c] > 0:
                d -= box[c] * np.round(d / box[c])
            worst = max(worst, np.max(np.abs(d)))
    print(f"# {C} chains, {M} molecules ({list(nsites)} sites per type): sites rebuilt from centres and "
          f"orientations to {worst:.2g}")
    sys.exit(0 if worst < 1e-9 else 1)

def write_start(path, chain, out):
    """Write chain CHAIN's final centres and orientations as a start_file (type x y z qw qx qy qz,
    in [molecules] order, %.17g so that the text round-trips), with a comment and a blank line."""
    c = int(chain)
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["molecules/name"][...]]
        mtype = f["molecules/molecule_type"][...]
        centres, quats = final(f, "centre")[c], final(f, "orientation")[c]
    with open(out, "w") as s:
        s.write(f"# chain {c} of {path}: type x y z qw qx qy qz\n\n")
        for m, t in enumerate(mtype):
            s.write(" ".join([names[t]] + [f"{v:.17g}" for v in (*centres[m], *quats[m])]) + "\n")
    print(f"# wrote {len(mtype)} molecules of chain {c} to {out}")


def started_from(path, start, ref, chain, tol):
    """A run started from START with steps too small to move anything (1e-12) still holds START in
    every chain at the end (centres and quaternions to TOL), and its energy at every sample is
    chain CHAIN's final energy in REF, the run START was written from (to TOL, kJ/mol per site)."""
    tol = float(tol)
    want = np.loadtxt(start, usecols=range(1, 8), ndmin=2)
    with h5py.File(ref, "r") as f:
        u_ref = f["chains/energy"][int(chain), -1]
    with h5py.File(path, "r") as f:
        centres, quats, energy = final(f, "centre"), final(f, "orientation"), f["chains/energy"][...]
    d_pos = np.max(np.abs(centres - want[None, :, :3]))
    d_q = np.max(np.abs(quats - want[None, :, 3:]))
    d_u = np.max(np.abs(energy - u_ref))
    print(f"# {centres.shape[0]} chains x {want.shape[0]} molecules: centres within {d_pos:.2g}, quaternions "
          f"within {d_q:.2g}; energy {energy.ravel()[0]:.12f} vs {u_ref:.12f} (worst {d_u:.2g})")
    sys.exit(0 if max(d_pos, d_q, d_u) < tol else 1)


def h5md(path, every):
    """The H5MD layout of the trajectory (snapshot_every = EVERY samples): /h5md version 1.1 with
    author and creator; one particles group per chain, in chain order, with the planned frames at
    the planned sweeps (shared step and time), cubic box edges as diagonal 3x3 matrices, species
    that match /species/count; the last frame equal to the end state in the run's last checkpoint
    (PATH.ckpt, an independent record of it); /observables equal to the /chains series."""
    K = int(every)
    with h5py.File(path, "r") as f, h5py.File(path + ".ckpt", "r") as ck:
        h = f["h5md"]
        if list(h.attrs["version"]) != [1, 1] or "name" not in h["author"].attrs or h["creator"].attrs["name"] not in ("mcens", b"mcens"):
            fail("/h5md lacks version 1.1, author name or creator name mcens")
        text = f["parameters"][()].decode()
        cfg = {k.strip(): v.strip() for k, _, v in (l.partition("=") for l in text.splitlines() if "=" in l)}
        eq, prod, every_sw = int(cfg["equilibration"]), int(cfg["production"]), int(cfg["sample_every"])
        S = prod // every_sw
        regular = (S - 1) // K if K > 0 else 0
        want_steps = [eq + (j + 1) * K * every_sw for j in range(regular)] + [eq + S * every_sw]
        groups = list(f["particles"])
        C = f["chains/statepoint"].shape[0]
        if groups != [f"chain_{c:06d}" for c in range(C)]:
            fail(f"particles groups {groups[:3]}..., expected chain_000000.. for {C} chains")
        counts = f["species/count"][...]
        want_species = np.repeat(np.arange(len(counts)), counts) if "molecules" not in f else None
        for c, g in enumerate(groups):
            e = f["particles"][g]
            pos, step = e["position/value"], e["position/step"][...]
            if list(step) != want_steps or list(e["position/time"][...]) != [float(x) for x in want_steps]:
                fail(f"{g}: steps {list(step)}, expected {want_steps}")
            if e.attrs["statepoint"] != f["chains/statepoint"][c] or e.attrs["replica"] != f["chains/replica"][c]:
                fail(f"{g}: statepoint/replica attributes differ from /chains")
            if want_species is not None and not np.array_equal(e["species"][...], want_species):
                fail(f"{g}: species {e['species'][...][:8]}... do not match /species/count")
            if "edges" in e["box"]:
                edges = e["box/edges/value"][...]
                if edges.shape != (len(want_steps), 3, 3) or np.any(edges != np.eye(3) * edges[:, :1, :1]):
                    fail(f"{g}: box edges {edges.shape} are not diagonal cubic boxes")
                if edges[-1, 0, 0] != ck["chains/box_len"][c]:
                    fail(f"{g}: last box {edges[-1, 0, 0]} differs from the checkpoint's {ck['chains/box_len'][c]}")
            last = np.stack([ck[f"chains/{a}"][c] for a in "xyz"], axis=1)
            if not np.array_equal(pos[-1], last):
                fail(f"{g}: the last frame differs from the checkpoint's positions (max {np.max(np.abs(pos[-1] - last))})")
            frames = pos[...]
            if len(frames) > 1 and np.any(np.abs(np.diff(frames, axis=0)).max(axis=(1, 2)) == 0):
                fail(f"{g}: two frames are identical (a frame was not written)")
        for name in f["observables"]:
            o = f["observables"][name]
            if not np.array_equal(o["value"][...].T, f[f"chains/{name}"][...]):
                fail(f"/observables/{name} is not the /chains series")
            if list(o["step"][...]) != [eq + (i + 1) * every_sw for i in range(S)]:
                fail(f"/observables/{name} steps wrong")
        print(f"# {C} chains x {len(want_steps)} frames at sweeps {want_steps[:4]}...; last frames equal the "
              f"checkpoint; observables {list(f['observables'])}")


def mdanalysis(path):
    """MDAnalysis (Debian's python3-mdanalysis) reads the file's first particles group, chain 0:
    every frame's positions, box and time equal mcens's datasets."""
    import warnings
    warnings.simplefilter("ignore")
    import MDAnalysis
    with h5py.File(path, "r") as f:
        g = f["particles/chain_000000"]
        pos, steps = g["position/value"][...], g["position/step"][...]
        edges = g["box/edges/value"][...] if "edges" in g["box"] else None
        unit = g["position/value"].attrs.get("unit")
    unit = unit.decode() if isinstance(unit, bytes) else unit
    u = MDAnalysis.Universe.empty(pos.shape[1], trajectory=True)
    # convert_units=False: mcens's time is the sweep count, which has no unit to convert; the
    # length unit is still parsed (a fixed-length byte string was refused here, issue 48)
    u.load_new(path, format="H5MD", convert_units=False)
    if u.trajectory.units.get("length") != unit:
        fail(f"MDAnalysis reads the length unit as {u.trajectory.units.get('length')!r}, the file has {unit!r}")
    if u.trajectory.n_frames != len(pos):
        fail(f"MDAnalysis sees {u.trajectory.n_frames} frames, the file has {len(pos)}")
    for ts in u.trajectory:
        if not np.allclose(ts.positions, pos[ts.frame], rtol=0, atol=1e-5 * max(1.0, np.abs(pos).max())):
            fail(f"frame {ts.frame}: MDAnalysis positions differ")
        if ts.time != steps[ts.frame] or ts.data["step"] != steps[ts.frame]:
            fail(f"frame {ts.frame}: MDAnalysis time {ts.time}, step {ts.data['step']}, file {steps[ts.frame]}")
        if edges is not None and not np.allclose(ts.dimensions, [*np.diag(edges[ts.frame]), 90, 90, 90], rtol=1e-6):
            fail(f"frame {ts.frame}: MDAnalysis box {ts.dimensions}, file {np.diag(edges[ts.frame])}")
    print(f"# MDAnalysis {MDAnalysis.__version__} read {len(pos)} frames of {pos.shape[1]} particles (chain 0): "
          f"positions, box and time as in the file, length unit {unit or 'none (reduced units)'}")


if __name__ == "__main__":
    run({"h5md": h5md, "mdanalysis": mdanalysis, "layout": layout, "same": same, "same_results": same_results, "differ": differ, "parameters": parameters_text, "paths": paths, "set_gpu_shape": set_gpu_shape, "flip_bit": flip_bit, "segments": segments, "gpu_shape": gpu_shape, "eos": eos,
     "dilute": dilute, "gr_core": gr_core, "ideal": ideal, "agree": agree, "cv_slope": cv_slope, "units": units_equivalent,
     "value": value, "mixture_pure": mixture_pure, "dilute_morse": dilute_morse, "npt_nvt": npt_nvt, "npt_ideal": npt_ideal,
     "wall": wall, "moved_volume": moved_volume, "rigid_layout": rigid_layout, "widom_diatomic": widom_diatomic,
     "write_start": write_start, "started_from": started_from}, sys.argv)
