"""Exact (non-approximated) kernels and the kernel dissimilarity of paper 003.

Functions broadcast over leading dimensions: ``x`` of shape (..., d) and ``y`` of shape
(..., d) give (...,). The callable objects (:class:`Gaussian`, :class:`Laplacian`,
:class:`Polynomial`, :class:`Linear`) are what the kernel learners accept; any callable
``k(x, x') -> float`` works too.

* Gaussian   k(x, y) = exp(-||x - y||_2^2 / (2 sigma^2))     (paper 000 eq. 3)
* Laplacian  k(x, y) = exp(-||x - y||_1 / sigma)             (paper 000 eq. 4)
* Polynomial k(x, y) = (<x, y> + c)^degree
* Linear     k(x, y) = <x, y>
"""
from __future__ import annotations

import math

import numpy as np

from .validation import check_int, check_positive, check_scalar

__all__ = ["gaussian", "laplacian", "polynomial", "linear", "kernel_matrix",
           "Kernel", "Gaussian", "Laplacian", "Polynomial", "Linear", "make_kernel",
           "dissimilarity", "log_dissimilarity", "dissimilarity_matrix"]


def _pair(x, y):
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if x.shape[-1:] != y.shape[-1:]:
        raise ValueError(f"x and y must have the same last dimension d, got {x.shape} and {y.shape}")
    return x, y


def gaussian(x, y, sigma: float) -> np.ndarray:
    """exp(-||x - y||^2 / (2 sigma^2)); paper 000 eq. (3)."""
    sigma = check_positive(sigma, "sigma")
    x, y = _pair(x, y)
    r = x - y
    return np.exp(-np.einsum("...i,...i->...", r, r) / (2.0 * sigma * sigma))


def laplacian(x, y, sigma: float) -> np.ndarray:
    """exp(-||x - y||_1 / sigma); paper 000 eq. (4)."""
    sigma = check_positive(sigma, "sigma")
    x, y = _pair(x, y)
    return np.exp(-np.abs(x - y).sum(axis=-1) / sigma)


def polynomial(x, y, degree: int = 2, c: float = 1.0) -> np.ndarray:
    """(<x, y> + c)^degree."""
    degree = check_int(degree, "degree", minimum=0)
    c = check_scalar(c, "c")
    if c < 0:
        raise ValueError(f"c must be >= 0 for a positive-definite polynomial kernel, got {c}")
    x, y = _pair(x, y)
    return (np.einsum("...i,...i->...", x, y) + c) ** degree


def linear(x, y) -> np.ndarray:
    """<x, y>."""
    x, y = _pair(x, y)
    return np.einsum("...i,...i->...", x, y)


class Kernel:
    """Base class: ``k(x, y)`` evaluates pairs (broadcasting), ``k.matrix(X, Y)`` the Gram matrix."""

    def __call__(self, x, y):  # pragma: no cover - abstract
        raise NotImplementedError

    def matrix(self, X, Y=None) -> np.ndarray:
        """Gram matrix K[i, j] = k(X[i], Y[j]) (Y defaults to X)."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        Y = X if Y is None else np.atleast_2d(np.asarray(Y, dtype=np.float64))
        if X.shape[1] != Y.shape[1]:
            raise ValueError(f"X and Y must have the same number of columns, got {X.shape[1]} and {Y.shape[1]}")
        return np.asarray(self(X[:, None, :], Y[None, :, :]), dtype=np.float64)

    def diag(self, X) -> np.ndarray:
        """k(x_i, x_i) for each row."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        return np.asarray(self(X, X), dtype=np.float64)


class Gaussian(Kernel):
    """Gaussian kernel exp(-||x - y||^2 / (2 sigma^2)) (paper 000 eq. 3); note noisy.GaussianKernel(s) is exp(-||r||^2/s^2) = Gaussian(s/sqrt(2))."""

    def __init__(self, sigma: float = 1.0):
        self.sigma = check_positive(sigma, "sigma")

    def __call__(self, x, y):
        return gaussian(x, y, self.sigma)

    def __repr__(self):
        return f"Gaussian(sigma={self.sigma:g})"


class Laplacian(Kernel):
    """Laplacian kernel exp(-||x - y||_1 / sigma)."""

    def __init__(self, sigma: float = 1.0):
        self.sigma = check_positive(sigma, "sigma")

    def __call__(self, x, y):
        return laplacian(x, y, self.sigma)

    def __repr__(self):
        return f"Laplacian(sigma={self.sigma:g})"


