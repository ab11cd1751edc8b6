#!/usr/bin/env python3
"""Checks for [system] start = h5 and xyz (t/start_h5.sh, t/start_xyz.sh). Each subcommand prints '# ' diagnostics and exits
0 when its check holds, 1 when it does not, 2 when the checker itself breaks (so a negative control
expecting 1 cannot pass on a crash)."""
import sys

import h5py
import numpy as np

from checkrun import fail, run


def names(ds):
    return [n.decode() if isinstance(n, bytes) else str(n) for n in ds[...]]


def last_frame(f, c):
    """Chain c's last frame: (sites [N, 3], centres [M, 3] or None, quaternions [M, 4] or None, box
    edge or 0), from the H5MD /particles group."""
    g = f[f"particles/chain_{c:06d}"]
    sites = g["position/value"][-1]
    centres = g["centre/value"][-1] if "centre" in g else None
    quats = g["orientation/value"][-1] if "orientation" in g else None
    box = float(np.ravel(g["box/edges/value"][-1])[0]) if "edges" in g["box"] else 0.0
    return sites, centres, quats, box


def frames_equal(new, ref, chain, tol, scale="1"):
    """Every chain of NEW holds at its end chain CHAIN of REF's last frame (chain c of REF when CHAIN
    is -1), its points scaled by SCALE ('box': the ratio of the two boxes) and folded into the box,
    to TOL (sites; for molecules also centres and quaternions): a run with steps of 1e-12 that
    started from REF never moved away from it."""
    chain, tol = int(chain), float(tol)
    worst = 0.0
    with h5py.File(new, "r") as fn, h5py.File(ref, "r") as fr:
        C = fn["chains/energy"].shape[0]
        for c in range(C):
            s_new, c_new, q_new, box_new = last_frame(fn, c)
            s_ref, c_ref, q_ref, box_ref = last_frame(fr, c if chain < 0 else chain)
            k = box_new / box_ref if scale == "box" and box_ref > 0 else float(scale)
            if c_ref is not None:  # molecules: centres scale, orientations and site offsets stay
                want = c_ref * k
                d = c_new - (want - box_new * np.floor(want / box_new) if box_new > 0 else want)
                if box_new > 0:
                    d -= box_new * np.round(d / box_new)
                # q and -q are one rotation (a start = xyz fit takes w >= 0)
                dq = np.minimum(np.abs(q_new - q_ref).max(axis=1), np.abs(q_new + q_ref).max(axis=1))
                worst = max(worst, np.max(np.abs(d)), np.max(dq))
                continue
            want = s_ref * k
            d = s_new - want
            if box_new > 0:
                d -= box_new * np.round(d / box_new)
            worst = max(worst, np.max(np.abs(d)))
    print(f"# {C} chains of {new} at the last frame of {ref} (chain {chain}, scale {scale}) to {worst:.3g}")
    sys.exit(0 if worst < tol else 1)


def energy_from(new, ref, chain, tol):
    """Every sample's energy of every chain of NEW is the final energy of its source chain in REF
    (chain c, or CHAIN for all when CHAIN >= 0) to TOL: the start is the file's last frame."""
    chain, tol = int(chain), float(tol)
    with h5py.File(new, "r") as fn, h5py.File(ref, "r") as fr:
        u_new, u_ref = fn["chains/energy"][...], fr["chains/energy"][:, -1]
    want = u_ref[:, None] if chain < 0 else np.full((u_new.shape[0], 1), u_ref[chain])
    if chain < 0 and u_ref.shape[0] != u_new.shape[0]:
        fail(f"{new} has {u_new.shape[0]} chains, {ref} {u_ref.shape[0]}")
    d = np.max(np.abs(u_new - want))
    print(f"# {u_new.shape[0]} chains x {u_new.shape[1]} samples: energies {u_new[:, 0]} vs the file's "
          f"{want.ravel()} (worst {d:.3g})")
    sys.exit(0 if d < tol else 1)


def edit(path, what, *args):
    """Damage a copy of an output in place for the negative tests: 'species NAME' renames species 0,
    'drop_particles' removes /particles."""
    with h5py.File(path, "r+") as f:
        if what == "species":
            data = f["species/name"][...]
            data[0] = args[0].encode()
            f["species/name"][...] = data
        elif what == "drop_particles":
            del f["particles"]
        else:
            raise SystemExit(2)
    print(f"# {path}: {what} {' '.join(args)}")


def same_dataset(a, b, name):
    """NAME bit-identical in A and B (rank invariance)."""
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        x, y = fa[name][...], fb[name][...]
    if x.shape != y.shape or x.tobytes() != y.tobytes():
        fail(f"{name} differs between {a} and {b}")
    print(f"# {name} bit-identical in {a} and {b} ({x.shape})")


def finite(path, name):
    """NAME has only finite values (a compressed start must not give NaN)."""
    with h5py.File(path, "r") as f:
        x = f[name][...]
    print(f"# {name}: min {np.min(x):.6g}, max {np.max(x):.6g}")
    sys.exit(0 if np.all(np.isfinite(x)) else 1)


def _site_index(site_mol):
    """(molecule, site within it) of each site."""
    k = {}
    for m in site_mol:
        k[m] = k.get(m, -1) + 1
        yield m, k[m]


if __name__ == "__main__":
    run({"frames_equal": frames_equal, "energy_from": energy_from, "edit": edit, "same": same_dataset,
         "finite": finite}, sys.argv)
