"""Paper 001: Cesa-Bianchi, Shalev-Shwartz & Shamir, *Online Learning of Noisy Data with
Kernels* (COLT 2010) -- unbiased estimators of non-linear functions and noisy-input kernel
online gradient descent.

What is here, in the paper's notation
-------------------------------------
* :func:`estimate_analytic` -- the randomized estimator of Sec. 3.2 / Lemma 1: draw
  ``N`` with ``P(N = n) = (p-1)/p^(n+1)``, draw ``X`` independently ``N`` times and return
  ``theta = gamma_N p^(N+1)/(p-1) x_1 ... x_N``; ``E[theta] = f(E[X])`` for
  ``f(x) = sum_n gamma_n x^n``. :func:`estimate_analytic_many` is the vectorised version.
* Noise laws and oracles (Sec. 2): an oracle ``A_t`` returns independent copies
  ``x_t + Z_t`` with ``E[Z_t] = 0`` and ``E||Z_t||^2`` finite; :class:`Oracle` counts its
  queries. Laws: :class:`NoNoise`, :class:`GaussianNoise`, :class:`UniformNoise`,
  :class:`StudentTNoise` (heavier tails, finite variance for ``df > 2``),
  :class:`LaplaceNoise`, :class:`CenteredDiscreteNoise` (the noisy twin of Thm. 3 / Thm. 5)
  and :class:`AdversarialScaleNoise` (a per-round scale chosen by the adversary).
* :class:`DotProductKernel` -- ``k(x, x') = Q(<x, x'>) = sum_n beta_n <x, x'>^n`` with
  ``beta_n >= 0`` (Sec. 5.2): feature map (before eq. 2), unbiased map estimate eq. (2),
  ``Map_Estimate`` (Subroutine 2), ``Prod`` (Subroutines 3 and 4), Lemma 3's bound.
  Constructors :func:`linear_kernel`, :func:`polynomial_kernel`, :func:`exponential_kernel`.
* :class:`GaussianKernel` -- ``k(x, x') = exp(-||x - x'||^2 / sigma^2)`` (Appendix B): eq.
  (6), ``Map_Estimate`` (Subroutine 5), ``Prod`` (Subroutines 6 and 7). NB the paper's
  ``sigma^2`` is ``2 sigma^2`` of :func:`omkl_core.kernels.gaussian`.
* :func:`grad_length_estimate` -- Subroutine 1 (Lemma 2).
* :class:`NoisyKernelOGD` -- Algorithm 1 with the projection onto ``||w||^2 <= B_w``.
* :class:`SingleCopyKernelOGD` -- the baseline the paper argues against (Sec. 3.1, Thm. 3):
  plain projected kernel OGD fed one noisy copy per round.
* Losses of Examples 1-4 with the Taylor coefficients ``gamma_n`` of their derivatives:
  :class:`SquaredLoss`, :class:`ExponentialLoss`, :class:`SmoothedAbsoluteLoss`,
  :class:`SmoothedHingeLoss`.
* :func:`best_in_ball` -- the comparator ``min_{||w||^2 <= B_w} sum_t loss`` of eq. (1).

Deviations from the printed text (each one checked by a test, see THEORY.md)
--------------------------------------------------------------------------
1. Algorithm 1's projection prints ``alpha_i := alpha_i sqrt(B_w)/n_t``; a projection onto
   ``||w||^2 <= B_w`` (Sec. 3.1: "rescaling the norm ... to have squared norm at most
   B_w", and the analysis of Thm. 4 / App. D) needs ``alpha_i sqrt(B_w / n_t)``. Default
   ``projection="exact"``; ``projection="printed"`` gives the literal formula.
2. Subroutine 1 prints ``g_t = y_t gamma_n p^(n+1)/(p-1) prod_j <w_t, Psi_j>``, which is an
   unbiased estimate of ``y_t l'(<w_t, Psi(x_t)>)``; Lemma 2 (and the gradient) need
   ``y_t l'(y_t <w_t, Psi(x_t)>)``, i.e. ``prod_j (y_t <w_t, Psi_j>)``. The two agree for
   ``y_t = 1`` or an even ``l'``; we implement Lemma 2's quantity.
3. Appendix B's feature map of the Gaussian kernel prints the coefficient
   ``(2/sigma^2)^n / n!`` where ``sqrt((2/sigma^2)^n / n!)`` is needed for
   ``<Psi(x), Psi(x')> = k(x, x')``; eq. (6), Subroutines 6-7 inherit it. Default
   ``variant="corrected"``; ``variant="printed"`` keeps the printed coefficients, which
   estimate the kernel ``e^{-|x|^2/s^2} e^{-|x'|^2/s^2} sum_n (2/s^2)^{2n}/(n!)^2 <x,x'>^n``
   instead (see :meth:`GaussianKernel.kernel`).
4. Regression losses (``l(<w, Psi(x)> - y)``) are supported as the paper says they can be
   "with slight modifications": the estimated quantity is ``l'(<w_t, Psi(x_t)> - y_t)`` and
   Lemma 2's bound then uses ``E[X^2] <= (sqrt(B_w B_Psi) + |y|)^2``.
5. Lemma 5's printed bound ``(p/(p-1))^2 exp((sqrt(p) B + 2p sqrt(B))/sigma^2)`` is violated
   (the proof drops a square); :meth:`GaussianKernel.feature_norm_bound` returns the bound the
   proof gives, ``(p/(p-1))^2 exp(2 (sqrt(p) + p) B / sigma^2)`` (printed one:
   :meth:`GaussianKernel.feature_norm_bound_printed`), and ``eta="theorem"`` uses it.
6. Examples 3-4: App. C's ``sigma`` is ``s``; the printed bounds on ``l'_+`` of Example 3
   (main text) and Example 4 (both forms) fail; the smoothed hinge's ``l'`` is expanded about
   ``a = 0`` (the expansion Lemma 1 needs), see :class:`SmoothedHingeLoss`.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special

from . import kernels as _kernels
from ._validation import check_int, check_matrix, check_point, check_positive, check_scalar
from .backend import host_rng

__all__ = [
    "check_p", "sample_geometric", "estimate_analytic", "estimate_analytic_many",
    "Oracle", "NoiseLaw", "NoNoise", "GaussianNoise", "UniformNoise", "StudentTNoise",
    "LaplaceNoise", "CenteredDiscreteNoise", "AdversarialScaleNoise",
    "EstimateStore", "DotProductKernel", "linear_kernel", "polynomial_kernel",
    "exponential_kernel", "GaussianKernel", "grad_length_estimate",
    "SquaredLoss", "ExponentialLoss", "SmoothedAbsoluteLoss", "SmoothedHingeLoss",
    "NoisyKernelOGD", "SingleCopyKernelOGD", "best_in_ball",
]


# ----------------------------------------------------------------------------------------
# Lemma 1: the randomized estimator of f(E[X]) for an analytic f
# ----------------------------------------------------------------------------------------
def check_p(p) -> float:
    """The sample parameter ``p > 1`` of Lemma 1 / Algorithm 1."""
    p = check_scalar(p, "p")
    if p <= 1.0:
        raise ValueError(f"p must be > 1 (P(N = n) = (p-1)/p^(n+1)), got {p!r}")
    return p


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


# ----------------------------------------------------------------------------------------
# Noise oracles (Sec. 2)
# ----------------------------------------------------------------------------------------
class Oracle:
    """The oracle ``A_t`` of Sec. 2: each query returns an independent copy ``x_t + Z_t``.

    ``query(n)`` returns an ``(n, d)`` array of fresh noisy copies; ``n_queries`` counts all
    copies returned so far (the quantity of Thms. 1-2's first bullet).
    """

    def __init__(self, x, law: "NoiseLaw", rng, scale: float = 1.0):
        self.x = check_point(x, name="x")
        self.law = law
        self.rng = rng
        self.scale = float(scale)
        self.n_queries = 0

    @property
    def d(self) -> int:
        return self.x.shape[0]

    def query(self, n: int = 1) -> np.ndarray:
        n = check_int(n, "n", minimum=0)
        self.n_queries += n
        Z = self.law.sample(self.rng, n, self.d)
        return self.x[None, :] + self.scale * Z

    def second_moment(self) -> float:
        """``E||x~||^2 = ||x||^2 + E||Z||^2`` (the ``B_x~`` of Thms. 1-2 for this round)."""
        return float(self.x @ self.x) + self.scale ** 2 * self.law.noise_second_moment(self.d)


class NoiseLaw:
    """A zero-mean noise law on R^d with finite ``E||Z||^2`` (Sec. 2)."""

    def sample(self, rng, n: int, d: int) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def noise_second_moment(self, d: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def oracle(self, x, rng, t: int | None = None) -> Oracle:
        """The oracle ``A_t`` for instance ``x`` (``t``: the round, used by adversaries)."""
        return Oracle(x, self, rng)


class NoNoise(NoiseLaw):
    """``Z = 0``: the oracle returns ``x`` itself (the standard, noise-free setting)."""

    def sample(self, rng, n, d):
        return np.zeros((n, d))

    def noise_second_moment(self, d):
        return 0.0


class GaussianNoise(NoiseLaw):
    """``Z ~ N(0, scale^2 I_d)``; ``E||Z||^2 = d scale^2``."""

    def __init__(self, scale: float):
        self.scale = check_positive(scale, "scale")

    def sample(self, rng, n, d):
        return self.scale * rng.standard_normal((n, d))

    def noise_second_moment(self, d):
        return d * self.scale ** 2


class UniformNoise(NoiseLaw):
    """``Z`` uniform on ``[-half_width, half_width]^d``; ``E||Z||^2 = d half_width^2 / 3``."""

    def __init__(self, half_width: float):
        self.half_width = check_positive(half_width, "half_width")

    def sample(self, rng, n, d):
        return rng.uniform(-self.half_width, self.half_width, size=(n, d))

    def noise_second_moment(self, d):
        return d * self.half_width ** 2 / 3.0


class StudentTNoise(NoiseLaw):
    """``Z = scale * t_df`` coordinatewise (heavy tails, finite variance for ``df > 2``);
    ``E||Z||^2 = d scale^2 df / (df - 2)``."""

    def __init__(self, df: float, scale: float = 1.0):
        df = check_scalar(df, "df")
        if df <= 2.0:
            raise ValueError(f"df must be > 2 for a finite variance, got {df!r}")
        self.df = df
        self.scale = check_positive(scale, "scale")

    def sample(self, rng, n, d):
        return self.scale * rng.standard_t(self.df, size=(n, d))

    def noise_second_moment(self, d):
        return d * self.scale ** 2 * self.df / (self.df - 2.0)


class LaplaceNoise(NoiseLaw):
    """``Z`` Laplace(0, scale) coordinatewise; ``E||Z||^2 = 2 d scale^2``."""

    def __init__(self, scale: float):
        self.scale = check_positive(scale, "scale")

    def sample(self, rng, n, d):
        return rng.laplace(0.0, self.scale, size=(n, d))

    def noise_second_moment(self, d):
        return 2.0 * d * self.scale ** 2


class CenteredDiscreteNoise(NoiseLaw):
    """``Z = V - E[V]`` for ``V`` uniform (or ``probs``-weighted) on the rows of ``points``.

    With ``points = [[3], [-1]]`` this is Thm. 3's noisy twin (App. F, strategy 2): the
    adversary shows ``E[V] = 1`` plus this noise, so a single copy is distributed exactly as
    a draw from the uniform law on ``{3, -1}``.
    """

    def __init__(self, points, probs=None):
        P = check_matrix(points, "points")
        if probs is None:
            w = np.full(P.shape[0], 1.0 / P.shape[0])
        else:
            w = np.asarray(probs, dtype=np.float64)
            if w.shape != (P.shape[0],) or np.any(w < 0) or not np.isclose(w.sum(), 1.0):
                raise ValueError("probs must be a probability vector with one entry per point")
        self.points, self.probs = P, w
        self.mean = w @ P

    def sample(self, rng, n, d):
        if d != self.points.shape[1]:
            raise ValueError(f"x has dimension {d}, points have {self.points.shape[1]}")
        idx = rng.choice(self.points.shape[0], size=n, p=self.probs)
        return self.points[idx] - self.mean

    def noise_second_moment(self, d):
        C = self.points - self.mean
        return float(self.probs @ np.einsum("ij,ij->i", C, C))


class AdversarialScaleNoise(NoiseLaw):
    """``Z_t = c_t Z`` with ``Z`` from ``base`` and a per-round scale ``c_t`` picked by the
    adversary (Sec. 2: the noise law "may change from round to round").

    ``scales`` is a callable ``t -> c_t`` or a sequence (used cyclically); each scale must
    satisfy ``abs(c_t) <= max_scale`` so that ``E||Z_t||^2 <= max_scale^2 E||Z||^2`` (the
    uniform bound ``a`` of Sec. 2). The round index is the ``t`` given to :meth:`oracle`
    (or an internal counter when omitted).
    """

    def __init__(self, base: NoiseLaw, scales, max_scale: float):
        if not isinstance(base, NoiseLaw):
            raise TypeError("base must be a NoiseLaw")
        self.base = base
        self.max_scale = check_positive(max_scale, "max_scale")
        if callable(scales):
            self._scale = scales
        else:
            arr = np.asarray(scales, dtype=np.float64).reshape(-1)
            if arr.size == 0 or not np.all(np.isfinite(arr)):
                raise ValueError("scales must be a non-empty finite sequence or a callable")
            self._scale = lambda t: float(arr[t % arr.size])
        self._counter = 0

    def scale_at(self, t: int) -> float:
        c = float(self._scale(int(t)))
        if not math.isfinite(c) or abs(c) > self.max_scale:
            raise ValueError(f"scale at round {t} is {c!r}, outside [-max_scale, max_scale]")
        return c

    def sample(self, rng, n, d):
        return self.base.sample(rng, n, d)

    def noise_second_moment(self, d):
        return self.max_scale ** 2 * self.base.noise_second_moment(d)

    def oracle(self, x, rng, t=None):
        if t is None:
            t = self._counter
            self._counter += 1
        return Oracle(x, self.base, rng, scale=self.scale_at(t))


def _as_law(noise) -> NoiseLaw:
    if noise is None:
        return NoNoise()
    if not isinstance(noise, NoiseLaw):
        raise TypeError(f"noise must be a NoiseLaw (e.g. GaussianNoise(0.1)), got {type(noise).__name__}")
    return noise


# ----------------------------------------------------------------------------------------
# RKHS estimates: a finite data structure for Psi~(x) (Sec. 4.1)
# ----------------------------------------------------------------------------------------
@dataclass
class EstimateStore:
    """A batch of estimates ``Psi~(x_i)`` stored as the paper describes (Sec. 4.1): a finite
    set of vectors of R^d per estimate.

    Both kernels of the paper give estimates of the form ``Psi~ = s * sum_k u_(1,k1)...
    u_(n,kn) e_(n,k1..kn)`` (eq. 2: ``s = sqrt(beta_n) p^(n+1)/(p-1)``, ``u_j = x~^(j)``; eq. 6:
    ``n = N_2``, ``u_j = x~^(2N_1+j)`` and ``s`` the scalar prefactor including the product
    over the ``N_1`` pairs), so that ``<Psi~, Psi~'> = [n = n'] s s' prod_j <u_j, u'_j>``.

    levels  : (m,) int    -- the level ``n`` (block of the feature space) of each estimate;
    scales  : (m,) float  -- the scalar ``s``;
    vectors : (m, L, d)   -- ``u_1..u_n`` padded with zeros to the largest level ``L``;
    copies  : list of (k_i, d) arrays -- all oracle copies used (for the literal Subroutines);
    meta    : list of tuples -- the sampled counts (``(N,)`` or ``(N1, N2)``).
    """

    levels: np.ndarray
    scales: np.ndarray
    vectors: np.ndarray
    copies: list = field(default_factory=list)
    meta: list = field(default_factory=list)

    @classmethod
    def empty(cls, d: int) -> "EstimateStore":
        return cls(np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros((0, 0, d)), [], [])

    def __len__(self) -> int:
        return int(self.levels.shape[0])

    @property
    def d(self) -> int:
        return int(self.vectors.shape[2])

    def sq_norms(self) -> np.ndarray:
        """``||Psi~_i||^2 = Prod(Psi~_i, Psi~_i) = s_i^2 prod_j ||u_ij||^2`` for every row."""
        L = self.vectors.shape[1]
        out = self.scales ** 2
        if L > 0:
            nrm = np.einsum("ajd,ajd->aj", self.vectors, self.vectors)
            active = np.arange(L)[None, :] < self.levels[:, None]
            out = out * np.prod(np.where(active, nrm, 1.0), axis=1)
        return out

    def row(self, i: int) -> "EstimateStore":
        return EstimateStore(self.levels[i:i + 1], self.scales[i:i + 1], self.vectors[i:i + 1],
                             self.copies[i:i + 1], self.meta[i:i + 1])

    def extend(self, other: "EstimateStore") -> None:
        L = max(self.vectors.shape[1], other.vectors.shape[1])
        A = _pad(self.vectors, L)
        B = _pad(other.vectors, L)
        self.vectors = np.concatenate([A, B], axis=0)
        self.levels = np.concatenate([self.levels, other.levels])
        self.scales = np.concatenate([self.scales, other.scales])
        self.copies.extend(other.copies)
        self.meta.extend(other.meta)


def _pad(V: np.ndarray, L: int) -> np.ndarray:
    if V.shape[1] == L:
        return V
    out = np.zeros((V.shape[0], L, V.shape[2]))
    out[:, :V.shape[1]] = V
    return out


def prod_matrix(A: EstimateStore, B: EstimateStore) -> np.ndarray:
    """``Prod(Psi~_a, Psi~_b)`` for every pair (Subroutines 3 / 6, vectorised): an
    ``(len(A), len(B))`` matrix ``[n_a = n_b] s_a s_b prod_{j <= n_a} <u_aj, u_bj>``."""
    L = min(A.vectors.shape[1], B.vectors.shape[1])
    same = A.levels[:, None] == B.levels[None, :]
    out = np.outer(A.scales, B.scales) * same
    if L > 0 and np.any(same):
        dots = np.einsum("ajd,bjd->abj", A.vectors[:, :L], B.vectors[:, :L])
        active = np.arange(L)[None, :] < A.levels[:, None]          # (a, j): j < n_a
        dots = np.where(active[:, None, :], dots, 1.0)
        out = out * np.prod(dots, axis=2)
    return out


# ----------------------------------------------------------------------------------------
# Dot-product kernels (Sec. 5.2, Subroutines 2-4, Lemmas 3-4)
# ----------------------------------------------------------------------------------------
class DotProductKernel:
    """``k(x, x') = Q(<x, x'>) = sum_n beta_n <x, x'>^n`` with ``beta_n >= 0`` (Sec. 5.2).

    ``beta``: a finite sequence ``(beta_0, ..., beta_D)`` (a polynomial kernel; ``beta_n = 0``
    beyond) or a callable ``n -> beta_n``. ``Q`` (optional): a closed form of the series,
    otherwise the series is summed to convergence.

    Feature map (Sec. 5.2): ``Psi(x)`` has entry ``sqrt(beta_n) x_k1...x_kn`` at index
    ``(n, k1..kn)``. Unbiased estimate, eq. (2): with ``N ~ (p-1)/p^(n+1)`` and ``N`` oracle
    copies, ``Psi~(x) = sqrt(beta_N) p^(N+1)/(p-1) sum_k x~^(1)_k1 ... x~^(N)_kN e_(N,k)``.
    """

    def __init__(self, beta, Q=None, name: str = "dot-product"):
        if callable(beta):
            self._beta = beta
            self.degree = None
            for n in range(40):   # the sign condition is checked on the first terms here,
                self.beta_n(n)    # and again on every level actually used
        else:
            b = np.asarray(beta, dtype=np.float64).reshape(-1)
            if b.size == 0:
                raise ValueError("beta must be non-empty")
            if not np.all(np.isfinite(b)):
                raise ValueError("beta contains NaN or inf")
            if np.any(b < 0):
                raise ValueError(f"beta must have beta_n >= 0 for every n (a valid kernel), "
                                 f"got beta_{int(np.flatnonzero(b < 0)[0])} < 0")
            self._coefs = b
            self._beta = lambda n: float(b[n]) if n < b.size else 0.0
            self.degree = b.size - 1
        self._Q = Q
        self.name = name

    def beta_n(self, n: int) -> float:
        b = float(self._beta(int(n)))
        if not math.isfinite(b) or b < 0:
            raise ValueError(f"beta must have beta_n >= 0 for every n (a valid kernel), "
                             f"got beta_{n} = {b!r}")
        return b

    def Q(self, z):
        """``Q(z) = sum_n beta_n z^n`` (closed form when given)."""
        if self._Q is not None:
            return self._Q(z)
        z = np.asarray(z, dtype=np.float64)
        if self.degree is not None:
            return np.polynomial.polynomial.polyval(z, self._coefs)
        total = np.zeros_like(z)
        term_max = np.inf
        n = 0
        while n < 2000 and not (n > 10 and term_max < 1e-17 * max(1.0, float(np.max(np.abs(total))))):
            term = self.beta_n(n) * z ** n
            total = total + term
            term_max = float(np.max(np.abs(term)))
            n += 1
        return total

    def __call__(self, x, xp):
        return self.Q(np.einsum("...i,...i->...", np.asarray(x, float), np.asarray(xp, float)))

    def gram(self, X, Y=None):
        X = np.asarray(X, float)
        Y = X if Y is None else np.asarray(Y, float)
        return self.Q(X @ Y.T)

    # --- Subroutine 2: Map_Estimate(A_t, p) ----------------------------------------------
    def queries_for(self, counts) -> int:
        return int(counts[0])

    def sample_counts(self, p, rng):
        return (int(sample_geometric(p, rng)),)

    def assemble(self, counts_list, copies_list, p) -> EstimateStore:
        """Build :class:`EstimateStore` rows from sampled ``N`` and the oracle copies (eq. 2)."""
        m = len(counts_list)
        d = copies_list[0].shape[1]
        levels = np.array([c[0] for c in counts_list], dtype=np.int64)
        L = int(levels.max()) if m else 0
        V = np.zeros((m, L, d))
        scales = np.empty(m)
        for i, (n,) in enumerate(counts_list):
            V[i, :n] = copies_list[i]
            scales[i] = math.sqrt(self.beta_n(n)) * p ** (n + 1) / (p - 1.0)   # eq. (2)
        return EstimateStore(levels, scales, V, list(copies_list), list(counts_list))

    def map_estimate(self, oracle: Oracle, p, rng) -> EstimateStore:
        """Subroutine 2 ``Map_Estimate(A_t, p)``: sample ``N``, query ``A_t`` ``N`` times,
        return ``x~^(1..N)`` as ``Psi~(x_t)`` (a one-row :class:`EstimateStore`)."""
        p = check_p(p)
        counts = self.sample_counts(p, rng)
        copies = oracle.query(self.queries_for(counts))
        return self.assemble([counts], [copies], p)

    def map_estimate_many(self, x, noise, p, rng, size: int) -> EstimateStore:
        """``size`` independent ``Map_Estimate`` draws for one instance ``x`` (vectorised
        noise draws; same law as repeated :meth:`map_estimate`)."""
        p = check_p(p)
        law = _as_law(noise)
        x = check_point(x, name="x")
        counts = [self.sample_counts(p, rng) for _ in range(size)]
        k = [self.queries_for(c) for c in counts]
        allc = x[None, :] + law.sample(rng, int(sum(k)), x.shape[0])
        splits = np.split(allc, np.cumsum(k)[:-1])
        return self.assemble(counts, splits, p)

    # --- Subroutine 3 / 4: Prod ----------------------------------------------------------
    def prod(self, est_a: EstimateStore, est_b: EstimateStore, p) -> float:
        """Subroutine 3, literally: ``0`` if ``n != n'``, else
        ``beta_n p^(2n+2)/(p-1)^2 prod_j <x~^(j), x~'^(j)>`` (Lemma 4)."""
        (n,), (n2,) = est_a.meta[0], est_b.meta[0]
        if n != n2:
            return 0.0
        xa, xb = est_a.copies[0], est_b.copies[0]
        val = self.beta_n(n) * p ** (2 * n + 2) / (p - 1.0) ** 2
        for j in range(n):
            val *= float(xa[j] @ xb[j])
        return val

    def prod_point(self, est: EstimateStore, xp, p) -> float:
        """Subroutine 4, literally: ``beta_n p^(n+1)/(p-1) prod_j <x~^(j), x'>``."""
        (n,) = est.meta[0]
        val = self.beta_n(n) * p ** (n + 1) / (p - 1.0)
        for j in range(n):
            val *= float(est.copies[0][j] @ xp)
        return val

    def point_factor(self, levels, Xp):
        """``h_n(x')`` with ``<Psi~, Psi(x')> = s h_n(x') prod_j <u_j, x'>``: ``sqrt(beta_n)``."""
        hb = np.array([math.sqrt(self.beta_n(n)) for n in range(int(levels.max(initial=0)) + 1)])
        return np.broadcast_to(hb[levels][:, None], (levels.shape[0], Xp.shape[0]))

    def feature_block(self, n: int, x) -> np.ndarray:
        """The level-``n`` block of the explicit ``Psi(x)`` (``d^n`` entries; small d, n)."""
        x = np.asarray(x, float)
        T = np.array(1.0)
        for _ in range(n):
            T = np.multiply.outer(T, x)
        return math.sqrt(self.beta_n(n)) * T.reshape(-1)

    def feature_norm_bound(self, p, B_x) -> float:
        """Lemma 3: ``E||Psi~(x_t)||^2 <= p/(p-1) Q(p B_x~)``."""
        p = check_p(p)
        return p / (p - 1.0) * float(self.Q(p * B_x))

    def feature_second_moment(self, p, ex2) -> float:
        """The proof of Lemma 3 as an equality: ``E||Psi~||^2 = p/(p-1) sum_n beta_n (p E||x~||^2)^n``."""
        return self.feature_norm_bound(p, ex2)

    expected_queries_per_map = staticmethod(lambda p: 1.0 / (p - 1.0))


