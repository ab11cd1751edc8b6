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
  spce_check.py dsf H5 NIST_FILE TSV CONFIG  mcens --energy's Coulomb terms of NIST configuration CONFIG
                                      under coulomb = dsf (H5's /dsf attributes) equal this script's
                                      own sum from NIST_FILE's sites to 1e-8, and their total is within
                                      1% of NIST's Ewald sum (TSV): the default damping's accuracy

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


K_E = 138.935457  # kJ/mol nm / e^2, mcens's MC_COULOMB_KJMOL_NM
CHARGES = np.array([-0.8476, 0.4238, 0.4238])


def dsf_terms(xyz, box, alpha, rc):
    """The damped shifted force's terms (Fennell and Gezelter 2006; excluded pairs as LAMMPS's coul/dsf)
    of SPC/E molecules with sites xyz [3 M][3] (nm) in a cubic box, in kJ/mol: the pair term between
    sites of different molecules within rc, the self term, and the intramolecular exclusions."""
    from math import erfc, exp, pi, sqrt
    slope = erfc(alpha * rc) / rc ** 2 + 2.0 * alpha / sqrt(pi) * exp(-alpha ** 2 * rc ** 2) / rc

    def u(r):
        return erfc(alpha * r) / r - erfc(alpha * rc) / rc + slope * (r - rc) if r < rc else 0.0

    q = np.tile(CHARGES, len(xyz) // 3)
    mol = np.repeat(np.arange(len(xyz) // 3), 3)
    real = intra = 0.0
    for i in range(len(xyz)):
        d = xyz[i + 1:] - xyz[i]
        d -= box * np.round(d / box)
        r = np.sqrt((d * d).sum(axis=1))
        for j, rij in enumerate(r, start=i + 1):
            if mol[j] != mol[i]:
                real += q[i] * q[j] * u(rij)
            else:
                intra += q[i] * q[j] * (u(rij) - 1.0 / rij)
    self_term = -(erfc(alpha * rc) / (2.0 * rc) + alpha / sqrt(pi)) * (q * q).sum()
    return {"coulomb_real": K_E * real, "coulomb_self": K_E * self_term, "coulomb_intramolecular": K_E * intra}


def dsf(path, nist_file, tsv, config):
    import h5py
    lines = open(nist_file).read().split("\n")
    box = float(lines[0].split()[0]) / 10.0
    molecules = int(lines[1])
    xyz = np.array([[float(v) for v in line.split()[1:4]] for line in lines[2:2 + 3 * molecules]]) / 10.0
    with h5py.File(path, "r") as f:
        alpha, rc = float(f["dsf"].attrs["alpha"]), float(f["dsf"].attrs["coulomb_cutoff"])
        got = {name: float(f["energy"][name][0]) for name in ("coulomb_real", "coulomb_self", "coulomb_intramolecular")}
    ref = dsf_terms(xyz, box, alpha, rc)
    bad = []
    for name, value in ref.items():
        rel = abs(got[name] - value) / abs(value)
        print("%-24s %18.10g kJ/mol, this script's %18.10g, relative difference %.2g" % (name, got[name], value, rel))
        if rel > 1e-8:
            bad.append(name)
    checkrun.check(not bad, "beyond 1e-8 of this script's sum: %s" % ", ".join(bad))
    rows = [line.split("\t") for line in open(tsv) if line.strip() and not line.startswith("#")]
    row = dict(zip(rows[0], next(r for r in rows[1:] if r[0] == config)))
    ewald = sum(float(row[c]) for c in ("E_real", "E_fourier", "E_self", "E_intra")) * R_KJ_MOL_K
    coulomb = sum(got.values())
    rel = (coulomb - ewald) / abs(ewald)
    print("DSF (alpha %g /nm, cutoff %g nm) Coulomb energy %.6g kJ/mol, NIST's Ewald sum %.6g: %+.3g%%"
          % (alpha, rc, coulomb, ewald, 100 * rel))
    checkrun.check(abs(rel) < 0.01, "the DSF Coulomb energy is more than 1% from the Ewald sum's")


def volume(path):
    import h5py
    with h5py.File(path, "r") as f:
        acc = np.ravel(f["chains/volume_acceptance"][...])
    print("volume acceptance %s" % acc)
    checkrun.check(np.all((acc > 0) & (acc < 1)), "expected every chain's between 0 and 1")


if __name__ == "__main__":
    checkrun.run({"start": start, "total": total, "energy": energy, "same_total": same_total, "volume": volume,
                  "dsf": dsf},
                 sys.argv)
