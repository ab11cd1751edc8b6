"""Names and units as text (tables, CSV) and as mathtext (figures), and mean ± error to its digits."""

import math
import re


# Display names: plain text for tables and CSV, mathtext for figures. Observables not listed keep
# their dataset name (a later mcens may add some).
TEXT_NAME = {"temperature": "T", "density": "rho", "pressure": "P", "energy": "U/N",
             "enthalpy": "H/N", "heat_capacity": "C/N", "mass_density": "rho_m",
             "lindemann": "Lindemann", "mu_excess": "mu_ex", "lnz": "ln z", "particles": "N"}


TEX_NAME = {"temperature": r"$T$", "density": r"$\rho$", "pressure": r"$P$", "energy": r"$U/N$",
            "enthalpy": r"$H/N$", "mass_density": r"$\rho_\mathrm{m}$",
            "lindemann": r"Lindemann index $\delta_\mathrm{L}$", "mu_excess": r"$\mu_\mathrm{ex}$",
            "acceptance": "acceptance", "volume_acceptance": "volume-move acceptance",
            "translation_acceptance": "translation acceptance",
            "rotation_acceptance": "rotation acceptance", "lnz": r"$\ln z$", "particles": r"$N$"}


# the order observables are shown in; anything else follows alphabetically
ORDER = ["energy", "pressure", "density", "mass_density", "enthalpy", "heat_capacity", "lindemann",
         "mu_excess", "acceptance", "translation_acceptance", "rotation_acceptance",
         "volume_acceptance"]


def tex_unit(unit):
    """'epsilon sigma^-3' -> '$\\varepsilon\\,\\sigma^{-3}$'; '' for a ratio (unit '1')."""
    if unit in ("", "1"):
        return ""
    def tok(m):
        t = m.group(0)
        if t in ("epsilon", "sigma"):
            return "\\" + ("varepsilon" if t == "epsilon" else "sigma")
        if t == "k_B":
            return r"k_\mathrm{B}"
        if t.startswith("^"):
            return "^{%s}" % t[1:]
        return r"\mathrm{%s}" % t
    return "$" + re.sub(r"k_B|epsilon|sigma|\^-?\d+|[A-Za-z]+", tok, unit).replace(" ", r"\,") + "$"


def axis_label(tex, unit):
    u = tex_unit(unit)
    return "%s (%s)" % (tex, u) if u else tex


def fmt_pm(mean, err):
    """mean ± err with the error to two significant digits, the mean to the same decimal."""
    if not math.isfinite(mean):
        return "nan"
    if not (math.isfinite(err) and err > 0):
        return "%.6g" % mean
    dec = max(0, min(12, 1 - math.floor(math.log10(err))))
    return "%.*f ± %.*f" % (dec, mean, dec, err)


def bracket(unit):
    return " [%s]" % unit if unit not in ("", "1") else ""


def text_name(run, name):
    """Plain label: C_V/N or C_P/N, and in npt the measured P_virial apart from the imposed P."""
    if name == "heat_capacity":
        return "C_P/N" if run.npt else "C_V/N"
    if name == "pressure" and run.npt:
        return "P_virial"
    return TEXT_NAME.get(name, name)


def tex_name(run, name):
    if name == "heat_capacity":
        return r"$C_P/N$" if run.npt else r"$C_V/N$"
    if name == "pressure" and run.npt:
        return r"$P_\mathrm{virial}$"
    return TEX_NAME.get(name, name.replace("_", " "))


def value_label(name, v, unit=""):
    u = tex_unit(unit)
    return "%s = %.4g%s" % (TEX_NAME[name], v, " " + u if u else "")