def linear_kernel() -> DotProductKernel:
    """``k(x, x') = <x, x'>``: ``beta_1 = 1``."""
    return DotProductKernel([0.0, 1.0], Q=lambda z: np.asarray(z, float), name="linear")


def polynomial_kernel(degree: int, c: float = 1.0) -> DotProductKernel:
    """``k(x, x') = (c + <x, x'>)^degree``: ``beta_n = C(degree, n) c^(degree - n)``."""
    degree = check_int(degree, "degree", minimum=0)
    c = check_scalar(c, "c")
    if c < 0:
        raise ValueError(f"c must be >= 0 (beta_n >= 0), got {c!r}")
    beta = [math.comb(degree, n) * c ** (degree - n) for n in range(degree + 1)]
    return DotProductKernel(beta, Q=lambda z: (c + np.asarray(z, float)) ** degree,
                            name=f"polynomial(degree={degree}, c={c:g})")


def exponential_kernel(scale: float = 1.0) -> DotProductKernel:
    """``k(x, x') = exp(scale <x, x'>)``: ``beta_n = scale^n / n!``."""
    scale = check_positive(scale, "scale")
    return DotProductKernel(lambda n: scale ** n / math.factorial(n),
                            Q=lambda z: np.exp(scale * np.asarray(z, float)),
                            name=f"exponential(scale={scale:g})")


