"""Shared argument checks: every public entry point fails loudly, naming the argument."""
from __future__ import annotations

import numbers

import numpy as np


def check_matrix(X, name: str = "X") -> np.ndarray:
    """Return ``X`` as a finite float64 2-D array or raise naming ``name``."""
    try:
        A = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric 2-D array: {exc}") from None
    if A.ndim != 2:
        raise ValueError(f"{name} must be 2-D (T, d), got shape {A.shape}")
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"{name} must be non-empty, got shape {A.shape}")
    if not np.all(np.isfinite(A)):
        bad = np.argwhere(~np.isfinite(A))[0]
        raise ValueError(f"{name} contains NaN or inf (first at row {bad[0]}, column {bad[1]})")
    return A


def check_vector(y, name: str = "y", length: int | None = None) -> np.ndarray:
    """Return ``y`` as a finite float64 1-D array (optionally of ``length``)."""
    try:
        v = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric 1-D array: {exc}") from None
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {v.shape}")
    if length is not None and v.shape[0] != length:
        raise ValueError(f"{name} has length {v.shape[0]} but X has {length} rows")
    if not np.all(np.isfinite(v)):
        i = int(np.flatnonzero(~np.isfinite(v))[0])
        raise ValueError(f"{name} contains NaN or inf (first at index {i})")
    return v


def check_point(x, d: int | None = None, name: str = "x") -> np.ndarray:
    """One input vector: finite float64 1-D of length ``d`` (if given)."""
    v = check_vector(x, name)
    if d is not None and v.shape[0] != d:
        raise ValueError(f"{name} has dimension {v.shape[0]}, expected d={d}")
    return v


def check_scalar(value, name: str) -> float:
    """A finite real scalar."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


def check_positive(value, name: str) -> float:
    v = check_scalar(value, name)
    if v <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return v


def check_int(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__}")
    v = int(value)
    if v < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value!r}")
    return v
