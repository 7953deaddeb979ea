"""Paper 001, Sec. 5.2 and Appendix B: the noisy kernels (dot-product and Gaussian), their feature maps,
unbiased map estimates (eqs. 2 and 6) and Prod (Subroutines 2-7)."""
from __future__ import annotations

import abc
import functools
import math

import numpy as np
from scipy import special

from .. import kernels as _kernels
from ..validation import (
    check_int,
    check_option,
    check_point,
    check_positive,
    check_scalar,
)
from .estimates import EstimateStore
from .estimator import check_p, sample_geometric
from .noise import Oracle, _as_law


def _store_arrays(counts_list, copies_list, level: int):
    """Empty :class:`EstimateStore` arrays for estimates whose feature level is ``counts[level]``:
    ``levels`` (m,), ``V`` (m, max level, d) of zeros, ``scales`` (m,) uninitialised."""
    m = len(counts_list)
    d = copies_list[0].shape[1]
    levels = np.array([c[level] for c in counts_list], dtype=np.int64)
    L = int(levels.max()) if m else 0
    return levels, np.zeros((m, L, d)), np.empty(m)


class NoisyKernel(abc.ABC):
    """The protocol every noisy kernel of paper 001 follows (Secs. 4.1, 5.2, Appendix B).

    A kernel ``k(x, x') = <Psi(x), Psi(x')>`` is usable by Algorithm 1 when it can draw an
    unbiased estimate ``Psi~(x)`` of its feature map from oracle copies and evaluate ``Prod``
    between two estimates (or an estimate and a point) without ever forming ``Psi``:

    * ``sample_counts(p, rng)`` -> the random counts of one estimate (``(N,)`` for eq. 2,
      ``(N_1, N_2)`` for eq. 6); ``queries_for(counts)`` -> how many oracle copies they need;
    * ``assemble(counts_list, copies_list, p)`` -> an :class:`EstimateStore` of the estimates;
    * ``prod(est_a, est_b, p)`` / ``prod_point(est, xp, p)`` -> the literal Subroutines 3/4
      (6/7); ``point_factor(levels, Xp)`` -> the per-level factor used by the vectorised
      :func:`prod_point_matrix`;
    * ``kernel``/``__call__``/``gram`` -> the exact kernel, ``feature_norm_bound(p, B_x)`` ->
      the bound on ``E||Psi~||^2`` (Lemmas 3 and 5).

    :meth:`map_estimate` (Subroutines 2 and 5) and :meth:`map_estimate_many` are written once
    here in terms of those primitives.
    """

    def __repr__(self) -> str:
        # the kernel's name, never a memory address: the repr names test cases
        # (sklearn's parametrize_with_checks), which must be the same in every process
        return f"{type(self).__name__}({getattr(self, 'name', '')!r})"

    @abc.abstractmethod
    def sample_counts(self, p, rng): ...

    @abc.abstractmethod
    def queries_for(self, counts) -> int: ...

    @abc.abstractmethod
    def assemble(self, counts_list, copies_list, p) -> EstimateStore: ...

    @abc.abstractmethod
    def prod(self, est_a: EstimateStore, est_b: EstimateStore, p) -> float: ...

    @abc.abstractmethod
    def prod_point(self, est: EstimateStore, xp, p) -> float: ...

    @abc.abstractmethod
    def point_factor(self, levels, Xp): ...

    @abc.abstractmethod
    def gram(self, X, Y=None): ...

    @abc.abstractmethod
    def feature_norm_bound(self, p, B_x) -> float: ...

    def map_estimate(self, oracle: Oracle, p, rng) -> EstimateStore:
        """Subroutines 2 / 5 ``Map_Estimate(A_t, p)``: sample the counts, query ``A_t`` as
        often as they need, return ``Psi~(x_t)`` as a one-row :class:`EstimateStore`."""
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