# ----------------------------------------------------------------------------------------
# Gaussian kernel (Appendix B, eq. 6, Subroutines 5-7, Lemmas 5-6)
# ----------------------------------------------------------------------------------------
class GaussianKernel:
    """``k(x, x') = exp(-||x - x'||^2 / sigma^2)`` (paper 001, Sec. 2 and Appendix B).

    ``k = e^{-|x|^2/s^2} e^{-|x'|^2/s^2} sum_n (2/s^2)^n/n! <x, x'>^n`` gives the feature
    map ``Psi(x)_(n,k) = e^{-|x|^2/s^2} c_n x_k1...x_kn`` with ``c_n = sqrt((2/s^2)^n / n!)``
    (``variant="corrected"``; App. B prints ``c_n = (2/s^2)^n / n!``, ``variant="printed"``).

    Eq. (6): with ``N_1, N_2`` iid ``~ (p-1)/p^(n+1)`` and ``2N_1 + N_2`` oracle copies,
    ``Psi~(x) = (-1)^N1 p^(N1+N2+2) / (N1! s^(2 N1) (p-1)^2) * c_N2
    * prod_{j<=N1} <x~^(2j-1), x~^(2j)> * sum_k x~^(2N1+1)_k1 ... x~^(2N1+N2)_kN2 e_(N2,k)``
    (printed: ``c_N2 = 2^N2/(N2! s^(2 N2))``, as in eq. (6)).
    """

    def __init__(self, sigma: float, variant: str = "corrected"):
        self.sigma = check_positive(sigma, "sigma")
        if variant not in ("corrected", "printed"):
            raise ValueError(f"variant must be 'corrected' or 'printed', got {variant!r}")
        self.variant = variant
        self.name = f"gaussian(sigma={self.sigma:g}, {variant})"

    def c_n(self, n: int) -> float:
        a = (2.0 / self.sigma ** 2) ** n / math.factorial(n)
        return math.sqrt(a) if self.variant == "corrected" else a

    def kernel(self, x, xp):
        """``<Psi(x), Psi(x')>`` of the feature map in use: the Gaussian kernel for
        ``variant="corrected"``; for ``"printed"`` the series
        ``e^{-(|x|^2+|x'|^2)/s^2} sum_n ((2/s^2)^n/n!)^2 <x, x'>^n`` (a Bessel function)."""
        x = np.asarray(x, float)
        xp = np.asarray(xp, float)
        s2 = self.sigma ** 2
        if self.variant == "corrected":   # exp(-|r|^2/s^2) = the library's Gaussian at s/sqrt(2)
            return _kernels.gaussian(x, xp, self.sigma / math.sqrt(2.0))
        z = np.einsum("...i,...i->...", x, xp)
        a = 4.0 / s2 ** 2
        pre = np.exp(-(np.einsum("...i,...i->...", x, x) + np.einsum("...i,...i->...", xp, xp)) / s2)
        arg = 2.0 * np.sqrt(np.abs(a * z))
        return pre * np.where(z >= 0, special.i0(arg), special.j0(arg))

    __call__ = kernel

    def gram(self, X, Y=None):
        X = np.asarray(X, float)
        Y = X if Y is None else np.asarray(Y, float)
        return self.kernel(X[:, None, :], Y[None, :, :])

    # --- Subroutine 5: Map_Estimate(A_t, p) ----------------------------------------------
    def queries_for(self, counts) -> int:
        return int(2 * counts[0] + counts[1])

    def sample_counts(self, p, rng):
        return (int(sample_geometric(p, rng)), int(sample_geometric(p, rng)))

    def prefactor(self, n1: int, n2: int, p) -> float:
        """``(-1)^n1 p^(n1+n2+2) / (n1! sigma^(2 n1) (p-1)^2) * c_n2`` of eq. (6)."""
        return ((-1.0) ** n1 * p ** (n1 + n2 + 2)
                / (math.factorial(n1) * self.sigma ** (2 * n1) * (p - 1.0) ** 2) * self.c_n(n2))

    def assemble(self, counts_list, copies_list, p) -> EstimateStore:
        m = len(counts_list)
        d = copies_list[0].shape[1]
        levels = np.array([c[1] for c in counts_list], dtype=np.int64)
        L = int(levels.max()) if m else 0
        V = np.zeros((m, L, d))
        scales = np.empty(m)
        for i, (n1, n2) in enumerate(counts_list):
            C = copies_list[i]
            pairs = np.einsum("jd,jd->j", C[0:2 * n1:2], C[1:2 * n1:2])   # <x~(2j-1), x~(2j)>
            scales[i] = self.prefactor(n1, n2, p) * float(np.prod(pairs))
            V[i, :n2] = C[2 * n1:2 * n1 + n2]
        return EstimateStore(levels, scales, V, list(copies_list), list(counts_list))

    def map_estimate(self, oracle: Oracle, p, rng) -> EstimateStore:
        """Subroutine 5: sample ``N_1, N_2``, query ``A_t`` ``2N_1 + N_2`` times."""
        p = check_p(p)
        counts = self.sample_counts(p, rng)
        copies = oracle.query(self.queries_for(counts))
        return self.assemble([counts], [copies], p)

    map_estimate_many = DotProductKernel.map_estimate_many

    # --- Subroutines 6 / 7: Prod ---------------------------------------------------------
    def prod(self, est_a: EstimateStore, est_b: EstimateStore, p) -> float:
        """Subroutine 6 (``n_2 != n_2'`` -> 0, else the product of the two eq.-(6)
        prefactors times the three inner-product products); Lemma 6."""
        (n1, n2), (m1, m2) = est_a.meta[0], est_b.meta[0]
        if n2 != m2:
            return 0.0
        A, B = est_a.copies[0], est_b.copies[0]
        s2 = self.sigma ** 2
        coef = ((-1.0) ** (n1 + m1) * p ** (n1 + m1 + 2 * n2 + 4) * self.c_n(n2) ** 2
                / (math.factorial(n1) * math.factorial(m1) * s2 ** (n1 + m1) * (p - 1.0) ** 4))
        val = coef
        for j in range(n1):
            val *= float(A[2 * j] @ A[2 * j + 1])
        for j in range(m1):
            val *= float(B[2 * j] @ B[2 * j + 1])
        for j in range(n2):
            val *= float(A[2 * n1 + j] @ B[2 * m1 + j])
        return val

    def prod_point(self, est: EstimateStore, xp, p) -> float:
        """Subroutine 7: ``<Psi~(x), Psi(x')>`` for a known ``x'``."""
        (n1, n2) = est.meta[0]
        A = est.copies[0]
        xp = np.asarray(xp, float)
        s2 = self.sigma ** 2
        val = ((-1.0) ** n1 * p ** (n1 + n2 + 2) * self.c_n(n2) ** 2
               / (math.factorial(n1) * s2 ** n1 * (p - 1.0) ** 2) * math.exp(-float(xp @ xp) / s2))
        for j in range(n1):
            val *= float(A[2 * j] @ A[2 * j + 1])
        for j in range(n2):
            val *= float(A[2 * n1 + j] @ xp)
        return val

    def point_factor(self, levels, Xp):
        """``h_n(x') = e^{-|x'|^2/sigma^2} c_n``."""
        c = np.array([self.c_n(n) for n in range(int(levels.max(initial=0)) + 1)])
        e = np.exp(-np.einsum("kd,kd->k", Xp, Xp) / self.sigma ** 2)
        return c[levels][:, None] * e[None, :]

    def feature_block(self, n: int, x) -> np.ndarray:
        x = np.asarray(x, float)
        T = np.array(1.0)
        for _ in range(n):
            T = np.multiply.outer(T, x)
        return math.exp(-float(x @ x) / self.sigma ** 2) * self.c_n(n) * T.reshape(-1)

    def feature_second_moment(self, p, ex2, m2) -> float:
        """Exact ``E||Psi~(x)||^2`` (corrected variant) given ``ex2 = E||x~||^2`` and
        ``m2 = E<x~, x~'>^2`` for independent copies: ``(p/(p-1))^2 I_0(2 sqrt(p m2)/s^2)
        exp(2 p ex2 / s^2)``; printed variant: ``... I_0(4 sqrt(p ex2)/s^2)`` for the last factor."""
        p = check_p(p)
        s2 = self.sigma ** 2
        first = special.i0(2.0 * math.sqrt(p * m2) / s2)
        if self.variant == "corrected":
            second = math.exp(2.0 * p * ex2 / s2)
        else:
            second = special.i0(4.0 * math.sqrt(p * ex2) / s2)
        return (p / (p - 1.0)) ** 2 * first * second

    def feature_norm_bound(self, p, B_x) -> float:
        """Lemma 5 with the corrected feature map (see THEORY.md):
        ``E||Psi~||^2 <= (p/(p-1))^2 exp(2 (sqrt(p) + p) B_x / sigma^2)``."""
        p = check_p(p)
        return (p / (p - 1.0)) ** 2 * math.exp(2.0 * (math.sqrt(p) + p) * B_x / self.sigma ** 2)

    def feature_norm_bound_printed(self, p, B_x) -> float:
        """Lemma 5 as printed: ``(p/(p-1))^2 exp((sqrt(p) B + 2 p sqrt(B)) / sigma^2)``."""
        p = check_p(p)
        return (p / (p - 1.0)) ** 2 * math.exp((math.sqrt(p) * B_x + 2.0 * p * math.sqrt(B_x))
                                               / self.sigma ** 2)

    expected_queries_per_map = staticmethod(lambda p: 3.0 / (p - 1.0))


