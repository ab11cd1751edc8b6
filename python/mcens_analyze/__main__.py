"""python -m mcens_analyze: the mcens-analyze command (without the release number, which only
the installed script knows)."""

import sys

from .cli import main

sys.exit(main())
