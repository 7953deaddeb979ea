"""Deprecated: paper 004's additive and sparse models are now :mod:`omkl_core.sparse_additive` (renamed
after 0.1.0: the package holds the Lasso family and best subset beside boosting). The names of the old
package work for one more release, each with a DeprecationWarning naming the new place."""
from __future__ import annotations

from .. import sparse_additive as _new
from ..deprecation import moved_to

__all__: list[str] = []
__getattr__ = moved_to("omkl_core.additive", _new)
