"""Deprecated: the ridge family of paper 002 is now :mod:`omkl_core.ridge` (renamed after 0.1.0).

``omkl_core.linear.OnlineRidge`` and the other names still work for one release (removed in the release after next), with a
:class:`DeprecationWarning` naming the new place; import them from :mod:`omkl_core.ridge` (or
from :mod:`omkl_core` itself).
"""
from __future__ import annotations

from . import ridge as _new
from .deprecation import moved_to

__all__: list[str] = []
__getattr__ = moved_to("omkl_core.linear", _new)
