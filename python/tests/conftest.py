"""pytest of the mcens_analyze package (t/pytest.sh runs it under make check): the package is
imported from this source tree, whatever else is installed."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