def prod_point_matrix(kernel, store: EstimateStore, Xp) -> np.ndarray:
    """``Prod(Psi~_i, x'_k) = <Psi~_i, Psi(x'_k)>`` (Subroutines 4 / 7, vectorised):
    ``s_i h_{n_i}(x'_k) prod_{j <= n_i} <u_ij, x'_k>``, shape ``(len(store), len(Xp))``."""
    Xp = np.atleast_2d(np.asarray(Xp, float))
    L = store.vectors.shape[1]
    out = store.scales[:, None] * kernel.point_factor(store.levels, Xp)
    if L > 0:
        dots = np.einsum("ajd,kd->akj", store.vectors, Xp)
        active = np.arange(L)[None, :] < store.levels[:, None]
        out = out * np.prod(np.where(active[:, None, :], dots, 1.0), axis=2)
    return out


def _check_kernel(kernel):
    if not isinstance(kernel, (DotProductKernel, GaussianKernel)):
        raise TypeError("kernel must be a DotProductKernel (linear_kernel(), polynomial_kernel(), "
                        f"exponential_kernel()) or a GaussianKernel, got {type(kernel).__name__}")
    return kernel


# ----------------------------------------------------------------------------------------
# Losses of Examples 1-4 (Sec. 4.2, Appendix C)
# ----------------------------------------------------------------------------------------
class _AnalyticLoss:
    """A convex loss with analytic derivative ``l'(a) = sum_n gamma_n a^n`` (Sec. 2).

    ``kind = "regression"``: the loss is ``l(<w, Psi(x)> - y)``; ``"classification"``:
    ``l(y <w, Psi(x)>)``.
    """

    kind = "regression"

    def margin(self, score, y):
        score = np.asarray(score, float)
        return score - y if self.kind == "regression" else y * score

    def loss(self, score, y):
        return self(self.margin(score, y))

    def taylor(self, n: int) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def taylor_coefficients(self, n_max: int) -> np.ndarray:
        return np.array([self.taylor(n) for n in range(n_max + 1)])

    def derivative_plus(self, a):
        """``l'_+(a) = sum_n |gamma_n| a^n`` (Thm. 1) for ``a >= 0``, summed to convergence."""
        a = np.asarray(a, float)
        total = np.zeros_like(a)
        n = 0
        with np.errstate(over="ignore", invalid="ignore"):
            return self._sum_plus(a, total, n)

    def _sum_plus(self, a, total, n):
        a = np.abs(a)
        loga = np.log(np.where(a > 0, a, 1.0))
        total = total + abs(self.taylor(0))
        n = 1
        while n < 2000:
            g = abs(self.taylor(n))
            if g > 0:
                # |gamma_n| a^n in log space: a^n alone may overflow while the term does not
                term = np.where(a > 0, np.exp(math.log(g) + n * loga), 0.0)
                total = total + term
            else:
                term = np.zeros_like(a)
            if n > 5 and np.all((term <= 1e-17 * total) | ~np.isfinite(total)):
                break
            n += 1
        return total


