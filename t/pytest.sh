#!/bin/sh
# pytest of the mcens_analyze package (python/tests) as TAP: one line per pytest test, read from
# its JUnit XML; a skipped pytest test is a TAP SKIP with pytest's reason. Without pytest the whole
# file is skipped (the GPU machine has none).
. "$T_SRCDIR/tap.sh"
"$PYTHON3" -c 'import pytest' 2>/dev/null || tap_skip_all "pytest not installed ($PYTHON3 -c 'import pytest' fails)"
pydir="$T_SRCDIR/../python"
# no cache or bytecode written into the source tree (a distcheck's is read-only)
PYTHONDONTWRITEBYTECODE=1 "$PYTHON3" -m pytest -p no:cacheprovider -rA --junitxml=junit.xml \
    --rootdir="$pydir" "$pydir/tests" > pytest.txt 2>&1
rc=$?
"$PYTHON3" - "$rc" junit.xml <<'PY'
import sys
import xml.etree.ElementTree as ET
rc, tap, failed = int(sys.argv[1]), [], False
try:
    cases = list(ET.parse(sys.argv[2]).getroot().iter("testcase"))
except (OSError, ET.ParseError):
    cases = []  # pytest did not get as far as writing it: the status line below says so
for c in cases:
    name = "%s::%s" % (c.get("classname", ""), c.get("name", ""))
    bad = c.find("failure") if c.find("failure") is not None else c.find("error")
    if bad is not None:
        failed = True
        tap.append(("not ok", name, ["# " + l for l in (bad.get("message") or "").splitlines()]))
    elif c.find("skipped") is not None:
        tap.append(("ok", "%s # SKIP %s" % (name, c.find("skipped").get("message", "")), []))
    else:
        tap.append(("ok", name, []))
# a run that failed without a failing test (collection, usage, no tests) still fails
if rc != 0 and not failed or not tap:
    tap.append(("not ok", "pytest exited with status %d" % rc, []))
print("1..%d" % len(tap))
for i, (status, name, diag) in enumerate(tap, 1):
    print("%s %d - %s" % (status, i, name))
    if diag:
        print("\n".join(diag))
PY
diag < pytest.txt