class DotProductKernel(NoisyKernel):
    """``k(x, x') = Q(<x, x'>) = sum_n beta_n <x, x'>^n`` with ``beta_n >= 0`` (Sec. 5.2).

    ``beta``: a finite sequence ``(beta_0, ..., beta_D)`` (a polynomial kernel; ``beta_n = 0``
    beyond) or a callable ``n -> beta_n``. ``Q`` (optional): a closed form of the series,
    otherwise the series is summed to convergence.

    Feature map (Sec. 5.2): ``Psi(x)`` has entry ``sqrt(beta_n) x_k1...x_kn`` at index
    ``(n, k1..kn)``. Unbiased estimate, eq. (2): with ``N ~ (p-1)/p^(n+1)`` and ``N`` oracle
    copies, ``Psi~(x) = sqrt(beta_N) p^(N+1)/(p-1) sum_k x~^(1)_k1 ... x~^(N)_kN e_(N,k)``.
    """

    def __init__(self, beta, *, Q=None, name: str = "dot-product"):
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
            self._beta = functools.partial(_finite_beta, b)
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
        levels, V, scales = _store_arrays(counts_list, copies_list, level=0)
        for i, (n,) in enumerate(counts_list):
            V[i, :n] = copies_list[i]
            scales[i] = math.sqrt(self.beta_n(n)) * p ** (n + 1) / (p - 1.0)   # eq. (2)
        return EstimateStore(levels, scales, V, list(copies_list), list(counts_list))


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

    @staticmethod
    def expected_queries_per_map(p) -> float:
        """E[N] + ... of one Map_Estimate: ``E[N] = 1/(p-1)`` (Theorem 1's first bullet)."""
        return 1.0 / (p - 1.0)


# Module-level coefficient and closed-form functions (not lambdas) so kernels pickle.
def _finite_beta(b: np.ndarray, n: int) -> float:
    return float(b[n]) if n < b.size else 0.0


def _identity_Q(z):
    return np.asarray(z, float)


def _polynomial_Q(c: float, degree: int, z):
    return (c + np.asarray(z, float)) ** degree


def _exponential_beta(scale: float, n: int) -> float:
    # scale^n / n! in log space: finite for every n (math.factorial(n) overflows a float at n = 171)
    return math.exp(n * math.log(scale) - math.lgamma(n + 1.0))


def _exponential_Q(scale: float, z):
    return np.exp(scale * np.asarray(z, float))


def linear_kernel() -> DotProductKernel:
    """``k(x, x') = <x, x'>``: ``beta_1 = 1``."""
    return DotProductKernel([0.0, 1.0], Q=_identity_Q, name="linear")


def polynomial_kernel(degree: int, c: float = 1.0) -> DotProductKernel:
    """``k(x, x') = (c + <x, x'>)^degree``: ``beta_n = C(degree, n) c^(degree - n)``."""
    degree = check_int(degree, "degree", minimum=0)
    c = check_scalar(c, "c")
    if c < 0:
        raise ValueError(f"c must be >= 0 (beta_n >= 0), got {c!r}")
    beta = [math.comb(degree, n) * c ** (degree - n) for n in range(degree + 1)]
    return DotProductKernel(beta, Q=functools.partial(_polynomial_Q, c, degree),
                            name=f"polynomial(degree={degree}, c={c:g})")


def exponential_kernel(scale: float = 1.0) -> DotProductKernel:
    """``k(x, x') = exp(scale <x, x'>)``: ``beta_n = scale^n / n!``."""
    scale = check_positive(scale, "scale")
    return DotProductKernel(functools.partial(_exponential_beta, scale),
                            Q=functools.partial(_exponential_Q, scale),
                            name=f"exponential(scale={scale:g})")


