"""The statistical inefficiency (stats.inefficiency, pymbar's estimator) of series whose g is known."""

import numpy as np
import pytest

pytest.importorskip("pymbar")
from mcens_analyze.stats import inefficiency  # noqa: E402


def ar1(phi, n, seed):
    """x_t = phi x_{t-1} + sqrt(1 - phi^2) e_t, stationary from the start (x_0 ~ N(0, 1))."""
    rng = np.random.default_rng(seed)
    e = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = e[0]
    s = np.sqrt(1 - phi * phi)
    for t in range(1, n):
        x[t] = phi * x[t - 1] + s * e[t]
    return x


@pytest.mark.parametrize("phi", [0.5, 0.8])
def test_ar1(phi):
    """An AR(1) series has autocorrelation phi^t, so g = 1 + 2 sum phi^t = (1 + phi)/(1 - phi)
    (3 for 0.5, 9 for 0.8); 100000 samples estimate it to a few per cent, 15% allowed."""
    g = inefficiency(ar1(phi, 100000, seed=11))
    exact = (1 + phi) / (1 - phi)
    assert abs(g - exact) <= 0.15 * exact, (g, exact)


def test_white_noise_and_constant():
    """Independent samples: g = 1 (the estimate is clipped at 1); a constant series (an ideal
    gas's energy) has zero variance and counts as independent, g = 1."""
    assert inefficiency(np.random.default_rng(3).standard_normal(20000)) == pytest.approx(1.0, abs=0.1)
    assert inefficiency(np.full(500, 2.5)) == 1.0
