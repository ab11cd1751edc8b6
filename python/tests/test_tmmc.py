"""mcens_analyze.tmmc's arithmetic: the ideal gas exactly, and NIST's T = 1.2 ln Pi giving the
coexistence that src/tmmc.c gives for it (t/tmmc.c prints it: ln z_sat -3.03072, rho 0.10034 /
0.56316, P_sat 0.077225, barrier 8.47 at depth 2), and the equal areas that define it."""

import math
import os

import numpy as np
import pytest

from mcens_analyze import tmmc

REF = os.path.join(os.path.dirname(__file__), "..", "..", "t", "refdata", "tmmc", "lj_lnpi_T1.20.tsv")


def ideal(lnz, V, nmax):
    n = np.arange(nmax + 1, dtype=float)
    lp = n * (lnz + math.log(V)) - np.array([math.lgamma(k + 1) for k in n])
    return lp - tmmc.log_sum_exp(lp), n


def test_ideal_gas_isotherm_is_exact():
    lp, n = ideal(-2.0, 100.0, 200)
    for shift in (-1.0, 0.0, 0.5):
        rho, p = tmmc.isotherm_point(lp, n, shift, 100.0, 1.3)
        z = math.exp(-2.0 + shift)
        assert rho == pytest.approx(z, rel=1e-12)        # <N> / V = z
        assert p == pytest.approx(1.3 * z, rel=1e-12)    # P = kT rho
    assert tmmc.coexistence(lp, n, -2.0, 100.0, 1.3) is None  # one peak at every activity


def test_runs_into_n_max_is_nan():
    lp, n = ideal(-2.0, 100.0, 30)  # <N> = 13.5: the top of 30 is within e^-10 of the peak
    assert math.isnan(tmmc.isotherm_point(lp, n, 1.0, 100.0, 1.0)[0])


def nist():
    ref = np.loadtxt(REF, comments=("#", "N"))
    lnz = float(open(REF).read().split("(reduced) = ")[1].split()[0])
    return ref[:, 1], ref[:, 0], lnz, ref[:, 3]


def test_nist_coexistence_as_src_tmmc_c():
    lp, n, lnz, u = nist()
    c = tmmc.coexistence(lp, n, lnz, 512.0, 1.2, u, depth=2.0)
    assert c["lnz"] == pytest.approx(-3.03072, abs=1e-5)
    assert c["rho_vapour"] == pytest.approx(0.10034, abs=1e-5)
    assert c["rho_liquid"] == pytest.approx(0.56316, abs=1e-5)
    assert c["pressure"] == pytest.approx(0.077225, abs=1e-6)
    assert c["barrier"] == pytest.approx(8.47, abs=0.01)
    # equal areas, each ln(1/2), and beta P V = -ln 2 - ln Pi(0) there
    w = tmmc.reweight(lp, n, c["lnz"] - lnz)
    b = c["boundary"]
    assert tmmc.log_sum_exp(w[:b]) == pytest.approx(math.log(0.5), abs=1e-9)
    assert c["pressure"] == pytest.approx(1.2 / 512.0 * (-math.log(2.0) - w[0]), rel=1e-9)
    # the split does not depend on the depth asked of the second peak, nor on where reweighting began
    assert tmmc.coexistence(lp, n, lnz, 512.0, 1.2, u, depth=8.2)["lnz"] == pytest.approx(c["lnz"], abs=1e-9)
    shifted = tmmc.reweight(lp, n, 0.3)
    assert tmmc.coexistence(shifted, n, lnz + 0.3, 512.0, 1.2, u)["lnz"] == pytest.approx(c["lnz"], abs=1e-9)
