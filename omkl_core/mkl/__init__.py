"""Multi-kernel online learners (papers 000 and 003).

* :mod:`omkl_core.mkl.vaw2` -- paper 000: the VAW2 family (random-feature VAW experts and a
  meta-learner): ``VAW2``, ``VAWEWA``, ``VAWAggr``, ``VAWMLProd``, ``VAWMLPoly``, ``VAWBOA``
  and the shared expert layer :func:`expert_predictions`.
* paper 003: :mod:`~omkl_core.mkl.graph` (feedback graph, Algorithm 1, and the greedy
  dominating set: :func:`feedback_graph`), :mod:`~omkl_core.mkl.sfg` (``SFGMKL``, ``SFGMKLR``),
  and the baselines :mod:`~omkl_core.mkl.raker` (``Raker``), :mod:`~omkl_core.mkl.omkr`
  (``OMKR``), :mod:`~omkl_core.mkl.omkl_gf` (``OMKLGF``).
"""
from __future__ import annotations

import functools
import warnings

from . import graph, omkl_gf, omkr, raker, sfg, vaw2  # noqa: F401
from .graph import feedback_graph
from .omkl_gf import OMKLGF
from .omkr import OMKR
from .raker import Raker
from .sfg import SFGMKL, SFGMKLR, SamplingState
from .vaw2 import *  # noqa: F403
from .vaw2 import TIME_BLOCK, draw_dictionaries  # noqa: F401

__all__ = [*vaw2.__all__, "feedback_graph", "Raker", "OMKR", "OMKLGF", "SFGMKL", "SFGMKLR",
           "SamplingState"]


def __getattr__(name: str):
    """Deprecated names, given back for one release with a DeprecationWarning."""
    if name == "META_LEARNERS":
        # removed in issue 30 (the rows moved to the presets); the old form: row -> (factory, fixed kwargs)
        warnings.warn("omkl_core.mkl.META_LEARNERS is deprecated and will be removed in the next release: "
                      "use omkl_core.mkl.TABLE2_ROWS and omkl_core.mkl.make_meta(row, **kwargs)",
                      DeprecationWarning, stacklevel=2)
        return {row: (functools.partial(make_meta, row), {}) for row in TABLE2_ROWS}  # noqa: F405
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
