"""python -m floe: the floe command line."""

import sys

from .cli import main

sys.exit(main())
