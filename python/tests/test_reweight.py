"""MBAR (reweight.solve_mbar and expectations) on a harmonic solid, whose free energy, U/N and C/N
are known exactly; rotational_dof on the three kinds of rigid body."""

import math
import types

import numpy as np
import pytest

pytest.importorskip("pymbar")
from mcens_analyze.reweight import expectations, rotational_dof, solve_mbar  # noqa: E402

# N particles in harmonic wells: U is a sum of 3N squares, so U ~ Gamma(3N/2, scale kT),
# Z(kT) ~ kT^(3N/2), <U/N> = 3 kT/2 and the potential's part of C/N is 3/2 (Dulong-Petit: C/N = 3
# with the kinetic 3/2).
N = 32
KTS = (1.0, 1.1, 1.2, 1.3)
SAMPLES = 2000


def harmonic_ladder(seed=7):
    """What solve_mbar and expectations read of a reweight.Ladder: U/N samples ordered by state."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.gamma(1.5 * N, kt, SAMPLES) / N for kt in KTS])
    return types.SimpleNamespace(x=x, kt=np.array(KTS), n_k=np.full(len(KTS), SAMPLES),
                                 obs={"energy": x}, key="energy")


def test_mbar_free_energy_difference():
    """Reduced free energies f = -ln Z: f(kT_j) - f(kT_0) = -(3N/2) ln(kT_j/kT_0), within 4 of
    MBAR's own standard errors."""
    mbar = solve_mbar(harmonic_ladder(), N)
    r = mbar.getFreeEnergyDifferences(return_dict=True)
    exact = -1.5 * N * np.log(np.array(KTS) / KTS[0])
    got, err = r["Delta_f"][0], r["dDelta_f"][0]
    assert np.all(err[1:] > 0)
    assert np.all(abs(got - exact) <= 4 * err + 1e-12), (got, exact, err)


@pytest.mark.parametrize("kt", [1.0, 1.15, 1.3])
def test_mbar_energy_and_heat_capacity(kt):
    """At a sampled and an unsampled temperature: U/N = 3 kT/2, C/N = 3/2 + 3/2 = 3, each within 4
    of its standard error (the heat capacity's by the delta method)."""
    lad = harmonic_ladder()
    est = expectations(solve_mbar(lad, N), lad, N, 1.5, kt)
    (u, du), (c, dc) = est["energy"], est["heat_capacity"]
    assert 0 < du < 0.05 and 0 < dc < 0.5
    assert abs(u - 1.5 * kt) <= 4 * du, (u, du)
    assert abs(c - 3.0) <= 4 * dc, (c, dc)


def test_rotational_dof():
    """One site 0, sites on a line 2 (a diatomic), otherwise 3 (water's bent frame)."""
    assert rotational_dof(np.array([[0.0, 0.0, 0.0]])) == 0
    assert rotational_dof(np.array([[0.0, 0, 0], [1.0, 0, 0], [2.5, 0, 0]])) == 2
    theta = math.radians(104.52)
    water = np.array([[0.0, 0, 0], [0.9572, 0, 0], [0.9572 * math.cos(theta), 0.9572 * math.sin(theta), 0]])
    assert rotational_dof(water) == 3
