"""Run: an mcens output file read the way every command reads it (read-only; a missing or
misshapen dataset is an AnalyzeError naming the file and the dataset)."""

import configparser
import os

from .errors import AnalyzeError
from .labels import ORDER


class Run:
    """An mcens output file, opened read-only; every access names the file and dataset on failure."""

    def __init__(self, path):
        import h5py
        self.path = path
        if not os.path.exists(path):
            raise AnalyzeError("%s: no such file" % path)
        try:
            self.f = h5py.File(path, "r")
        except OSError:
            raise AnalyzeError("%s: not an HDF5 file, so not an mcens output" % path) from None
        p = self.f.get("parameters")
        if (p is None or "mcens_version" not in p.attrs or "statepoints" not in self.f
                or "results" not in self.f):
            raise AnalyzeError("%s: not an mcens output (no /parameters with mcens_version, "
                               "/statepoints and /results)" % path)
        self.nstate = self.ds("statepoints/temperature").shape[0]
        # an open cluster has box length 0; a file without box lengths is not one
        box = self.f["statepoints/box_length"][:] if "statepoints/box_length" in self.f else []
        self.cluster = bool(len(box) and (box == 0).all())
        self.npt = "statepoints/pressure" in self.f
        # a grand-canonical run: ln z is its axis, ln Pi(N) its result (/results/tmmc)
        self.gcmc = "statepoints/lnz" in self.f
        # a Gibbs-ensemble run has two boxes per chain: /chains/box_length [C, 2]
        self.gibbs = "chains/box_length" in self.f

    def fail(self, what):
        raise AnalyzeError("%s: %s" % (self.path, what))

    def ds(self, name):
        d = self.f.get(name)
        if d is None or not hasattr(d, "shape"):
            self.fail("missing dataset /%s" % name)
        return d

    def unit(self, name):
        u = self.ds(name).attrs.get("unit", b"")
        return u.decode() if isinstance(u, bytes) else str(u)

    def strings(self, name):
        return [s.decode() if isinstance(s, bytes) else str(s) for s in self.ds(name)[:]]

    def config(self, section, key, default):
        """A value of the config text in /parameters (inih syntax: ; and # comments)."""
        cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), strict=False,
                                       interpolation=None)
        try:
            text = self.ds("parameters")[()]
            cp.read_string(text.decode() if isinstance(text, bytes) else text)
            return int(cp.get(section, key, fallback=str(default)))
        except (configparser.Error, ValueError):
            self.fail("/parameters does not parse as an mcens config")

    # --- state points -------------------------------------------------------------------------
    def axes(self):
        """The state-point axes [(name, values[S], unit)]: T and density (nvt), T and P (npt; the
        density there is only the start's), T and ln z (gcmc), T alone for an open cluster."""
        out = [("temperature", self.ds("statepoints/temperature")[:],
                self.unit("statepoints/temperature"))]
        other = "pressure" if self.npt else "lnz" if self.gcmc else (None if self.cluster else "density")
        if other:
            out.append((other, self.ds("statepoints/" + other)[:], self.unit("statepoints/" + other)))
        return out

    def layout(self):
        """(x axis, group axis or None): x is the axis with more distinct values (T on a tie)."""
        ax = self.axes()
        if len(ax) == 1:
            return ax[0], None
        n = [len(set(a[1].tolist())) for a in ax]
        return (ax[1], ax[0]) if n[1] > n[0] else (ax[0], ax[1])

    # --- pooled results -----------------------------------------------------------------------
    def observables(self):
        # /results/rdf, /results/exchange and /results/tmmc are groups of their own, not pooled estimates
        names = [n for n in self.ds_group("results") if n not in ("rdf", "exchange", "tmmc")]
        return sorted(names, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n))

    def ds_group(self, name):
        g = self.f.get(name)
        if g is None or hasattr(g, "shape"):
            self.fail("missing group /%s" % name)
        return list(g.keys())

    def result(self, name):
        """{mean, stderr, converged} of /results/NAME, each [S] or [S, M] (mu_excess)."""
        base = "results/%s/" % name
        r = {k: self.ds(base + k)[:] for k in ("mean", "stderr")}
        r["converged"] = self.ds(base + "blocking_converged")[:]
        r["unit"] = self.unit(base + "mean")
        if r["mean"].shape[0] != self.nstate:
            self.fail("/%smean has %d rows for %d state points" % (base, r["mean"].shape[0],
                                                                  self.nstate))
        return r

    def kind_names(self):
        """The names of the species, or of the molecule types where the file has molecules."""
        return self.strings("molecules/name" if "molecules" in self.f else "species/name")

    def columns(self, name):
        """[(label suffix, column index or None)]: one per species for an [S, M] result."""
        r = self.ds("results/%s/mean" % name)
        if r.ndim == 1:
            return [("", None)]
        labels = self.kind_names()
        if len(labels) != r.shape[1]:
            labels = [str(i) for i in range(r.shape[1])]
        return [("[%s]" % s, i) for i, s in enumerate(labels)]

    def defined(self, name):
        """False where every mean is NaN (the pressure of an open cluster)."""
        import numpy as np
        return not np.isnan(self.result(name)["mean"]).all()

    # --- per-chain series ---------------------------------------------------------------------
    def series(self, name):
        """(sweeps[K], values[C, K]) of the per-sample series NAME: H5MD /observables when present,
        else /chains with the sweeps from the config (sample i at equilibration + (i+1) every)."""
        import numpy as np
        if "observables/%s/value" % name in self.f:
            return (self.ds("observables/%s/step" % name)[:],
                    self.ds("observables/%s/value" % name)[:].T)
        v = self.ds("chains/" + name)[:]
        eq = self.config("run", "equilibration", 2000)
        every = self.config("run", "sample_every", 10)
        return eq + every * np.arange(1, v.shape[1] + 1), v

    def chain_statepoints(self):
        return self.ds("chains/statepoint")[:]
