"""Array-namespace choice: NumPy (default, always available) or CuPy (optional GPU).

Random numbers are always drawn on the host from a seeded :class:`numpy.random.Generator`
(:func:`host_rng`) and then moved to the backend, so NumPy and CuPy runs of the same seed
see identical random features (DESIGN.md, "Performance rules").
"""
from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["get_namespace", "to_numpy", "host_rng", "cupy_available", "asarray"]

_BACKENDS = ("numpy", "cupy", "auto")
_cupy_usable: bool | None = None


def _probe_cupy() -> bool:
    """True when CuPy imports *and* a device allocation + kernel launch succeed."""
    global _cupy_usable
    if _cupy_usable is not None:
        return _cupy_usable
    try:
        import cupy as cp  # noqa: PLC0415

        a = cp.arange(4, dtype=cp.float64)
        float((a * a).sum())  # forces allocation, a kernel and a device->host copy
        _cupy_usable = True
    except Exception:  # ImportError, CUDARuntimeError, missing driver, ...
        _cupy_usable = False
    return _cupy_usable


def cupy_available() -> bool:
    """Whether a CuPy GPU is actually usable on this machine (probed once, cached)."""
    return _probe_cupy()


def get_namespace(backend: str | ModuleType = "numpy") -> ModuleType:
    """Return the array module for ``backend``.

    ``"numpy"`` -> :mod:`numpy`; ``"cupy"`` -> :mod:`cupy` (``RuntimeError`` if no usable
    GPU); ``"auto"`` -> CuPy when a GPU is usable, otherwise NumPy (no error when CuPy is
    not installed). A module (numpy or cupy) is passed through.
    """
    if isinstance(backend, ModuleType):
        if backend.__name__ not in ("numpy", "cupy"):
            raise ValueError(f"backend module must be numpy or cupy, got {backend.__name__!r}")
        return backend
    if not isinstance(backend, str) or backend not in _BACKENDS:
        raise ValueError(f"backend must be one of {_BACKENDS}, got {backend!r}")
    if backend == "numpy":
        return np
    if backend == "cupy":
        if not _probe_cupy():
            raise RuntimeError("backend='cupy' requested but no usable CuPy GPU was found "
                               "(install the 'gpu' extra and check the CUDA driver)")
        import cupy as cp  # noqa: PLC0415

        return cp
    if _probe_cupy():
        import cupy as cp  # noqa: PLC0415

        return cp
    return np


def to_numpy(a: Any) -> np.ndarray:
    """Copy a NumPy/CuPy array (or scalar/sequence) to a host :class:`numpy.ndarray`."""
    if hasattr(a, "get") and type(a).__module__.startswith("cupy"):
        return a.get()
    return np.asarray(a)


def asarray(a: Any, xp: ModuleType, dtype=np.float64):
    """Move a host array to namespace ``xp`` as ``dtype`` (float64 by default)."""
    return xp.asarray(a, dtype=dtype)


def host_rng(seed: int | np.random.Generator | None = None) -> np.random.Generator:
    """A seeded host :class:`numpy.random.Generator` (a Generator is passed through)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, a numpy Generator or None, got {type(seed).__name__}")
    if seed is not None and seed < 0:
        raise ValueError(f"seed must be non-negative, got {seed}")
    return np.random.default_rng(seed)


class NamespaceHolder:
    """Mixin for objects that keep their array namespace in ``self._xp`` and their backend
    name in ``self.backend``: the namespace (a module) is not pickled but re-resolved on load."""

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_xp", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._xp = get_namespace(self.backend)
