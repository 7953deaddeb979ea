"""Paper 001, Sec. 3.2 / Lemma 1: the randomized unbiased estimator of f(E[X]) for an analytic f."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..validation import check_int, check_p, check_scalar


def sample_geometric(p, rng, size=None):
    """Draw ``N`` with ``P(N = n) = (p - 1) / p^(n + 1)``, ``n = 0, 1, ...`` (Sec. 3.2).

    ``numpy``'s geometric law counts trials up to the first success (support 1, 2, ...);
    with success probability ``1 - 1/p`` the count minus one has exactly this law.
    """
    p = check_p(p)
    return rng.geometric(1.0 - 1.0 / p, size=size) - 1


def _coef_value(coef, n: int) -> float:
    g = coef(n)
    if isinstance(g, bool) or not isinstance(g, numbers.Real) or not math.isfinite(float(g)):
        raise ValueError(f"coef({n}) must be a finite real number, got {g!r}")
    return float(g)


def estimate_analytic(coef, draw, p, rng):
    """Paper 001, Sec. 3.2 and Lemma 1: unbiased estimate of ``f(E[X])``.

    ``f(x) = sum_n gamma_n x^n`` is given by ``coef(n) -> gamma_n``; ``draw()`` returns one
    independent sample of ``X``. Draws ``N`` with ``P(N = n) = (p-1)/p^(n+1)``, samples
    ``x_1..x_N`` and returns ``(theta, N)`` with ``theta = gamma_N p^(N+1)/(p-1) x_1...x_N``
    (``theta = p/(p-1) gamma_0`` when ``N = 0``). Lemma 1: ``E[theta] = f(E[X])``,
    ``E[N] = 1/(p-1)``, ``P(N >= z) = p^-z``, ``E[theta^2] <= p/(p-1) f_+^2(sqrt(p E[X^2]))``.

    Parameters
    ----------
    coef : callable
        ``coef(n) -> gamma_n``, the Taylor coefficients of f.
    draw : callable
        ``draw() -> float``, one independent sample of X per call.
    p : float
        The sample parameter p > 1 of ``P(N = n) = (p-1)/p^(n+1)``.
    rng : numpy.random.Generator
        Source of N.

    Returns
    -------
    theta : float
        The estimate, ``E[theta] = f(E[X])``.
    n_samples : int
        N, the number of samples of X used.

    Examples
    --------
    Estimate ``exp(E[X])`` from samples of X ~ N(0.5, 0.3^2) (``gamma_n = 1/n!``):

    >>> import math, numpy as np, omkl_core as ok
    >>> rng = np.random.default_rng(0)
    >>> draw = lambda: rng.normal(0.5, 0.3)
    >>> est = [ok.noisy.estimate_analytic(lambda n: 1 / math.factorial(n), draw, 2.0, rng)[0]
    ...        for _ in range(20000)]
    >>> bool(abs(np.mean(est) - math.exp(0.5)) < 5 * np.std(est) / np.sqrt(len(est)))
    True
    """
    p = check_p(p)
    if not callable(coef):
        raise TypeError("coef must be a callable n -> gamma_n")
    if not callable(draw):
        raise TypeError("draw must be a callable returning one sample of X")
    n = int(sample_geometric(p, rng))
    prod = 1.0
    for _ in range(n):
        x = check_scalar(draw(), "draw()")
        prod *= x
    theta = _coef_value(coef, n) * p ** (n + 1) / (p - 1.0) * prod
    return theta, n


def estimate_analytic_many(coef, sampler, p, rng, size: int):
    """``size`` independent draws of the Lemma 1 estimator, vectorised.

    ``sampler(rng, k)`` returns ``k`` independent samples of ``X`` as a 1-D array. Returns
    ``(theta, N)`` arrays of length ``size``; same law as :func:`estimate_analytic`.
    """
    p = check_p(p)
    size = check_int(size, "size", minimum=1)
    if not callable(coef):
        raise TypeError("coef must be a callable n -> gamma_n")
    N = sample_geometric(p, rng, size=size)
    total = int(N.sum())
    xs = np.asarray(sampler(rng, total), dtype=np.float64).reshape(-1)
    if xs.shape[0] != total:
        raise ValueError(f"sampler returned {xs.shape[0]} samples, expected {total}")
    if not np.all(np.isfinite(xs)):
        raise ValueError("sampler returned NaN or inf")
    prods = np.ones(size)
    nz = N > 0
    if np.any(nz):
        starts = np.cumsum(N) - N
        prods[nz] = np.multiply.reduceat(xs, starts[nz])
    gammas = np.array([_coef_value(coef, n) for n in range(int(N.max()) + 1)])
    theta = gammas[N] * np.power(p, N + 1.0) / (p - 1.0) * prods
    return theta, N
