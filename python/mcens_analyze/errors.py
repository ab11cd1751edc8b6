"""The one user-facing error of mcens-analyze: cli.main prints its message and exits 1."""


class AnalyzeError(Exception):
    """One user-facing message; main() prints it and exits 1."""
