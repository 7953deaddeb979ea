"""Right-hand sides of the papers' bounds, as plain functions (DESIGN.md).

Each function returns the number a test compares a measured quantity with; the docstring
names the paper, the equation and the exact form (which losses, which constants). One module
per paper (``paper000`` ... ``paper004``) plus ``aggregation`` (EWA / AA bounds of the
meta-learners); every name is also available here, as ``omkl_core.bounds.<name>``.
"""
from __future__ import annotations

from . import aggregation, paper000, paper001, paper002, paper003, paper004
from .aggregation import *  # noqa: F403
from .paper000 import *  # noqa: F403
from .paper001 import *  # noqa: F403
from .paper002 import *  # noqa: F403
from .paper003 import *  # noqa: F403
from .paper004 import *  # noqa: F403

__all__ = [*aggregation.__all__, *paper000.__all__, *paper001.__all__, *paper002.__all__, *paper003.__all__,
           *paper004.__all__]
