"""mcens_analyze: reading and analysing mcens output files, the code of the mcens-analyze command
(one module per command: summary, plot, export, mbar, coexistence; cli.main runs them).

    from mcens_analyze import Run
    run = Run("sweep.h5")
    print(run.nstate, run.result("energy")["mean"])

Importing this package imports no numpy, h5py or matplotlib: each function imports what it needs."""

from .critical import COEX_BETA, coex_model, fit_coexistence
from .errors import AnalyzeError
from .run import Run

__all__ = ["AnalyzeError", "COEX_BETA", "Run", "coex_model", "fit_coexistence"]
