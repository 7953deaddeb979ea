"""Deprecated: the ridge family of paper 002 is now :mod:`omkl_core.ridge` (renamed after 0.1.0).

``omkl_core.linear.OnlineRidge`` and the other names still work for one release (removed in the release after next), with a
:class:`DeprecationWarning` naming the new place; import them from :mod:`omkl_core.ridge` (or
from :mod:`omkl_core` itself).
"""
from __future__ import annotations

import warnings

from . import ridge as _ridge

__all__: list[str] = []     # nothing new is exported from here; registry discovery reads omkl_core.ridge


def __getattr__(name: str):
    if name in _ridge.__all__:
        warnings.warn(f"omkl_core.linear.{name} is deprecated; use omkl_core.ridge.{name} (the module was renamed)",
                      DeprecationWarning, stacklevel=2)
        return getattr(_ridge, name)
    raise AttributeError(f"module 'omkl_core.linear' has no attribute {name!r} (the ridge family is omkl_core.ridge)")
