"""``python -m aton_tui``: the ``aton`` command, for an environment without its script."""

import sys

from .cli import main

sys.exit(main())
