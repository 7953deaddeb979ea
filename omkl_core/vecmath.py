"""Deprecated: the feature map's cosine is now :mod:`omkl_core.cosine` (renamed after 0.1.0).

``omkl_core.vecmath.cos``, ``set_library``, ``using`` and the other names still work for one
release (removed in the release after next), each with a :class:`DeprecationWarning` naming the new
place. ``OMKL_COS`` is unchanged.
"""
from __future__ import annotations

import warnings

from . import cosine as _cosine

__all__: list[str] = []


def __getattr__(name: str):
    if name in _cosine.__all__:
        warnings.warn(f"omkl_core.vecmath.{name} is deprecated; use omkl_core.cosine.{name} (the module was renamed)",
                      DeprecationWarning, stacklevel=2)
        return getattr(_cosine, name)
    raise AttributeError(f"module 'omkl_core.vecmath' has no attribute {name!r} (the cosine is omkl_core.cosine)")