class SquaredLoss(_AnalyticLoss):
    """Example 1: ``l(a) = a^2`` (regression: ``a = <w, Psi(x)> - y``); ``l'(a) = 2a``,
    ``gamma_1 = 2``; ``l'_+(a) = 2a``."""

    kind = "regression"

    def __call__(self, a):
        return np.asarray(a, float) ** 2

    def derivative(self, a):
        return 2.0 * np.asarray(a, float)

    def taylor(self, n):
        return 2.0 if n == 1 else 0.0

    def derivative_plus(self, a):
        return 2.0 * np.asarray(a, float)

    def stated_bound(self, a):
        """Example 1: ``l'_+(sqrt((p-1)u)) = 2 sqrt((p-1)u)`` -- an equality."""
        return 2.0 * np.asarray(a, float)


class ExponentialLoss(_AnalyticLoss):
    """Example 2: ``l(a) = e^a`` with ``a = y <w, x>`` as printed (``sign=-1`` gives the usual
    ``e^{-a}``); ``gamma_n = sign^n / n!``; ``l'_+(a) = e^a``."""

    kind = "classification"

    def __init__(self, sign: int = 1):
        if sign not in (1, -1):
            raise ValueError(f"sign must be +1 or -1, got {sign!r}")
        self.sign = sign

    def __call__(self, a):
        return np.exp(self.sign * np.asarray(a, float))

    def derivative(self, a):
        return self.sign * np.exp(self.sign * np.asarray(a, float))

    def taylor(self, n):
        return self.sign ** (n + 1) / math.factorial(n)

    def derivative_plus(self, a):
        return np.exp(np.asarray(a, float))

    def stated_bound(self, a):
        """Example 2: ``l'_+(a) = e^a`` -- an equality."""
        return np.exp(np.asarray(a, float))


class SmoothedAbsoluteLoss(_AnalyticLoss):
    """Example 3 / App. C: ``l(a) = a erf(s a) + e^{-s^2 a^2} / (s sqrt(pi))`` (the printed
    ``sigma`` in the second term is ``s``), ``l'(a) = erf(s a)``, regression loss.

    ``gamma_(2m+1) = 2/sqrt(pi) (-1)^m s^(2m+1) / (m! (2m+1))``, even ones 0, hence
    ``l'_+(a) = erfi(s a)``.
    """

    kind = "regression"

    def __init__(self, s: float = 1.0):
        self.s = check_positive(s, "s")

    def __call__(self, a):
        a = np.asarray(a, float)
        s = self.s
        return a * special.erf(s * a) + np.exp(-s * s * a * a) / (s * math.sqrt(math.pi))

    def derivative(self, a):
        return special.erf(self.s * np.asarray(a, float))

    def taylor(self, n):
        if n % 2 == 0:
            return 0.0
        m = (n - 1) // 2
        return 2.0 / math.sqrt(math.pi) * (-1) ** m * self.s ** n / (math.factorial(m) * n)

    def derivative_plus(self, a):
        return special.erfi(self.s * np.asarray(a, float))

    def stated_bound(self, a):
        """App. C's bound for this loss with the typos fixed (``sigma -> s``, the ``-1``
        outside the exponent): ``l'_+(a) <= 2 (e^{s^2 a^2} - 1) / (a s sqrt(pi))``, a > 0."""
        a = np.asarray(a, float)
        return 2.0 * np.expm1(self.s ** 2 * a * a) / (a * self.s * math.sqrt(math.pi))

    def printed_bound(self, a):
        """Example 3 as printed in Sec. 4.2: ``1/2 + (e^{s^2 a^2} - 1) / (s sqrt(pi) a)``
        (with ``a = sqrt((p-1)u)``); fails for large ``a`` (see tests)."""
        a = np.asarray(a, float)
        return 0.5 + np.expm1(self.s ** 2 * a * a) / (self.s * math.sqrt(math.pi) * a)


