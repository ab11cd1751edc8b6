"""The mcens-analyze command line: a subcommand per module of COMMANDS, each offering
add_parser(sub) and main(run, args); main() is what the installed script calls."""

import argparse
import os
import sys

from . import coexistence, export, mbar, plot, summary, tmmc
from .errors import AnalyzeError
from .run import Run

# in the order `mcens-analyze --help` lists them
COMMANDS = {"summary": summary, "plot": plot, "export": export, "mbar": mbar,
            "coexistence": coexistence, "tmmc": tmmc}


def parser(version):
    ap = argparse.ArgumentParser(prog="mcens-analyze", description=(
        "Tables, figures, exports, MBAR reweighting, the critical point of a Gibbs-ensemble "
        "sweep and the coexistence and isotherms of a grand-canonical run's ln Pi(N), from an mcens "
        "output file."))
    ap.add_argument("-V", "--version", action="version", version="mcens-analyze " + version)
    sub = ap.add_subparsers(dest="cmd", metavar="COMMAND", required=True)
    for mod in COMMANDS.values():
        mod.add_parser(sub)
    return ap


def dispatch(argv, version):
    """Run the command of argv; a file not as expected becomes one AnalyzeError line, not a
    traceback (MCENS_ANALYZE_DEBUG=1 lets it through)."""
    args = parser(version).parse_args(argv)
    args.analyze_version = version  # recorded in the files mbar and coexistence write
    try:
        return COMMANDS[args.cmd].main(Run(args.file), args)
    except (AnalyzeError, KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as e:
        if os.environ.get("MCENS_ANALYZE_DEBUG"):
            raise
        raise AnalyzeError("%s: could not be analysed (%s: %s); MCENS_ANALYZE_DEBUG=1 shows the "
                           "traceback" % (args.file, type(e).__name__, e)) from None


def main(argv=None, version="unknown"):
    """The exit status of mcens-analyze ARGV (default sys.argv[1:]): 0, 1 on an AnalyzeError
    (its message on stderr), 130 on an interrupt; argparse exits 2 itself. version: the mcens
    release, which the installed script passes (configure's PACKAGE_VERSION)."""
    try:
        return dispatch(sys.argv[1:] if argv is None else argv, version)
    except AnalyzeError as e:
        sys.stderr.write("mcens-analyze: error: %s\n" % e)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 1
