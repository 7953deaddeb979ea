"""Multi-kernel online learners (papers 000 and 003).

* :mod:`omkl_core.mkl.vaw2` -- paper 000: the VAW2 family (random-feature VAW experts and a
  meta-learner): ``VAW2``, ``VAWEWA``, ``VAWAggr``, ``VAWMLProd``, ``VAWMLPoly``, ``VAWBOA``
  and the shared expert layer :func:`expert_predictions`.
"""
from __future__ import annotations

from . import vaw2
from .vaw2 import *  # noqa: F403
from .vaw2 import TIME_BLOCK, _draw_dictionaries  # noqa: F401

__all__ = [*vaw2.__all__]