class SmoothedHingeLoss(_AnalyticLoss):
    """Example 4 / App. C: ``l(a) = (a-1)(erf(s(a-1)) - 1)/2 + e^{-s^2 (a-1)^2} / (2 sqrt(pi) s)``,
    ``l'(a) = (erf(s(a-1)) - 1)/2``, classification loss (``a = y <w, Psi(x)>``).

    The Taylor coefficients of ``l'`` about ``a = 0`` (the ones Lemma 1 uses) are
    ``gamma_0 = (erf(-s) - 1)/2`` and, for ``n >= 1``,
    ``gamma_n = s^n H_(n-1)(s) e^{-s^2} / (sqrt(pi) n!)`` (``H`` the physicists' Hermite
    polynomials, from ``erf^(n)(z) = 2/sqrt(pi) (-1)^(n-1) H_(n-1)(z) e^{-z^2}``).
    """

    kind = "classification"

    def __init__(self, s: float = 1.0):
        self.s = check_positive(s, "s")
        self._cache: dict[int, float] = {}

    def __call__(self, a):
        a = np.asarray(a, float)
        s = self.s
        b = a - 1.0
        return b * (special.erf(s * b) - 1.0) / 2.0 + np.exp(-s * s * b * b) / (2.0 * math.sqrt(math.pi) * s)

    def derivative(self, a):
        return (special.erf(self.s * (np.asarray(a, float) - 1.0)) - 1.0) / 2.0

    def taylor(self, n):
        """``gamma_n``; ``H_(n-1)(s)`` via the normalised recurrence
        ``h_(k+1) = s sqrt(2/(k+1)) h_k - sqrt(k/(k+1)) h_(k-1)`` for ``h_k = H_k(s)/sqrt(2^k k!)``
        and logarithms, so no factorial or Hermite value overflows."""
        n = int(n)
        if n == 0:
            return (math.erf(-self.s) - 1.0) / 2.0
        if n not in self._cache:
            s = self.s
            h = getattr(self, "_h", [1.0, s * math.sqrt(2.0)])   # h_0, h_1
            while len(h) < n:
                k = len(h) - 1
                h.append(s * math.sqrt(2.0 / (k + 1)) * h[k] - math.sqrt(k / (k + 1)) * h[k - 1])
            self._h = h
            hk = h[n - 1]
            if hk == 0.0:
                g = 0.0
            else:
                logg = (n * math.log(s) + math.log(abs(hk)) + 0.5 * ((n - 1) * math.log(2.0) + math.lgamma(n))
                        - s * s - 0.5 * math.log(math.pi) - math.lgamma(n + 1))
                g = math.copysign(math.exp(logg), hk)
            self._cache[n] = g
        return self._cache[n]

    def corrected_bound(self, a):
        """A valid bound (Taylor expansion about 0, not about 1): ``l'_+(a) <= 1/2 +
        erfi(s(a+1))/2 <= 1/2 + (e^{s^2(a+1)^2} - 1) / (s (a+1) sqrt(pi))``; returns the last."""
        b = np.asarray(a, float) + 1.0
        return 0.5 + np.expm1(self.s ** 2 * b * b) / (self.s * b * math.sqrt(math.pi))

    def stated_bound(self, a):
        """App. C's bound for this loss as printed: ``1/2 + (e^{s^2 a^2} - 1)/(a s sqrt(pi))``
        (false near ``a = 0``, where ``l'_+(0) = (1 + erf(s))/2``)."""
        a = np.asarray(a, float)
        return 0.5 + np.expm1(self.s ** 2 * a * a) / (a * self.s * math.sqrt(math.pi))

    def printed_bound(self, a):
        """Example 4 as printed in Sec. 4.2: ``2 e^{s^2 a^2 - 1} / (s sqrt(pi) a)``."""
        a = np.asarray(a, float)
        return 2.0 * np.exp(self.s ** 2 * a * a - 1.0) / (self.s * math.sqrt(math.pi) * a)


def _check_loss(loss):
    if not isinstance(loss, _AnalyticLoss):
        raise TypeError("loss must be one of SquaredLoss, ExponentialLoss, SmoothedAbsoluteLoss, "
                        f"SmoothedHingeLoss, got {type(loss).__name__}")
    return loss


# ----------------------------------------------------------------------------------------
# Subroutine 1: Grad_Length_Estimate (Lemma 2)
# ----------------------------------------------------------------------------------------
def _prod_matrix_loop(kernel, A: EstimateStore, B: EstimateStore, p) -> np.ndarray:
    """Reference: the literal Subroutine 3 / 6 called pair by pair in a Python loop."""
    return np.array([[kernel.prod(A.row(i), B.row(j), p) for j in range(len(B))]
                     for i in range(len(A))]).reshape(len(A), len(B))


def grad_length_estimate(kernel, loss, store: EstimateStore, alpha, oracle: Oracle, y, p, rng,
                         prod_mode: str = "vectorised"):
    """Subroutine 1 ``Grad_Length_Estimate(A_t, y_t, p)`` for ``w_t = sum_i alpha_i Psi~_i``.

    Draws ``n ~ (p-1)/p^(n+1)``, ``n`` fresh ``Psi~(x_t)_j = Map_Estimate(A_t)`` and returns
    the Lemma 1 estimator of ``f = l'`` at ``X = y_t <w_t, Psi~(x_t)_j>`` (classification;
    the result is multiplied by ``y_t``) or ``X = <w_t, Psi~(x_t)_j> - y_t`` (regression):

        g~_t = [y_t] gamma_n p^(n+1)/(p-1) prod_j X_j,   X_j from sum_i alpha_i Prod(Psi~_i, Psi~_j).

    Lemma 2: ``E_t[g~_t] = y_t l'(y_t <w_t, Psi(x_t)>)`` (classification) and
    ``E_t[g~_t^2] <= p/(p-1) l'_+(sqrt(p B_w B_Psi))^2``. Returns ``g~_t``.
    ``prod_mode="loop"`` evaluates the Prods one pair at a time (the naive reference).
    """
    p = check_p(p)
    n = int(sample_geometric(p, rng))
    X = np.empty(n)
    if n > 0:
        ests = [kernel.map_estimate(oracle, p, rng) for _ in range(n)]
        batch = ests[0]
        for e in ests[1:]:
            batch.extend(e)
        if len(store) > 0:
            P = (prod_matrix(store, batch) if prod_mode == "vectorised"
                 else _prod_matrix_loop(kernel, store, batch, p))
            inner = np.asarray(alpha, float) @ P                            # <w_t, Psi~_j>
        else:
            inner = np.zeros(n)
        X = y * inner if loss.kind == "classification" else inner - y
    theta = loss.taylor(n) * p ** (n + 1) / (p - 1.0) * float(np.prod(X))
    return y * theta if loss.kind == "classification" else theta