class Polynomial(Kernel):
    """Polynomial kernel (<x, y> + c)^degree."""

    def __init__(self, degree: int = 2, c: float = 1.0):
        self.degree = check_int(degree, "degree", minimum=0)
        self.c = check_scalar(c, "c")
        if self.c < 0:
            raise ValueError(f"c must be >= 0, got {c}")

    def __call__(self, x, y):
        return polynomial(x, y, self.degree, self.c)

    def __repr__(self):
        return f"Polynomial(degree={self.degree}, c={self.c:g})"


class Linear(Kernel):
    """Linear kernel <x, y>."""

    def __call__(self, x, y):
        return linear(x, y)

    def __repr__(self):
        return "Linear()"


class _Callable(Kernel):
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, x, y):
        x, y = _pair(x, y)
        if x.ndim == 1 and y.ndim == 1:
            return float(self.fn(x, y))
        xb, yb = np.broadcast_arrays(x, y)
        flat_x = xb.reshape(-1, xb.shape[-1])
        flat_y = yb.reshape(-1, yb.shape[-1])
        out = np.array([float(self.fn(a, b)) for a, b in zip(flat_x, flat_y)])
        return out.reshape(xb.shape[:-1])

    def __repr__(self):
        return f"Kernel({getattr(self.fn, '__name__', 'callable')})"


def make_kernel(kernel) -> Kernel:
    """Accept a :class:`Kernel`, a name ('gaussian', 'laplacian', 'polynomial', 'linear')
    with default parameters, or any callable k(x, x') -> float."""
    if isinstance(kernel, Kernel):
        return kernel
    if isinstance(kernel, str):
        table = {"gaussian": Gaussian, "rbf": Gaussian, "laplacian": Laplacian,
                 "polynomial": Polynomial, "linear": Linear}
        if kernel not in table:
            raise ValueError(f"unknown kernel {kernel!r}; known: {sorted(table)}")
        return table[kernel]()
    if callable(kernel):
        return _Callable(kernel)
    raise TypeError(f"kernel must be a Kernel, a name or a callable, got {type(kernel).__name__}")


def kernel_matrix(kernel, X, Y=None) -> np.ndarray:
    """Gram matrix of ``kernel`` (anything :func:`make_kernel` accepts) between rows of X and Y."""
    return make_kernel(kernel).matrix(X, Y)


# ------------------------------------------------------------------ paper 003, eq. (7)
_DISSIM_KINDS = ("gaussian", "laplacian")


def _log_factors(kind_i: str, sigma_i: float, kind_j: str, sigma_j: float) -> tuple[float, float, float]:
    """Logs of the 1-D integrals a = int k_i^2, b = int k_j^2, c = int k_i k_j over R.

    Gaussian g_s(r) = exp(-r^2/(2 s^2)), Laplacian l_s(r) = exp(-|r|/s):

    * int g_s^2 = sqrt(pi) s;  int l_s^2 = s;
    * int g_s g_t = sqrt(2 pi) s t / sqrt(s^2 + t^2);
    * int l_s l_t = 2 s t / (s + t);
    * int g_s l_t = 2 int_0^inf exp(-r^2/(2 s^2) - r/t) dr = sqrt(2 pi) s erfcx(s / (sqrt(2) t))
      (complete the square; erfcx(z) = exp(z^2) erfc(z) keeps it finite for large s/t).
    """
    from scipy.special import erfcx  # noqa: PLC0415

    def self_log(kind, s):
        return math.log(math.sqrt(math.pi) * s) if kind == "gaussian" else math.log(s)

    a, b = self_log(kind_i, sigma_i), self_log(kind_j, sigma_j)
    if kind_i == kind_j == "gaussian":
        c = 0.5 * math.log(2 * math.pi) + math.log(sigma_i) + math.log(sigma_j) - 0.5 * math.log(
            sigma_i ** 2 + sigma_j ** 2)
    elif kind_i == kind_j == "laplacian":
        c = math.log(2.0) + math.log(sigma_i) + math.log(sigma_j) - math.log(sigma_i + sigma_j)
    else:
        s, t = (sigma_i, sigma_j) if kind_i == "gaussian" else (sigma_j, sigma_i)
        c = 0.5 * math.log(2 * math.pi) + math.log(s) + math.log(erfcx(s / (math.sqrt(2.0) * t)))
    return a, b, c


