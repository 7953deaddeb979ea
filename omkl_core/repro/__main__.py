"""``python -m omkl_core.repro``: the reproduction driver (see :mod:`omkl_core.repro.driver`)."""
import sys

from .driver import main

sys.exit(main())