# ----------------------------------------------------------------------------------------
# Algorithm 1
# ----------------------------------------------------------------------------------------
class NoisyKernelOGD:
    """Paper 001, Algorithm 1 (Kernel Learning Algorithm with Noisy Input).

    ``w_t = sum_{i<t} alpha_i Psi~(x_i)``. At round ``t`` the learner receives the oracle
    ``A_t`` and ``y_t``, builds ``Psi~(x_t) = Map_Estimate(A_t, p)`` (Subroutine 2 / 5) and
    ``g~_t = Grad_Length_Estimate(A_t, y_t, p)`` (Subroutine 1), sets
    ``alpha_t = -g~_t eta / sqrt(T)``, computes ``n~_t = sum_ij alpha_i alpha_j Prod(Psi~_i, Psi~_j)``
    and, if ``n~_t > B_w``, rescales ``alpha_i <- alpha_i sqrt(B_w / n~_t)`` (the projection
    onto ``||w||^2 <= B_w``; ``projection="printed"`` uses the printed ``sqrt(B_w) / n~_t``).

    Parameters
    ----------
    kernel : DotProductKernel | GaussianKernel
    loss : SquaredLoss | ExponentialLoss | SmoothedAbsoluteLoss | SmoothedHingeLoss
    T : int -- the horizon (step size ``eta / sqrt(T)``, Sec. 4.1).
    eta : float or "theorem" -- learning rate; ``"theorem"`` takes Thm. 4's
        ``eta = sqrt(B_w / (B_g B_Psi))`` with ``B_Psi`` from Lemma 3 / 5 and ``B_g`` from
        Lemma 2 (needs ``B_x``; equals Thms. 1-2's ``B_w / (sqrt(u) l'_+(sqrt((p-1)u)))``).
    p : float > 1 -- sample parameter.
    B_w : float > 0 -- squared-norm radius of the comparison class.
    B_x : float > 0 -- bound on ``E||x~_t||^2`` (only for ``eta="theorem"``).
    y_max : float -- bound on ``abs(y_t)`` (regression losses with ``eta="theorem"``).
    noise : NoiseLaw or None -- used when ``learn_one`` gets a plain vector: the learner then
        builds the oracle ``A_t`` from it (noise drawn from ``noise_seed``). ``learn_one``
        also accepts an :class:`Oracle` directly.
    seed : the learner's own randomness (``N``, ``n``).
    prod_mode : "vectorised" (one array expression over all stored estimates per round) or
        "loop" (the literal Subroutines 3 / 6 pair by pair in Python; the naive reference,
        same numbers up to round-off).
    norm_update : "incremental" (``n~_t`` from ``||w_t||^2 + 2 alpha_t <w_t, Psi~_t> +
        alpha_t^2 ||Psi~_t||^2``, O(t) per round) or "recompute" (the printed double sum
        ``sum_ij alpha_i alpha_j Prod(Psi~_i, Psi~_j)``, O(t^2) per round); equal up to round-off.

    Learned state: ``eta_`` (the step-size constant in use), ``alpha_`` (t,), ``store_``
    (the ``Psi~(x_i)``), ``gram_`` (t, t) of
    ``Prod(Psi~_i, Psi~_j)``, ``queries_`` (oracle queries per round), ``grads_`` (``g~_t``),
    ``norms_`` (``n~_t`` before projection), ``t_``.
    """

    def __init__(self, kernel, loss, T: int, eta="theorem", p: float = 2.0, B_w: float = 1.0,
                 B_x: float | None = None, y_max: float = 1.0, projection: str = "exact",
                 noise=None, seed: int = 0, noise_seed: int | None = None,
                 prod_mode: str = "vectorised", norm_update: str = "incremental"):
        self.kernel = _check_kernel(kernel)
        self.loss = _check_loss(loss)
        self.T = check_int(T, "T", minimum=1)
        self.p = check_p(p)
        if prod_mode not in ("vectorised", "loop"):
            raise ValueError(f"prod_mode must be 'vectorised' or 'loop', got {prod_mode!r}")
        self.prod_mode = prod_mode
        if norm_update not in ("incremental", "recompute"):
            raise ValueError(f"norm_update must be 'incremental' or 'recompute', got {norm_update!r}")
        self.norm_update = norm_update
        self.B_w = check_positive(B_w, "B_w")
        self.y_max = check_scalar(y_max, "y_max")
        if projection not in ("exact", "printed"):
            raise ValueError(f"projection must be 'exact' or 'printed', got {projection!r}")
        self.projection = projection
        self.noise = _as_law(noise)
        self.B_x = None if B_x is None else check_positive(B_x, "B_x")
        if isinstance(eta, str):
            if eta != "theorem":
                raise ValueError(f"eta must be a positive number or 'theorem', got {eta!r}")
            if self.B_x is None:
                raise ValueError("eta='theorem' needs B_x (a bound on E||x~_t||^2)")
            from . import bounds  # noqa: PLC0415

            B_psi = bounds.paper001_feature_bound(self.kernel, self.p, self.B_x)
            B_g = bounds.paper001_lemma2_grad_bound(self.loss, self.p, self.B_w, B_psi,
                                                    y_max=self.y_max)
            if not (math.isfinite(B_g) and math.isfinite(B_psi)):
                raise ValueError("eta='theorem' is not representable: the Lemma 2/3/5 bounds "
                                 f"overflow float64 (B_Psi={B_psi:.3g}, B_g={B_g:.3g}); "
                                 "pass an explicit eta or smaller B_w / B_x")
            self.eta_ = bounds.paper001_theorem4_eta(self.B_w, B_g, B_psi)
        else:
            self.eta_ = check_positive(eta, "eta")
        self.eta = eta
        self.seed = seed
        self.noise_seed = noise_seed
        self.reset()

    def reset(self) -> None:
        self.rng_ = host_rng(self.seed)
        self.noise_rng_ = host_rng(self.seed + 1_000_003 if self.noise_seed is None else self.noise_seed)
        self.queries_ = []
        self.grads_ = []
        self.norms_ = []
        self.t_ = 0
        self.d_ = None
        # capacity buffers (doubling), so a round costs O(t) Prods and no O(t^2) copies
        self._cap = 0
        self._alpha = np.zeros(0)
        self._G = np.zeros((0, 0))
        self._lev = np.zeros(0, dtype=np.int64)
        self._sc = np.zeros(0)
        self._V = np.zeros((0, 0, 0))
        self._copies: list = []
        self._meta: list = []
        self._norm2 = 0.0

    # --- learned state (views of the buffers) ---------------------------------------------
    @property
    def alpha_(self) -> np.ndarray:
        """``alpha_{t,1..t}``: ``w_{t+1} = sum_i alpha_i Psi~(x_i)``."""
        return self._alpha[:self.t_]

    @property
    def gram_(self) -> np.ndarray:
        """``G_ij = Prod(Psi~(x_i), Psi~(x_j))`` for the stored estimates."""
        return self._G[:self.t_, :self.t_]

    @property
    def store_(self) -> EstimateStore | None:
        """The stored ``Psi~(x_1..x_t)``."""
        if self.d_ is None:
            return None
        t = self.t_
        return EstimateStore(self._lev[:t], self._sc[:t], self._V[:t], self._copies, self._meta)

    def _reserve(self, n_rows: int, L: int, d: int) -> None:
        if n_rows > self._cap or L > self._V.shape[1]:
            cap = max(self._cap, 16)
            while cap < n_rows:
                cap *= 2
            Lnew = max(L, self._V.shape[1])
            t = self.t_
            G = np.zeros((cap, cap))
            G[:t, :t] = self._G[:t, :t]
            V = np.zeros((cap, Lnew, d))
            if t:
                V[:t, :self._V.shape[1]] = self._V[:t]
            for name, size in (("_alpha", cap), ("_sc", cap)):
                a = np.zeros(size)
                a[:t] = getattr(self, name)[:t]
                setattr(self, name, a)
            lev = np.zeros(cap, dtype=np.int64)
            lev[:t] = self._lev[:t]
            self._G, self._V, self._lev, self._cap = G, V, lev, cap

    # --- helpers ---------------------------------------------------------------------------
    def _oracle(self, x) -> Oracle:
        if isinstance(x, Oracle):
            orc = x
        else:
            orc = self.noise.oracle(check_point(x, self.d_, "x"), self.noise_rng_, t=self.t_)
        if self.d_ is not None and orc.d != self.d_:
            raise ValueError(f"x has dimension {orc.d}, expected d={self.d_}")
        return orc

    def score(self, X) -> np.ndarray:
        """``<w_t, Psi(x')>`` for each row of ``X``: ``sum_i alpha_i Prod(Psi~_i, x')``."""
        X = np.atleast_2d(np.asarray(X, float))
        if self.t_ == 0:
            return np.zeros(X.shape[0])
        return self.alpha_ @ prod_point_matrix(self.kernel, self.store_, X)

    def predict_one(self, x) -> float:
        x = check_point(x, self.d_, "x")
        return float(self.score(x[None, :])[0])

    def norm2(self) -> float:
        """``||w_t||^2 = alpha^T G alpha`` with ``G_ij = Prod(Psi~_i, Psi~_j)``."""
        return float(self.alpha_ @ self.gram_ @ self.alpha_) if self.t_ else 0.0

    # --- one round of Algorithm 1 ---------------------------------------------------------
    def learn_one(self, x, y) -> None:
        """One round: ``x`` is the oracle ``A_t`` (an :class:`Oracle`) or an instance that
        the learner's ``noise`` law turns into one."""
        y = check_scalar(y, "y")
        orc = self._oracle(x)
        q0 = orc.n_queries
        p, t = self.p, self.t_
        psi_t = self.kernel.map_estimate(orc, p, self.rng_)                  # Map_Estimate
        store = self.store_ if t else EstimateStore.empty(orc.d)
        g = grad_length_estimate(self.kernel, self.loss, store, self.alpha_, orc, y, p,
                                 self.rng_, self.prod_mode)                   # Grad_Length_Estimate
        self.d_ = orc.d
        self._reserve(t + 1, psi_t.vectors.shape[1], orc.d)
        n_new = int(psi_t.levels[0])
        self._lev[t] = n_new
        self._sc[t] = psi_t.scales[0]
        self._V[t, :n_new] = psi_t.vectors[0, :n_new]
        self._copies.extend(psi_t.copies)
        self._meta.extend(psi_t.meta)
        self.t_ = t + 1
        if self.prod_mode == "vectorised":
            row = prod_matrix(self.store_, psi_t)[:, 0]                      # Prod(Psi~_i, Psi~_t)
        else:
            row = _prod_matrix_loop(self.kernel, self.store_, psi_t, p)[:, 0]
        self._G[:t + 1, t] = row
        self._G[t, :t + 1] = row
        a_t = -g * self.eta_ / math.sqrt(self.T)                             # gradient step
        self._alpha[t] = a_t
        alpha = self._alpha[:t + 1]
        # squared norm n~_t = sum_ij alpha_i alpha_j Prod(Psi~_i, Psi~_j), updated in O(t):
        # ||w_t + a_t Psi~_t||^2 = ||w_t||^2 + 2 a_t <w_t, Psi~_t> + a_t^2 ||Psi~_t||^2
        n_t = self._norm2 + 2.0 * a_t * float(alpha[:t] @ row[:t]) + a_t * a_t * float(row[t])
        if self.norm_update == "recompute":
            n_t = float(alpha @ (self._G[:t + 1, :t + 1] @ alpha))           # the literal double sum
        if n_t > self.B_w:                                                   # projection
            c = math.sqrt(self.B_w / n_t) if self.projection == "exact" else math.sqrt(self.B_w) / n_t
            alpha *= c
            self._norm2 = n_t * c * c
        else:
            self._norm2 = n_t
        self.queries_.append(orc.n_queries - q0)
        self.grads_.append(g)
        self.norms_.append(n_t)

    def run_stream(self, X, y, oracles=None) -> dict:
        """Predict-then-learn over ``(X, y)``; returns the clean scores ``<w_t, Psi(x_t)>``,
        the losses on the clean data (the quantity of eq. 1) and the queries per round.
        ``oracles`` (optional): a sequence of :class:`Oracle`, one per round."""
        X = check_matrix(X, "X")
        y = np.asarray(y, float)
        scores = np.empty(X.shape[0])
        for t in range(X.shape[0]):
            scores[t] = self.predict_one(X[t])
            self.learn_one(X[t] if oracles is None else oracles[t], float(y[t]))
        losses = self.loss.loss(scores, y)
        return {"scores": scores, "losses": losses, "queries": np.array(self.queries_[-X.shape[0]:])}


