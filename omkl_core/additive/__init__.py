"""Deprecated: paper 004's additive and sparse models are now :mod:`omkl_core.sparse_additive` (renamed
after 0.1.0: the package holds the Lasso family and best subset beside boosting). The names of the old
package work for one more release, each with a DeprecationWarning naming the new place."""
from __future__ import annotations

import warnings

from .. import sparse_additive as _new

__all__: list[str] = []


def __getattr__(name: str):
    if not name.startswith("__") and hasattr(_new, name):
        warnings.warn(f"omkl_core.additive.{name} is deprecated; use omkl_core.sparse_additive.{name} "
                      "(the package was renamed)", DeprecationWarning, stacklevel=2)
        return getattr(_new, name)
    raise AttributeError(f"module 'omkl_core.additive' has no attribute {name!r} (see omkl_core.sparse_additive)")
