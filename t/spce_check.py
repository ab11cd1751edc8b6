#!/usr/bin/env python3
"""Charged sites (t/charges.sh): NIST's SPC/E water reference configurations as an mcens start file,
and the energy mcens reports for them against the published total.

  spce_check.py start NIST_FILE OUT   the configuration as `water x y z qw qx qy qz` lines (nm), the
                                      body frame that of GEOMETRY below recentred on its centre of mass
  spce_check.py volume H5             every chain of an NPT run accepted some of its volume moves, not all
  spce_check.py total H5 SITES KELVIN the first sample's energy per site times SITES, in K, equals
                                      KELVIN (FEASST's 11-digit recomputation of NIST's total) to 1e-6
  spce_check.py energy H5 TSV CONFIG  mcens --energy's /energy terms of NIST configuration CONFIG, in K,
                                      equal NIST's published components (TSV, six digits) to 1e-5, and
                                      /energy/total their sum
  spce_check.py same_total H5 RUN SITES  /energy/total equals the engine's first sample (RUN's
                                      /chains/energy times SITES) to 1e-10

Exit status by t/checkrun.py's convention: 0 holds, 1 fails, 2 the checker broke."""
import sys

import numpy as np

import checkrun

# SPC/E: O-H 0.1 nm, H-O-H 109.47 degrees (NIST's geometry: its files hold it to 1e-9), masses of
# examples/spce.ini; the same numbers are the geometry and masses of t/charges.sh's config
ANGLE = np.radians(109.47)
GEOMETRY = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, 0.0], [0.1 * np.cos(ANGLE), 0.1 * np.sin(ANGLE), 0.0]])
MASSES = np.array([15.9994, 1.008, 1.008])
R_KJ_MOL_K = 0.008314462618  # kJ/mol per K (CODATA 2018)


def body_frame():
    return GEOMETRY - MASSES @ GEOMETRY / MASSES.sum()


def quaternion(rot):
    """Unit quaternion (w, x, y, z) of a rotation matrix."""
    w = np.sqrt(max(0.0, 1.0 + np.trace(rot))) / 2.0
    x = np.copysign(np.sqrt(max(0.0, 1.0 + rot[0, 0] - rot[1, 1] - rot[2, 2])) / 2.0, rot[2, 1] - rot[1, 2])
    y = np.copysign(np.sqrt(max(0.0, 1.0 - rot[0, 0] + rot[1, 1] - rot[2, 2])) / 2.0, rot[0, 2] - rot[2, 0])
    z = np.copysign(np.sqrt(max(0.0, 1.0 - rot[0, 0] - rot[1, 1] + rot[2, 2])) / 2.0, rot[1, 0] - rot[0, 1])
    q = np.array([w, x, y, z])
    return q / np.linalg.norm(q)


def start(nist_file, out):
    lines = open(nist_file).read().split("\n")
    box = float(lines[0].split()[0]) / 10.0  # A to nm
    molecules = int(lines[1])
    xyz = np.array([[float(v) for v in line.split()[1:4]] for line in lines[2:2 + 3 * molecules]]) / 10.0
    body = body_frame()
    with open(out, "w") as f:
        f.write("# NIST SPC/E reference configuration %s, box %.17g nm\n" % (nist_file, box))
        for m in range(molecules):
            sites = xyz[3 * m:3 * m + 3].copy()
            sites[1:] = sites[0] + (sites[1:] - sites[0] - box * np.round((sites[1:] - sites[0]) / box))
            centre = MASSES @ sites / MASSES.sum()
            # Kabsch: the rotation taking the body frame onto the sites about the centre
            u, _, vt = np.linalg.svd((sites - centre).T @ body)
            d = np.sign(np.linalg.det(u @ vt))
            rot = u @ np.diag([1.0, 1.0, d]) @ vt
            placed = centre + body @ rot.T
            if np.abs(placed - sites).max() > 1e-9:
                raise ValueError("molecule %d is not the SPC/E geometry (off by %g nm)"
                                 % (m, np.abs(placed - sites).max()))
            centre = centre - box * np.floor(centre / box)
            f.write("water %s %s\n" % (" ".join("%.17g" % v for v in centre),
                                       " ".join("%.17g" % v for v in quaternion(rot))))


def total(path, sites, kelvin):
    import h5py
    with h5py.File(path, "r") as f:
        per_site = float(f["chains/energy"][0, 0])
    got = per_site * int(sites) / R_KJ_MOL_K
    ref = float(kelvin)
    rel = abs(got - ref) / abs(ref)
    print("energy %.10g K, reference %.10g K, relative difference %.2g (limit 1e-6)" % (got, ref, rel))
    checkrun.check(rel < 1e-6, "the energy differs from the reference")


# NIST's columns and mcens's /energy datasets
NIST_TERMS = {"E_disp": "dispersion", "E_LRC": "tail", "E_real": "coulomb_real", "E_fourier": "coulomb_fourier",
              "E_self": "coulomb_self", "E_intra": "coulomb_intramolecular"}


def energy(path, tsv, config):
    import h5py
    rows = [line.split("\t") for line in open(tsv) if line.strip() and not line.startswith("#")]
    row = dict(zip(rows[0], next(r for r in rows[1:] if r[0] == config)))
    with h5py.File(path, "r") as f:
        got = {name: float(f["energy"][name][0]) / R_KJ_MOL_K for name in NIST_TERMS.values()}
        total = float(f["energy/total"][0]) / R_KJ_MOL_K
    bad = []
    for column, name in NIST_TERMS.items():
        ref = float(row[column])
        rel = abs(got[name] - ref) / abs(ref)
        print("%-24s %16.8g K, NIST %12.6g K, relative difference %.2g" % (name, got[name], ref, rel))
        if rel > 1e-5:
            bad.append(name)
    checkrun.check(not bad, "beyond 1e-5 of NIST: %s" % ", ".join(bad))
    checkrun.check(abs(total - sum(got.values())) < 1e-9 * abs(total), "the total is not the sum of the terms")


def same_total(path, run, sites):
    import h5py
    with h5py.File(path, "r") as f, h5py.File(run, "r") as g:
        total = float(f["energy/total"][0])
        engine = float(g["chains/energy"][0, 0]) * int(sites)
    print("--energy total %.15g, the engine's first sample %.15g" % (total, engine))
    checkrun.check(abs(total - engine) < 1e-10 * abs(engine), "they differ beyond 1e-10")


def volume(path):
    import h5py
    with h5py.File(path, "r") as f:
        acc = np.ravel(f["chains/volume_acceptance"][...])
    print("volume acceptance %s" % acc)
    checkrun.check(np.all((acc > 0) & (acc < 1)), "expected every chain's between 0 and 1")


if __name__ == "__main__":
    checkrun.run({"start": start, "total": total, "energy": energy, "same_total": same_total, "volume": volume},
                 sys.argv)