class GaussianKernel(NoisyKernel):
    """``k(x, x') = exp(-||x - x'||^2 / sigma^2)`` (paper 001, Sec. 2, App. B): NB no factor 2, so GaussianKernel(s) = kernels.Gaussian(s / sqrt(2)).

    ``k = e^{-|x|^2/s^2} e^{-|x'|^2/s^2} sum_n (2/s^2)^n/n! <x, x'>^n`` gives the feature
    map ``Psi(x)_(n,k) = e^{-|x|^2/s^2} c_n x_k1...x_kn`` with ``c_n = sqrt((2/s^2)^n / n!)``
    (``variant="corrected"``; App. B prints ``c_n = (2/s^2)^n / n!``, ``variant="printed"``).

    Eq. (6): with ``N_1, N_2`` iid ``~ (p-1)/p^(n+1)`` and ``2N_1 + N_2`` oracle copies,
    ``Psi~(x) = (-1)^N1 p^(N1+N2+2) / (N1! s^(2 N1) (p-1)^2) * c_N2
    * prod_{j<=N1} <x~^(2j-1), x~^(2j)> * sum_k x~^(2N1+1)_k1 ... x~^(2N1+N2)_kN2 e_(N2,k)``
    (printed: ``c_N2 = 2^N2/(N2! s^(2 N2))``, as in eq. (6)).
    """

    def __init__(self, sigma: float, *, variant: str = "corrected"):
        self.sigma = check_positive(sigma, "sigma")
        self.variant = check_option(variant, "variant", ("corrected", "printed"))
        self.name = f"gaussian(sigma={self.sigma:g}, {variant})"

    def log_c_n(self, n: int) -> float:
        """``ln c_n`` with ``ln((2/s^2)^n / n!) = n ln(2/s^2) - ln n!`` (``math.lgamma``: no
        ``n!`` is formed, so large ``n``, reached at ``p`` close to 1, cannot overflow)."""
        log_a = n * math.log(2.0 / self.sigma ** 2) - math.lgamma(n + 1)
        return 0.5 * log_a if self.variant == "corrected" else log_a

    def c_n(self, n: int) -> float:
        return math.exp(self.log_c_n(n))

    def _log_n1_factor(self, n1: int, p) -> float:
        """``ln(p^n1 / (n1! sigma^(2 n1)))``, the ``N_1`` part of eq. (6) in log space."""
        return n1 * (math.log(p) - 2.0 * math.log(self.sigma)) - math.lgamma(n1 + 1)

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
        log_abs = (self._log_n1_factor(n1, p) + (n2 + 2) * math.log(p) - 2.0 * math.log(p - 1.0)
                   + self.log_c_n(n2))
        return (-1.0) ** n1 * math.exp(log_abs)                                 # eq. (6)

    def assemble(self, counts_list, copies_list, p) -> EstimateStore:
        levels, V, scales = _store_arrays(counts_list, copies_list, level=1)
        for i, (n1, n2) in enumerate(counts_list):
            C = copies_list[i]
            pairs = np.einsum("jd,jd->j", C[0:2 * n1:2], C[1:2 * n1:2])   # <x~(2j-1), x~(2j)>
            scales[i] = self.prefactor(n1, n2, p) * float(np.prod(pairs))
            V[i, :n2] = C[2 * n1:2 * n1 + n2]
        return EstimateStore(levels, scales, V, list(copies_list), list(counts_list))

    # --- Subroutines 6 / 7: Prod ---------------------------------------------------------
    def prod(self, est_a: EstimateStore, est_b: EstimateStore, p) -> float:
        """Subroutine 6 (``n_2 != n_2'`` -> 0, else the product of the two eq.-(6)
        prefactors times the three inner-product products); Lemma 6."""
        (n1, n2), (m1, m2) = est_a.meta[0], est_b.meta[0]
        if n2 != m2:
            return 0.0
        A, B = est_a.copies[0], est_b.copies[0]
        val = (-1.0) ** (n1 + m1) * math.exp(
            self._log_n1_factor(n1, p) + self._log_n1_factor(m1, p) + (2 * n2 + 4) * math.log(p)
            + 2.0 * self.log_c_n(n2) - 4.0 * math.log(p - 1.0))
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
        val = (-1.0) ** n1 * math.exp(
            self._log_n1_factor(n1, p) + (n2 + 2) * math.log(p) + 2.0 * self.log_c_n(n2)
            - 2.0 * math.log(p - 1.0) - float(xp @ xp) / s2)
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
        log_b = 2.0 * math.log(p / (p - 1.0)) + 2.0 * (math.sqrt(p) + p) * B_x / self.sigma ** 2
        return math.exp(log_b) if log_b < 709.0 else math.inf     # inf, not OverflowError

    def feature_norm_bound_printed(self, p, B_x) -> float:
        """Lemma 5 as printed: ``(p/(p-1))^2 exp((sqrt(p) B + 2 p sqrt(B)) / sigma^2)``."""
        p = check_p(p)
        return (p / (p - 1.0)) ** 2 * math.exp((math.sqrt(p) * B_x + 2.0 * p * math.sqrt(B_x))
                                               / self.sigma ** 2)

    @staticmethod
    def expected_queries_per_map(p) -> float:
        """``E[2 N_1 + N_2] = 3/(p-1)`` oracle queries of one eq.-(6) estimate."""
        return 3.0 / (p - 1.0)




def _check_kernel(kernel):
    if not isinstance(kernel, NoisyKernel):
        raise TypeError("kernel must be a DotProductKernel (linear_kernel(), polynomial_kernel(), "
                        f"exponential_kernel()) or a GaussianKernel, got {type(kernel).__name__}")
    return kernel
