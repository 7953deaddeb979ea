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

import numpy as np

from ._validation import check_int, check_positive, check_scalar

__all__ = ["gaussian", "laplacian", "polynomial", "linear", "kernel_matrix",
           "Kernel", "Gaussian", "Laplacian", "Polynomial", "Linear", "make_kernel"]


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
