"""``python -m omkl_core.repro``: the reproduction driver (see :mod:`omkl_core.repro.driver`)."""
import sys

from .driver import main

if __name__ == "__main__":       # importing the module (doctest collection) runs nothing
    sys.exit(main())
