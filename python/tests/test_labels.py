"""The text the tables and figures print: mean ± error to the error's digits, units as mathtext."""

import math

from mcens_analyze.labels import axis_label, bracket, fmt_pm, tex_unit


def test_fmt_pm():
    """Two significant digits of the error, the mean to the same decimal."""
    assert fmt_pm(1.23456, 0.0123) == "1.235 ± 0.012"
    assert fmt_pm(123.4, 5.6) == "123.4 ± 5.6"
    assert fmt_pm(-0.5, 0.25) == "-0.50 ± 0.25"
    assert fmt_pm(2.0, math.nan) == "2"  # no error estimate: the mean alone
    assert fmt_pm(math.nan, 0.1) == "nan"


def test_units():
    assert tex_unit("epsilon sigma^-3") == r"$\varepsilon\,\sigma^{-3}$"
    assert tex_unit("kJ/mol") == r"$\mathrm{kJ}/\mathrm{mol}$"
    assert tex_unit("1") == "" and tex_unit("") == ""
    assert axis_label("$T$", "epsilon/k_B") == r"$T$ ($\varepsilon/k_\mathrm{B}$)"
    assert bracket("K") == " [K]" and bracket("1") == ""
