"""Deprecated: the noise laws and the noisy-copy oracle of paper 001, Sec. 2, are now
:mod:`omkl_core.noisy.noise` (renamed after 0.1.0, apart from :mod:`omkl_core.oracles`, the
comparators in hindsight). The old names work for one more release, with a DeprecationWarning."""
from __future__ import annotations

import warnings

from . import noise as _noise

__all__: list[str] = []


def __getattr__(name: str):
    if not name.startswith("__") and hasattr(_noise, name):
        warnings.warn(f"omkl_core.noisy.oracles.{name} is deprecated; use omkl_core.noisy.noise.{name} "
                      "(the module was renamed)", DeprecationWarning, stacklevel=2)
        return getattr(_noise, name)
    raise AttributeError(f"module 'omkl_core.noisy.oracles' has no attribute {name!r} (see omkl_core.noisy.noise)")