class SingleCopyKernelOGD:
    """Baseline (paper 001, Sec. 3.1 and Thm. 3): projected kernel OGD that sees ONE noisy
    copy ``x~_t`` per round and treats it as ``x_t``: ``w_{t+1} = P(w_t - (eta/sqrt(T))
    l'(y_t <w_t, Psi(x~_t)>) y_t Psi(x~_t))`` (classification; regression analogous), with
    the exact kernel of ``kernel``. Its gradient is biased for non-linear losses/kernels.
    """

    def __init__(self, kernel, loss, T: int, eta: float, B_w: float = 1.0, noise=None,
                 seed: int = 0):
        self.kernel = _check_kernel(kernel)
        self.loss = _check_loss(loss)
        self.T = check_int(T, "T", minimum=1)
        self.eta = check_positive(eta, "eta")
        self.B_w = check_positive(B_w, "B_w")
        self.noise = _as_law(noise)
        self.seed = seed
        self.reset()

    def reset(self):
        self.rng_ = host_rng(self.seed)
        self.t_ = 0
        self._cap = 0
        self._alpha = np.zeros(0)
        self._P = None
        self._norm2 = 0.0

    @property
    def alpha_(self):
        return self._alpha[:self.t_]

    @property
    def points_(self):
        return None if self._P is None else self._P[:self.t_]

    def score(self, X):
        X = np.atleast_2d(np.asarray(X, float))
        if self.t_ == 0:
            return np.zeros(X.shape[0])
        return self.alpha_ @ self.kernel.gram(self.points_, X)

    def predict_one(self, x):
        return float(self.score(check_point(x, name="x")[None, :])[0])

    def learn_one(self, x, y):
        y = check_scalar(y, "y")
        orc = x if isinstance(x, Oracle) else self.noise.oracle(check_point(x, name="x"), self.rng_, t=self.t_)
        xt = orc.query(1)[0]
        t = self.t_
        if t + 1 > self._cap:
            cap = max(16, 2 * self._cap)
            P = np.zeros((cap, xt.shape[0]))
            a = np.zeros(cap)
            if t:
                P[:t] = self._P[:t]
                a[:t] = self._alpha[:t]
            self._P, self._alpha, self._cap = P, a, cap
        k_old = self.kernel.gram(self._P[:t], xt[None, :])[:, 0] if t else np.zeros(0)
        a_score = float(self._alpha[:t] @ k_old)                       # <w_t, Psi(x~_t)>
        if self.loss.kind == "classification":
            g = y * float(self.loss.derivative(y * a_score))
        else:
            g = float(self.loss.derivative(a_score - y))
        a_t = -g * self.eta / math.sqrt(self.T)
        k_tt = float(self.kernel.gram(xt[None, :])[0, 0])
        n_t = self._norm2 + 2.0 * a_t * a_score + a_t * a_t * k_tt
        self._P[t] = xt
        self._alpha[t] = a_t
        self.t_ = t + 1
        if n_t > self.B_w:
            self._alpha[:t + 1] *= math.sqrt(self.B_w / n_t)
            n_t = self.B_w
        self._norm2 = n_t


# ----------------------------------------------------------------------------------------
# The comparator of eq. (1)
# ----------------------------------------------------------------------------------------
def best_in_ball(kernel, loss, X, y, B_w: float):
    """``min_{||w||^2 <= B_w} sum_t l(<w, Psi(x_t)>, y_t)`` over the RKHS (the comparator of
    eq. 1). By the representer argument the minimiser lies in ``span{Psi(x_t)}``; with
    ``K = V diag(lam) V^T`` and ``w = sum_t beta_t Psi(x_t)``, ``z = diag(sqrt(lam)) V^T beta``
    turns the problem into ``min_{||z||^2 <= B_w} sum_t l(margin((V sqrt(lam) z)_t))``, solved by
    SLSQP (for a polynomial kernel with a small explicit feature map, ``z = w`` in that map).
    Returns ``(value, scores)`` with ``scores_t = <w*, Psi(x_t)>``.
    """
    X = check_matrix(X, "X")
    y = np.asarray(y, float)
    B_w = check_positive(B_w, "B_w")
    d = X.shape[1]
    if (isinstance(kernel, DotProductKernel) and kernel.degree is not None
            and sum(d ** n for n in range(kernel.degree + 1)) <= 400):
        # finite explicit feature map Psi(x) = (sqrt(beta_n) x^(x)n)_n: w = z directly
        M = np.concatenate([np.stack([kernel.feature_block(n, x) for x in X])
                            for n in range(kernel.degree + 1)], axis=1)
    else:
        K = kernel.gram(X)
        lam, V = np.linalg.eigh((K + K.T) / 2)
        keep = lam > 1e-12 * max(lam.max(), 1e-300)
        M = V[:, keep] * np.sqrt(lam[keep])      # scores = M z
    sgn = y if loss.kind == "classification" else np.ones_like(y)

    def f(z):
        s = M @ z
        return float(np.sum(loss.loss(s, y)))

    def grad(z):
        s = M @ z
        return M.T @ (sgn * loss.derivative(loss.margin(s, y)))

    cons = [{"type": "ineq", "fun": lambda z: B_w - z @ z, "jac": lambda z: -2 * z}]
    best = None
    for z0 in (np.zeros(M.shape[1]), np.full(M.shape[1], math.sqrt(B_w / max(M.shape[1], 1)) * 0.5)):
        res = optimize.minimize(f, z0, jac=grad, constraints=cons, method="SLSQP",
                                options={"ftol": 1e-13, "maxiter": 500})
        z = res.x
        nz = z @ z
        if nz > B_w:
            z = z * math.sqrt(B_w / nz)
        val = f(z)
        if best is None or val < best[0]:
            best = (val, M @ z)
    return best
