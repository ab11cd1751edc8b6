"""The files a command writes: an output stream, a figure directory and PNG, and the provenance
attributes of a new HDF5 file; every failure an AnalyzeError naming the path."""

import os
import sys

from .errors import AnalyzeError


def open_out(path):
    if path == "-":
        import contextlib
        return contextlib.nullcontext(sys.stdout)
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise AnalyzeError("%s: cannot write: %s" % (path, e.strerror)) from None


def figure_dir(path):
    """Create the figure directory PATH (and its parents) unless it exists."""
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise AnalyzeError("%s: cannot create the figure directory: %s" % (path, e.strerror)) from None


def save_figure(fig, path):
    try:
        fig.savefig(path)
    except OSError as e:
        raise AnalyzeError("%s: cannot write: %s" % (path, e.strerror)) from None


def new_h5(path):
    """PATH.tmp opened for writing: a command writes beside its output and renames the file into
    place (os.replace) once complete, so a failure leaves no half file."""
    import h5py
    try:
        return h5py.File(path + ".tmp", "w")
    except OSError as e:
        raise AnalyzeError("%s: cannot write: %s" % (path, e.strerror or e)) from None


def source_attrs(f, run):
    """The run's file and its provenance (/parameters attributes) as attributes source*."""
    f.attrs["source"] = os.path.abspath(run.path)
    for a in ("mcens_version", "git_revision", "creation_time", "units"):
        v = run.ds("parameters").attrs.get(a, b"")
        f.attrs["source_" + a] = v.decode() if isinstance(v, bytes) else str(v)
