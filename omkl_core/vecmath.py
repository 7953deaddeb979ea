"""Deprecated: the feature map's cosine is now :mod:`omkl_core.cosine` (renamed after 0.1.0).

``omkl_core.vecmath.cos``, ``set_library``, ``using`` and the other names still work for one
release (removed in the release after next), each with a :class:`DeprecationWarning` naming the new
place. ``OMKL_COS`` is unchanged.
"""
from __future__ import annotations

from . import cosine as _new
from .deprecation import moved_to

__all__: list[str] = []
__getattr__ = moved_to("omkl_core.vecmath", _new)
