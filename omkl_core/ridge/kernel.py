"""Paper 002's kernelized ridge learners (Section 6): :class:`KernelRidge` (Theorem 3, eq. (17);
Corollary 4, eq. (18)) and :class:`KernelBayesianRidge` (Theorem 4)."""
from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.linalg import blas as _blas
from scipy.linalg import solve_triangular

from ..kernels import Gaussian, Laplacian, make_kernel
from ..validation import (
    Check,
    Optional,
    Options,
    Positive,
    check_matrix,
    check_point,
    check_scalar,
)
from ._base import _check_kernel, _gaussian_log_loss, _RidgeBase

__all__ = ["KernelRidge", "KernelBayesianRidge"]


class KernelRidge(_RidgeBase):
    r"""Kernel ridge regression, online: ridge regression in a kernel's feature space, refitted at every
    step (paper 002, section 6).

    Kernelized Ridge Regression (Section 6 of Zhdanov & Vovk, 2009).

    gamma_T = Y_{T-1}' (aI + K_{T-1})^{-1} k_T with K_{T-1} = [K(x_i, x_j)]_{i,j<T} and
    k_T = [K(x_i, x_T)]_{i<T}.

    Theorem 3, eq. (17): sum_t (y_t - gamma_t)^2 / (1 + (K(x_t,x_t) - k_t'(aI+K_{t-1})^{-1}k_t)/a)
    = min_{f in F} (sum_t (y_t - f(x_t))^2 + a ||f||_F^2).

    Incremental linear algebra (``solver``), both O(t^2) per step without refactorisation,
    both built on the Schur complement s_t = a + K(x_t,x_t) - k_t'(aI + K_{t-1})^{-1}k_t
    = a * (the denominator of (17)):

    * ``"inverse"``: M_t^{-1} = (aI + K_t)^{-1} grown by bordering. With v = M_{t-1}^{-1}k_t,
      M_t^{-1} = [[M_{t-1}^{-1} + v v'/s_t, -v/s_t], [-v'/s_t, 1/s_t]], and the dual
      coefficients alpha_t = M_t^{-1}Y_t = [alpha_{t-1} - v e_t/s_t ; e_t/s_t], e_t = y_t - gamma_t.
    * ``"cholesky"`` (default): the Cholesky factor L_t (L_t L_t' = aI + K_t) grown by the
      same block step: l = L_{t-1}^{-1}k_t, s_t = a + K(x_t,x_t) - l'l,
      L_t = [[L_{t-1}, 0], [l', sqrt(s_t)]]; with z_t = L_t^{-1}Y_t = [z_{t-1}; e_t/sqrt(s_t)]
      the prediction is gamma_t = l'z_{t-1}. Same numbers in exact arithmetic; it keeps (17)
      to ~1e-9 when aI + K_t is ill-conditioned (tiny a, near-duplicate inputs), where the
      bordered inverse loses digits (it can even make s_t negative).

    The learned function after T steps is f_T(x) = sum_i alpha_i K(x_i, x) (what
    ``predict_one`` returns, ``alpha_`` = (aI + K_T)^{-1}Y_T), the minimiser of
    sum_t (y_t - f(x_t))^2 + a||f||^2.

    Parameters
    ----------
    a : float, default=1.0
        The ridge parameter a > 0.
    kernel : Kernel, str or callable
        Required: a :class:`omkl_core.kernels.Kernel` (``Gaussian(sigma)``, ``Laplacian(sigma)``,
        ``Polynomial(degree, c)``, ``Linear()``), a kernel name, or any callable
        k(x, x') -> float (evaluated pair by pair, i.e. slowly).
    clip : float or None, default=None
        Y > 0 of Corollary 4: ``predict_one`` returns gamma_t^Y (eq. 18).
    solver : {"cholesky", "inverse"}, default="cholesky"
        Cholesky factor or bordered inverse (above).

    Attributes
    ----------
    X_ : ndarray of shape (t, d)
        Inputs seen.
    alpha_ : ndarray of shape (t,)
        Dual coefficients (aI + K_t)^{-1} Y_t.
    M_inv_ : ndarray of shape (t, t)
        (aI + K_t)^{-1} (state for "inverse", computed on demand for "cholesky").
    L_ : ndarray of shape (t, t)
        The Cholesky factor (``solver="cholesky"``), with the running totals of the module docstring.

    Examples
    --------
    Theorem 3, eq. (17): the weighted square loss of kernel ridge equals the batch minimum
    Y'(I + K/a)^{-1}Y:

    >>> import numpy as np, omkl_core as ok
    >>> rng = np.random.default_rng(1)
    >>> X = rng.uniform(-1, 1, size=(40, 2)); y = np.sin(3 * X[:, 0])
    >>> model = ok.KernelRidge(0.5, ok.kernels.Gaussian(0.7))
    >>> trace = ok.run_online(model, X, y)
    >>> K = ok.kernels.kernel_matrix(ok.kernels.Gaussian(0.7), X)
    >>> rhs = y @ np.linalg.solve(np.eye(40) + K / 0.5, y)
    >>> bool(np.isclose(model.weighted_loss_, rhs, rtol=1e-9))
    True
    """

    _SOLVERS = ("cholesky", "inverse")
    _parameter_constraints = {
        "a": Positive(),
        "kernel": Check(_check_kernel, invalid=[None, 3.0, "no-such-kernel"]),
        "clip": Optional(Positive()),
        "solver": Options(*_SOLVERS),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"a": 1.0, "kernel": Gaussian(0.7)}

    def __init__(self, a: float = 1.0, kernel=None, *, clip: float | None = None, solver: str = "cholesky"):
        self.a = a
        self.kernel = kernel
        self.clip = clip
        self.solver = solver
        super().__init__()

    def _reset(self):
        self._kern = make_kernel(self.kernel)
        self._Xbuf = None     # rows 0..t-1: the inputs seen
        self._Fbuf = None     # packed: columns of M_t^{-1} ("inverse") / rows of L_t ("cholesky")
        self._vbuf = None     # [:t]: alpha_t ("inverse") or z_t ("cholesky")
        self._reset_totals()

    def _dim(self):
        return None if self._Xbuf is None else self._Xbuf.shape[1]

    #: A stream is "long" when its total cost passes either estimate (then one warning).
    LONG_STREAM_FLOPS = 6e10    # ~ a minute at ~1 GFLOP/s
    LONG_STREAM_BYTES = 1e9

    @classmethod
    def cost_estimate(cls, T: int) -> tuple[float, float]:
        """(flops, bytes) of T steps: the triangular solves cost sum_t t^2 ~ T^3/3 flops,
        the packed factor holds T(T+1)/2 float64 (O(T^3) time, O(T^2) memory)."""
        return T ** 3 / 3.0, 8.0 * T * (T + 1) / 2.0

    def _warn_long(self, T: int) -> None:
        if getattr(self, "_long_warned", False):
            return
        flops, nbytes = self.cost_estimate(T)
        if flops > self.LONG_STREAM_FLOPS or nbytes > self.LONG_STREAM_BYTES:
            self._long_warned = True
            warnings.warn(f"{type(self).__name__}: a stream of T={T} steps costs O(T^3) time and O(T^2) memory: "
                          f"about {flops:.2g} flops (minutes at ~1 GFLOP/s: ~{flops / 1e9 / 60:.2g} min) and "
                          f"{nbytes / 1e9:.2g} GB for the factor of aI + K_T; consider a random-feature learner "
                          "(OnlineRidge on features, VAW2) for long streams", RuntimeWarning, stacklevel=4)

    def _check_stream(self, X, y):
        X, y = super()._check_stream(X, y)
        self._warn_long(self.t_ + X.shape[0])
        return X, y

    def _check_x(self, x):
        if self.t_ >= 1024 and self.t_ % 1024 == 0:   # one-step use: check as the stream grows
            self._warn_long(self.t_ + 1)
        return check_point(x, self._dim(), "x")

    @property
    def X_(self) -> np.ndarray:
        if self._Xbuf is None:
            raise AttributeError("X_ is defined after the first learn_one")
        return self._Xbuf[:self.t_]

    @property
    def L_(self) -> np.ndarray:
        """Lower-triangular L_t with L_t L_t' = aI + K_t (``solver="cholesky"``)."""
        if self.solver != "cholesky" or self._Fbuf is None:
            raise AttributeError("L_ exists for solver='cholesky' after the first learn_one")
        t = self.t_
        L = np.zeros((t, t))
        L[np.tril_indices(t)] = self._Fbuf[:t * (t + 1) // 2]   # row-major packed rows
        return L

    @property
    def M_inv_(self) -> np.ndarray:
        """(aI + K_t)^{-1}."""
        if self._Fbuf is None:
            raise AttributeError("M_inv_ is defined after the first learn_one")
        t = self.t_
        if self.solver == "inverse":                  # unpack the upper triangle, symmetrise
            U = np.zeros((t, t))
            U.T[np.tril_indices(t)] = self._Fbuf[:t * (t + 1) // 2]
            return U + np.triu(U, 1).T
        Linv = solve_triangular(self.L_, np.eye(t), lower=True)
        return Linv.T @ Linv

    @property
    def alpha_(self) -> np.ndarray:
        """Dual coefficients (aI + K_t)^{-1} Y_t of f_t = sum_i alpha_i K(x_i, .)."""
        if self._vbuf is None:
            raise AttributeError("alpha_ is defined after the first learn_one")
        v = self._vbuf[:self.t_]
        if self.solver == "inverse":
            return v
        t = self.t_
        return _blas.dtpsv(t, self._Fbuf[:t * (t + 1) // 2], v, lower=0, trans=0)   # L_t' alpha = z_t

    def _kvec(self, x):
        """k_t = [K(x_i, x)]_{i < t} and K(x, x)."""
        kxx = float(self._kern(x, x))
        if not math.isfinite(kxx):
            raise FloatingPointError(f"kernel returned {kxx!r} for K(x, x)")
        if self.t_ == 0:
            return np.empty(0), kxx
        k = np.asarray(self._kern.matrix(self.X_, x[None, :]), dtype=np.float64).reshape(-1)
        if not np.all(np.isfinite(k)):
            raise FloatingPointError("kernel returned a non-finite value")
        return k, kxx

    def _gamma_h(self, x):
        k, kxx = self._kvec(x)
        t = self.t_
        if t == 0:                                    # k_1'(aI + K_0)^{-1} k_1 := 0
            return 0.0, kxx / self.a, None
        w = self._vbuf[:t]
        if self.solver == "inverse":
            v = _blas.dspmv(t, 1.0, self._Fbuf[:t * (t + 1) // 2], k)   # (aI + K_{t-1})^{-1} k_t
            gamma = float(w @ k)                      # Y_{t-1}'(aI + K_{t-1})^{-1} k_t
            h = (kxx - float(k @ v)) / self.a         # (K(x_t,x_t) - k_t'(aI+K_{t-1})^{-1}k_t)/a
            return gamma, h, v
        # L_{t-1}^{-1} k_t: the packed rows of L are the packed columns of the upper-triangular
        # U = L' (BLAS column-major packed storage), so L l = k is U' l = k (tpsv, trans=1).
        l = _blas.dtpsv(t, self._Fbuf[:t * (t + 1) // 2], k, lower=0, trans=1)
        gamma = float(l @ w)                          # (L^{-1}k_t)'(L^{-1}Y_{t-1})
        h = (kxx - float(l @ l)) / self.a
        return gamma, h, l

    def _new_factor(self, cap):
        # BLAS packed storage, so that growing by one row/column appends at the end:
        # "inverse": upper triangle of the symmetric M_t^{-1} column by column (column j:
        # M[0..j, j]); "cholesky": L_t row by row (row i: L[i, 0..i]).
        return np.zeros(cap * (cap + 1) // 2)

    def _grow(self, d):
        t = self.t_
        if self._Xbuf is None:
            cap = 16
            self._Xbuf, self._Fbuf, self._vbuf = np.empty((cap, d)), self._new_factor(cap), np.empty(cap)
        elif t == self._Xbuf.shape[0]:                # double the buffers (amortised O(t^2))
            cap = 2 * t
            Xb, Fb, vb = np.empty((cap, d)), self._new_factor(cap), np.empty(cap)
            Xb[:t], vb[:t] = self._Xbuf, self._vbuf
            Fb[:t * (t + 1) // 2] = self._Fbuf[:t * (t + 1) // 2]
            self._Xbuf, self._Fbuf, self._vbuf = Xb, Fb, vb

    def _update(self, x, y, gamma, h, v):
        t = self.t_
        self._grow(x.shape[0])
        s = self.a * (1.0 + h)                        # Schur complement a + K(x,x) - k'M^{-1}k
        e = y - gamma                                 # y_t - gamma_t
        self._Xbuf[t] = x
        F, w = self._Fbuf, self._vbuf
        off = t * (t + 1) // 2
        if self.solver == "inverse":
            if t:
                u = v / s
                _blas.dspr(t, 1.0 / s, v, F[:off], overwrite_ap=1)   # M_{t-1}^{-1} + v v'/s, in place
                F[off:off + t] = -u                   # new column (-v/s; 1/s)
                w[:t] -= u * e                        # alpha_{t-1} - v e_t / s
            F[off + t] = 1.0 / s
            w[t] = e / s
        else:
            r = math.sqrt(s)
            F[off:off + t] = v                        # new row (l', sqrt(s_t)) of L_t
            F[off + t] = r
            w[t] = e / r                              # z_t = [z_{t-1}; e_t/sqrt(s_t)]

    def decision_function(self, X) -> np.ndarray:
        """f_T(x) = sum_i alpha_i K(x_i, x) for each row of X (0 before any learning)."""
        X = check_matrix(X, "X")
        d = self._dim()
        if d is not None and X.shape[1] != d:
            raise ValueError(f"X has {X.shape[1]} columns, the learner has seen d={d}")
        if self.t_ == 0:
            return np.zeros(X.shape[0])
        return np.asarray(self._kern.matrix(X, self.X_), dtype=np.float64) @ self.alpha_


class KernelBayesianRidge(KernelRidge):
    r"""Bayesian ridge regression with a kernel, online: its forecast and the forecast's variance (paper
    002, section 6).

    Kernelized Bayesian Ridge Regression (Section 6 of Zhdanov & Vovk, 2009).

    At step T predicts N(gamma_T, sigma^2 + sigma^2 (K(x_T,x_T) - k_T'(aI + K_{T-1})^{-1}k_T)/a)
    with gamma_T of :class:`KernelRidge`.

    Theorem 4: ``log_loss_`` = L_T = min_{f in F} (L_T(f) + a/(2 sigma^2)||f||_F^2)
    + (1/2) ln det(I + K_T/a).
    """

    _bayesian = True

    _parameter_constraints = {"sigma2": Positive()}

    @classmethod
    def _unit_test_params(cls):
        yield {"a": 1.0, "sigma2": 0.5, "kernel": Laplacian(1.0)}

    def __init__(self, a: float = 1.0, kernel=None, *, sigma2: float = 1.0, clip: float | None = None,
                 solver: str = "cholesky"):
        self.sigma2 = sigma2
        super().__init__(a=a, kernel=kernel, clip=clip, solver=solver)

    def predict_dist(self, x) -> tuple[float, float]:
        """(gamma_T, sigma^2 + sigma^2 (K(x_T,x_T) - k_T'(aI + K_{T-1})^{-1}k_T)/a)."""
        x = self._check_x(x)
        gamma, h, _ = self._gamma_h(x)
        return gamma, self.sigma2 + self.sigma2 * h

    def predict_logpdf(self, x, y) -> float:
        """ln of the predictive normal density at y."""
        mean, var = self.predict_dist(x)
        return -_gaussian_log_loss(check_scalar(y, "y"), mean, var)