def log_dissimilarity(kind_i: str, sigma_i: float, kind_j: str, sigma_j: float, d: int) -> float:
    """log Delta(k_i, k_j) (paper 003 eq. 7), -inf when the kernels coincide.

    Both kernels factor over the d coordinates (the Gaussian exp(-|r|^2/(2 s^2)) and the
    Laplacian exp(-|r|_1/s) are products of 1-D kernels), so with the 1-D integrals
    a = int k_i^2, b = int k_j^2, c = int k_i k_j (:func:`_log_factors`)

        Delta = int_{R^d} (k_i - k_j)^2 = a^d + b^d - 2 c^d,

    evaluated as a signed log-sum-exp of d log a, d log b, log 2 + d log c so that large d
    (a^d overflowing) stays finite.
    """
    from scipy.special import logsumexp  # noqa: PLC0415

    for name, kind in (("kind_i", kind_i), ("kind_j", kind_j)):
        if kind not in _DISSIM_KINDS:
            raise ValueError(f"{name} must be one of {_DISSIM_KINDS}, got {kind!r}")
    sigma_i = check_positive(sigma_i, "sigma_i")
    sigma_j = check_positive(sigma_j, "sigma_j")
    d = check_int(d, "d")
    if kind_i == kind_j and sigma_i == sigma_j:
        return -math.inf
    a, b, c = _log_factors(kind_i, sigma_i, kind_j, sigma_j)
    val, sign = logsumexp([d * a, d * b, math.log(2.0) + d * c], b=[1.0, 1.0, -1.0], return_sign=True)
    if sign <= 0:        # only round-off can make a^d + b^d - 2c^d <= 0 (Cauchy-Schwarz: c^2 <= ab)
        return -math.inf
    return float(val)


def dissimilarity(kind_i: str, sigma_i: float, kind_j: str, sigma_j: float, d: int) -> float:
    """Kernel dissimilarity of paper 003 eq. (7): Delta(k_i, k_j) = int_{R^d} |k_i(r) - k_j(r)|^2 dr.

    kind 'gaussian': k(r) = exp(-|r|_2^2/(2 sigma^2)); 'laplacian': k(r) = exp(-|r|_1/sigma).
    Closed forms for the Gaussian-Gaussian, Laplacian-Laplacian and Gaussian-Laplacian pairs
    (see :func:`log_dissimilarity`, computed in log space; the result is inf only when the
    true value exceeds the float64 range).
    """
    log_delta = log_dissimilarity(kind_i, sigma_i, kind_j, sigma_j, d)
    return math.exp(log_delta) if log_delta < 709.7 else math.inf


def dissimilarity_matrix(kinds, sigmas, d: int, log: bool = False) -> np.ndarray:
    """(N, N) matrix of Delta(k_i, k_j) (or its log) for a dictionary (paper 003 Alg. 1 input).

    Vectorised form of :func:`log_dissimilarity` (same closed forms, all pairs at once)."""
    from scipy.special import erfcx  # noqa: PLC0415

    kinds = list(kinds)
    s = np.asarray(sigmas, dtype=np.float64)
    if len(kinds) != s.shape[0]:
        raise ValueError(f"sigmas has {s.shape[0]} entries but kinds has {len(kinds)}")
    for i, k in enumerate(kinds):
        if k not in _DISSIM_KINDS:
            raise ValueError(f"kinds[{i}] must be one of {_DISSIM_KINDS}, got {k!r}")
    if not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ValueError("sigmas must be finite and > 0")
    d = check_int(d, "d")
    g = np.array([k == "gaussian" for k in kinds])
    self_log = np.where(g, np.log(np.sqrt(np.pi) * s), np.log(s))
    si, sj = s[:, None], s[None, :]
    gi, gj = g[:, None], g[None, :]
    c_gg = 0.5 * np.log(2 * np.pi) + np.log(si) + np.log(sj) - 0.5 * np.log(si ** 2 + sj ** 2)
    c_ll = np.log(2.0) + np.log(si) + np.log(sj) - np.log(si + sj)
    gs = np.where(gi, si, sj) * np.ones_like(sj)          # the Gaussian's sigma of a mixed pair
    lt = np.where(gi, sj, si) * np.ones_like(si)          # the Laplacian's sigma
    c_gl = 0.5 * np.log(2 * np.pi) + np.log(gs) + np.log(erfcx(gs / (np.sqrt(2.0) * lt)))
    c = np.where(gi & gj, c_gg, np.where(~gi & ~gj, c_ll, c_gl))
    a, b = d * self_log[:, None] + 0 * sj, d * self_log[None, :] + 0 * si
    top = np.maximum(np.maximum(a, b), np.log(2.0) + d * c)
    with np.errstate(divide="ignore"):
        out = top + np.log(np.maximum(np.exp(a - top) + np.exp(b - top) - 2.0 * np.exp(d * c - top), 0.0))
    same = (gi == gj) & (si == sj)
    out[same] = -np.inf
    return out if log else np.exp(np.minimum(out, 709.7))
