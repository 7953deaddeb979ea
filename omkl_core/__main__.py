"""``python -m omkl_core``: the ``omkl`` command (see :mod:`omkl_core.cli`)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
