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


def check_square_matrix(K, name: str = "K") -> np.ndarray:
    """A finite float64 square 2-D array (e.g. a Gram matrix)."""
    A = check_matrix(K, name)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square Gram matrix, got shape {A.shape}")
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


def check_nonneg(value, name: str) -> float:
    """A finite real scalar ``>= 0``."""
    v = check_scalar(value, name)
    if v < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return v


def check_interval(value, name: str, low=None, high=None, *, closed: str = "both") -> float:
    """A finite real scalar in the interval from ``low`` to ``high`` (``None``: unbounded).

    ``closed`` is ``"both"``, ``"left"``, ``"right"`` or ``"neither"`` and says which ends
    belong to the interval, e.g. ``check_interval(xi, "xi", 0, 1, closed="right")`` is
    ``0 < xi <= 1``.
    """
    v = check_scalar(value, name)
    lo_ok = low is None or (v >= low if closed in ("both", "left") else v > low)
    hi_ok = high is None or (v <= high if closed in ("both", "right") else v < high)
    if not (lo_ok and hi_ok):
        lb = "(-inf" if low is None else ("[" if closed in ("both", "left") else "(") + f"{low:g}"
        hb = "inf)" if high is None else f"{high:g}" + ("]" if closed in ("both", "right") else ")")
        raise ValueError(f"{name} must be in {lb}, {hb}, got {value!r}")
    return v


def check_p(p, name: str = "p") -> float:
    """The sample parameter ``p > 1`` of paper 001 (Lemma 1, Algorithm 1)."""
    p = check_scalar(p, name)
    if p <= 1.0:
        raise ValueError(f"{name} must be > 1 (P(N = n) = (p-1)/p^(n+1)), got {p!r}")
    return p


def check_bool(value, name: str) -> bool:
    """A Python or NumPy bool (not an int that happens to be 0 or 1)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def check_option(value, name: str, options) -> str:
    """One of a fixed set of string options."""
    options = tuple(options)
    if value not in options:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, options))}; got {value!r}")
    return value


def check_seed(seed, name: str = "seed"):
    """``None``, a non-negative int or a ``numpy.random.Generator``."""
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise TypeError(f"{name} must be None, a non-negative int or a numpy Generator, got {seed!r}")
    return int(seed)


def check_params(obj, constraints: dict) -> None:
    """Check every constructor argument of ``obj`` against its declared constraint.

    ``constraints`` maps an attribute name to a callable ``check(value, name)`` that returns
    normally or raises naming the argument (scikit-learn's ``_parameter_constraints`` idea:
    one table per class, checked in one place). A learner calls ``check_params(self,
    self._parameter_constraints)`` at the end of ``__init__``.
    """
    for name, check in constraints.items():
        check(getattr(obj, name), name)
