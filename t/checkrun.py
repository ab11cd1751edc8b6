"""checkrun: the one exit convention of the Python checks under t/ (h5check.py, gibbs_check.py, ...).

A check that does not hold exits 1: it calls fail(MSG) or check(COND, MSG), or returns a false
value (a check that returns nothing holds). A
checker that breaks exits 2: an unknown command, the wrong number of arguments, a missing dataset,
any other exception. So a negative control, which expects 1, cannot pass on a crash. The tests'
shell helpers (tap.sh's pycheck) send the output to the TAP stream as diagnostics; "FAIL: MSG" is
the line a failed check prints, and t/coexistence_fit.sh matches on it."""
import sys
import traceback


class Fail(Exception):
    """A check that did not hold."""


def fail(msg):
    raise Fail(msg)


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def run(commands, argv, usage=None):
    """commands[argv[1]](*argv[2:]), then exit by the convention above. usage: printed (to stderr)
    for a missing or unknown command; by default the command names."""
    if len(argv) < 2 or argv[1] not in commands:
        sys.stderr.write(usage or f"usage: {argv[0]} {'|'.join(commands)} ARG...\n")
        sys.exit(2)
    try:
        result = commands[argv[1]](*argv[2:])
    except Fail as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    except Exception as e:  # the checker itself broke: not a pass, and not a failed check
        traceback.print_exc()
        print(f"checker error: {type(e).__name__}: {e}")
        sys.exit(2)
    sys.exit(0 if result is None or bool(result) else 1)  # bool(): numpy's False is not False
