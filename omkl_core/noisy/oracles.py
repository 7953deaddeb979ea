"""Deprecated: the noise laws and the noisy-copy oracle of paper 001, Sec. 2, are now
:mod:`omkl_core.noisy.noise` (renamed after 0.1.0, apart from :mod:`omkl_core.oracles`, the
comparators in hindsight). The old names work for one more release, with a DeprecationWarning."""
from __future__ import annotations

from ..deprecation import moved_to
from . import noise as _new

__all__: list[str] = []
__getattr__ = moved_to("omkl_core.noisy.oracles", _new)
