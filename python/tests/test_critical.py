"""The coexistence fit (critical.fit_coexistence) on synthetic densities drawn from the two laws
with known Tc, rho_c, B, A and beta."""

import numpy as np
import pytest

pytest.importorskip("scipy")
from mcens_analyze.critical import COEX_BETA, coex_model, fit_coexistence  # noqa: E402
from mcens_analyze.errors import AnalyzeError  # noqa: E402

TRUTH = (1.31, 0.316, 1.10, -0.19)  # Tc, rho_c, B, A: near the LJ fluid's (reduced units)
T = np.arange(0.85, 1.2501, 0.05)
SL, SV = 0.002, 0.001  # the liquid's density scatters more than the vapour's


def synthetic(seed=None):
    """(t, rho_l, s_l, rho_v, s_v) of the laws at beta = COEX_BETA, exact or with Gaussian noise of
    the stated errors."""
    rl, rv = coex_model(TRUTH, T)
    sl, sv = np.full(len(T), SL), np.full(len(T), SV)
    if seed is not None:
        rng = np.random.default_rng(seed)
        rl, rv = rl + SL * rng.standard_normal(len(T)), rv + SV * rng.standard_normal(len(T))
    return T, rl, sl, rv, sv


def test_exact_data():
    """Data on the laws: the fit returns the truth (to the optimiser's tolerance) with chi^2 ~ 0."""
    fit = fit_coexistence(*synthetic())
    assert fit["p"] == pytest.approx(TRUTH, rel=1e-6)
    assert fit["chi2"]["joint"][0] < 1e-8
    assert fit["chi2"]["joint"][1] == 2 * len(T) - 4
    assert fit["beta"] == COEX_BETA and not fit["above"].any()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_noisy_data(seed):
    """Data with noise of the stated errors: each parameter within 4 of its error of the truth."""
    fit = fit_coexistence(*synthetic(seed))
    pull = (fit["p"] - np.array(TRUTH)) / fit["err"]
    assert np.all(abs(pull) < 4), pull
    # Tc from 9 points up to 1.25 is known to about a per cent
    assert 0 < fit["err"][0] < 0.05


def test_model_above_tc():
    """Above Tc both branches lie on the rectilinear diameter: rho_l = rho_v = rho_c + A (T - Tc)."""
    tc, rho_c, _, a = TRUTH
    t = np.array([1.32, 1.5])
    rl, rv = coex_model(TRUTH, t)
    assert rl == pytest.approx(rho_c + a * (t - tc)) and rv == pytest.approx(rl)


def test_too_few_points():
    t, rl, sl, rv, sv = synthetic()
    with pytest.raises(AnalyzeError, match="needs at least 3"):
        fit_coexistence(t[:2], rl[:2], sl[:2], rv[:2], sv[:2])
