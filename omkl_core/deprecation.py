"""Renamed modules keep their old name for one release: :func:`moved_to` is the old module's ``__getattr__``."""
from __future__ import annotations

import warnings
from types import ModuleType

__all__ = ["moved_to"]


def moved_to(old: str, new: ModuleType):
    """A module-level ``__getattr__`` for the module ``old`` renamed ``new``: ``old.NAME`` gives
    ``new.NAME`` with a :class:`DeprecationWarning` naming the new place; a name ``new`` lacks is an
    AttributeError naming both.

    >>> import omkl_core.ridge as ridge
    >>> __getattr__ = moved_to("omkl_core.linear", ridge)   # in omkl_core/linear.py
    """
    def __getattr__(name: str):
        if not name.startswith("__") and hasattr(new, name):
            warnings.warn(f"{old}.{name} is deprecated; use {new.__name__}.{name} (the module was renamed)",
                          DeprecationWarning, stacklevel=2)
            return getattr(new, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r} (it was renamed {new.__name__})")

    return __getattr__
