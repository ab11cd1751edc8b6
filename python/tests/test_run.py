"""Run, the reader of an mcens output file, on a small file written here with the layout mcens
writes; and the command line's one-line error for a file that is not there."""

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")
from mcens_analyze import AnalyzeError, Run  # noqa: E402
from mcens_analyze.cli import main  # noqa: E402

CONFIG = "[run]\nequilibration = 100 ; sweeps\nsample_every = 5\n"


@pytest.fixture
def run_file(tmp_path):
    """Two state points (T 1.0 and 1.5 at one density), one chain each, 4 samples of U/N."""
    path = tmp_path / "run.h5"
    with h5py.File(path, "w") as f:
        p = f.create_dataset("parameters", data=CONFIG)
        p.attrs.update(mcens_version="0.1.0", units="reduced")
        for name, v, unit in (("temperature", [1.0, 1.5], "epsilon/k_B"),
                              ("density", [0.5, 0.5], "sigma^-3"), ("box_length", [5.0, 5.0], "sigma")):
            f.create_dataset("statepoints/" + name, data=v).attrs["unit"] = unit
        for name, mean in (("pressure", [0.3, 0.9]), ("energy", [-2.0, -1.5])):
            f.create_dataset("results/%s/mean" % name, data=mean).attrs["unit"] = "epsilon"
            f.create_dataset("results/%s/stderr" % name, data=[0.01, 0.02])
            f.create_dataset("results/%s/blocking_converged" % name, data=[1, 0])
        f.create_dataset("results/rdf/r", data=[0.5, 1.0])
        f.create_dataset("chains/statepoint", data=[0, 1])
        f.create_dataset("chains/energy", data=np.arange(8.0).reshape(2, 4))
    return str(path)


def test_run_reads(run_file):
    run = Run(run_file)
    assert run.nstate == 2 and not run.npt and not run.cluster and not run.gibbs
    assert [a[0] for a in run.axes()] == ["temperature", "density"]
    assert run.layout()[0][0] == "temperature"  # the axis with more distinct values
    assert run.observables() == ["energy", "pressure"]  # ORDER's, without the rdf group
    r = run.result("energy")
    assert r["unit"] == "epsilon" and list(r["mean"]) == [-2.0, -1.5] and list(r["converged"]) == [1, 0]
    assert run.config("run", "sample_every", 10) == 5
    sweeps, v = run.series("energy")  # sample i at equilibration + (i + 1) sample_every
    assert list(sweeps) == [105, 110, 115, 120] and v.shape == (2, 4)


def test_run_refuses(run_file, tmp_path):
    with pytest.raises(AnalyzeError, match="no such file"):
        Run(str(tmp_path / "none.h5"))
    other = tmp_path / "other.h5"
    h5py.File(other, "w").close()
    with pytest.raises(AnalyzeError, match="not an mcens output"):
        Run(str(other))
    with pytest.raises(AnalyzeError, match="missing dataset /results/density/mean"):
        Run(run_file).result("density")


def test_cli_missing_file(tmp_path, capsys):
    assert main(["summary", str(tmp_path / "none.h5")]) == 1
    assert capsys.readouterr().err == "mcens-analyze: error: %s: no such file\n" % (tmp_path / "none.h5")
