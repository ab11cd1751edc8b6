#!/bin/sh
# checkrun.sh: t/checkrun.py's exit convention, on which every negative control of the Python
# checks rests: a check that holds exits 0, one that fails 1 (fail(), check(), a false value,
# numpy's False too), a checker that breaks 2 (an exception, an unknown command, wrong arguments).
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 8
cat > probe.py <<PY
import sys
sys.path.insert(0, "$T_SRCDIR")
import numpy as np
from checkrun import check, fail, run
run({"holds": lambda: None, "true": lambda: True, "fail": lambda: fail("off by 3 errors"),
     "check": lambda: check(1 > 2, "1 is not above 2"), "false": lambda: False,
     "np_false": lambda: np.float64(1.0) > 2.0, "crash": lambda: {}["missing dataset"],
     "one_arg": lambda path: None}, sys.argv)
PY
status() { "$PYTHON3" probe.py "$@" > out.txt 2>&1; echo $?; }
[ "$(status holds)" -eq 0 ] && [ "$(status true)" -eq 0 ]; ok $? "a check that returns nothing, or True, holds: 0"
[ "$(status fail)" -eq 1 ] && grep -q "^FAIL: off by 3 errors" out.txt; ok $? "fail(): 1, and a FAIL line with its message"
[ "$(status check)" -eq 1 ]; ok $? "check() of a false condition: 1"
[ "$(status false)" -eq 1 ]; ok $? "a check that returns False: 1"
[ "$(status np_false)" -eq 1 ]; ok $? "a check that returns numpy's False: 1"
[ "$(status crash)" -eq 2 ] && grep -q "^checker error: KeyError" out.txt; ok $? "a checker that raises: 2, with its error"
[ "$(status nosuch)" -eq 2 ] && [ "$(status)" -eq 2 ]; ok $? "an unknown or missing command: 2"
[ "$(status one_arg)" -eq 2 ] && [ "$(status one_arg a b)" -eq 2 ]; ok $? "the wrong number of arguments: 2"
exit 0
