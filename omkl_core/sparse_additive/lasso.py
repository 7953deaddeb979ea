"""The Lasso family of paper 004 (T. Zhang, ch. 10 slides "Lasso", "Sparse Recovery").

Three scalings of the L1 penalty appear in the chapter and its ecosystem; for the squared
loss they are the same problem with

* eq. (12):  (1/2)||Xw - Y||^2 + lam ||w||_1                      (``Lasso(lam=...)``)
* eq. (5) with L(p, y) = (1/2)(p - y)^2:  (1/n) sum_i L + lam5 ||w||_1   ->  lam = n * lam5
* eq. (5) with L(p, y) = (p - y)^2:       (1/n) sum_i L + lam5 ||w||_1   ->  lam = n * lam5 / 2
* scikit-learn ``Lasso(alpha)``:  (1/(2n))||Y - Xw||^2 + alpha ||w||_1   ->  lam = n * alpha

(:func:`lasso_lambda` converts; tests/test_additive.py checks each against the objective.)
"""
from __future__ import annotations

import numpy as np

from ..base import BatchLearner
from ..validation import Integer, Positive, check_int, check_matrix, check_nonneg, check_option, check_vector

__all__ = ["Lasso", "ConstrainedLasso", "lasso_lambda", "lasso_kkt_residual", "soft_threshold"]


def lasso_lambda(value, *, n, scaling):
    """Convert a penalty of another scaling to lam of eq. (12).

    ``scaling``: ``"eq5_half"`` (eq. (5) with L = (1/2)(p - y)^2: lam = n value),
    ``"eq5"`` (eq. (5) with L = (p - y)^2: lam = n value / 2), ``"sklearn"`` (alpha: lam = n alpha).
    """
    value = check_nonneg(value, "value")
    n = check_int(n, "n", minimum=1)
    scaling = check_option(scaling, "scaling", ("eq5_half", "eq5", "sklearn"))
    return n * value / 2.0 if scaling == "eq5" else n * value


def soft_threshold(u, t):
    """S(u, t) = sign(u) max(|u| - t, 0), with exact zeros."""
    return np.sign(u) * np.maximum(np.abs(u) - t, 0.0)


def lasso_kkt_residual(X, y, w, lam) -> float:
    """Largest violation of the optimality conditions of (12): with c = X'(y - Xw),
    |c_j - lam sign(w_j)| for w_j != 0 and max(|c_j| - lam, 0) for w_j = 0."""
    c = X.T @ (y - X @ w)
    nz = w != 0
    r = np.where(nz, np.abs(c - lam * np.sign(w)), np.maximum(np.abs(c) - lam, 0.0))
    return float(r.max()) if r.size else 0.0


def _sweep(G, diag, grad, w, lam, idx):
    """One cyclic pass over the coordinates ``idx``; returns the largest scaled change."""
    max_delta = 0.0
    for j in idx:
        if diag[j] <= 0.0:
            continue
        old = w[j]
        u = grad[j] + diag[j] * old
        new = np.sign(u) * max(abs(u) - lam, 0.0) / diag[j]   # soft-thresholding: exact zeros
        if new != old:
            grad -= G[:, j] * (new - old)
            w[j] = new
            max_delta = max(max_delta, abs(new - old) * diag[j])
    return max_delta


def _cd(G, c, lam, w, tol, max_iter):
    """Cyclic coordinate descent on (1/2) w'Gw - c'w + lam |w|_1 (keeping grad = c - Gw),
    with the usual active-set strategy: full sweeps alternate with sweeps over the nonzero
    coordinates until a full sweep changes nothing above tolerance."""
    p = G.shape[0]
    diag = np.diag(G).copy()
    grad = c - G @ w
    thresh = tol * max(lam, float(np.abs(c).max()), np.finfo(float).tiny)
    every = np.arange(p)
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        if _sweep(G, diag, grad, w, lam, every) <= thresh:
            break
        active = np.flatnonzero(w)
        while n_iter < max_iter:
            n_iter += 1
            if _sweep(G, diag, grad, w, lam, active) <= thresh:
                break
    return w, n_iter


def _polish(G, c, lam, w):
    """Given the support and signs found by CD, solve G_FF w_F = c_F - lam s_F exactly and keep
    it if it has the same signs and satisfies the KKT conditions at least as well."""
    F = np.flatnonzero(w)
    if F.size == 0:
        return w
    s = np.sign(w[F])
    try:
        wF = np.linalg.solve(G[np.ix_(F, F)], c[F] - lam * s)
    except np.linalg.LinAlgError:
        return w
    if not np.all(np.sign(wF) == s):
        return w
    out = np.zeros_like(w)
    out[F] = wF
    return out


def _kkt_from_gram(G, c, lam, w):
    g = c - G @ w
    nz = w != 0
    r = np.where(nz, np.abs(g - lam * np.sign(w)), np.maximum(np.abs(g) - lam, 0.0))
    return float(r.max())


class Lasso(BatchLearner):
    """The Lasso (12) of the slides: w_hat = argmin (1/2)||Xw - Y||^2 + lam ||w||_1.

    No 1/n factor and no intercept (the slide's eq. (12)); see the module docstring for the
    conversions from eq. (5) and from scikit-learn's ``alpha``. Solved by cyclic coordinate
    descent on the Gram matrix G = X'X with soft-thresholding (so the zeros are exact), then
    polished on the found support: w_F = (X_F'X_F)^{-1}(X_F'Y - lam sign(w_F)) (the KKT
    equations, kept when the signs agree and the KKT residual does not get worse).

    Parameters
    ----------
    lam : float, default=1.0
        lam > 0 of eq. (12).
    tol : float, default=1e-12
        Coordinate descent stops when the largest scaled coordinate change
        G_jj |w_j^new - w_j^old| is below tol * max(lam, ||X'Y||_inf).
    max_iter : int, default=100000
        Maximum number of full sweeps.

    Attributes
    ----------
    w_ : ndarray of shape (p,)
        The solution of (12), with exact zeros.
    objective_ : float
        Q_L1(w_) of (12).
    n_iter_ : int
        Coordinate descent sweeps.
    kkt_residual_ : float
        :func:`lasso_kkt_residual` at ``w_`` (<= 1e-8 lam at the defaults on the tested inputs).
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from omkl_core.sparse_additive import Lasso
    >>> X = np.eye(3); y = np.array([3.0, -0.5, 1.5])
    >>> Lasso(lam=1.0).fit(X, y).w_.tolist()      # soft-thresholding of y for X = I
    [2.0, 0.0, 0.5]
    """

    _parameter_constraints = {
        "lam": Positive(),
        "tol": Positive(),
        "max_iter": Integer(1),
    }

    def __init__(self, *, lam=1.0, tol=1e-12, max_iter=100_000):
        self.lam = lam
        self.tol = tol
        self.max_iter = max_iter
        super().__init__()

    def fit(self, X, y, *, w0=None):
        self._validate_params()
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        lam = float(self.lam)
        G = X.T @ X
        c = X.T @ y
        w = np.zeros(X.shape[1]) if w0 is None else check_vector(w0, "w0", length=X.shape[1]).copy()
        if np.abs(c).max() <= lam and w0 is None:
            w, n_iter = np.zeros(X.shape[1]), 0                     # 0 satisfies the KKT conditions
        else:
            w, n_iter = _cd(G, c, lam, w, float(self.tol), int(self.max_iter))
            wp = _polish(G, c, lam, w)
            if _kkt_from_gram(G, c, lam, wp) <= _kkt_from_gram(G, c, lam, w):
                w = wp
        self.w_ = w
        self.n_iter_ = n_iter
        r = X @ w - y
        self.objective_ = float(0.5 * r @ r + lam * np.abs(w).sum())   # eq. (12)
        self.kkt_residual_ = lasso_kkt_residual(X, y, w, lam)
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        if not hasattr(self, "w_"):
            raise ValueError("this Lasso is not fitted yet: call fit(X, y) first")
        X = check_matrix(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, expected {self.n_features_in_}")
        return X @ self.w_


def _constrained_exact(X, y, w, lam, A):
    """On the support F and signs s of ``w`` the path is affine: w_F(lam) = G_FF^{-1}(c_F - lam s),
    so ||w(lam)||_1 = s'G_FF^{-1}c_F - lam s'G_FF^{-1}s = A is solved exactly; kept when the signs
    agree and the off-support KKT conditions hold (else the bisection result is returned)."""
    F = np.flatnonzero(w)
    if F.size == 0:
        return w, lam
    s = np.sign(w[F])
    G = X[:, F].T @ X[:, F]
    c = X.T @ y
    try:
        u = np.linalg.solve(G, c[F])
        v = np.linalg.solve(G, s)
    except np.linalg.LinAlgError:
        return w, lam
    lam_star = (s @ u - A) / (s @ v)
    wF = u - lam_star * v
    if lam_star <= 0 or not np.all(np.sign(wF) == s):
        return w, lam
    out = np.zeros_like(w)
    out[F] = wF
    g = c - X.T @ (X @ out)
    off = np.ones(w.size, bool)
    off[F] = False
    if np.any(np.abs(g[off]) > lam_star * (1 + 1e-9)):
        return w, lam
    return out, float(lam_star)


class ConstrainedLasso(BatchLearner):
    """Eq. (4) with the squared loss: w_hat = argmin (1/n) sum_i (1/2)(w'x_i - y_i)^2 s.t. ||w||_1 <= A.

    Solved through the Lasso path: if the least-squares limit of (12) (lam -> 0) has
    ||w||_1 <= A it is returned; otherwise lam is found by bisection (on log lam) such that
    ||w_hat(lam)||_1 = A, which is the constrained solution with multiplier lam (KKT of (4)).

    Parameters
    ----------
    A : float, default=1.0
        The L1 radius A > 0 of eq. (4).

    Attributes
    ----------
    w_ : ndarray of shape (p,)
    lam_ : float
        The multiplier lam of (12) at the solution (0 when the constraint is not active).
    objective_ : float
        (1/n) sum_i (1/2)(w_'x_i - y_i)^2.
    n_features_in_ : int
    """

    _parameter_constraints = {"A": Positive()}

    def __init__(self, *, A=1.0):
        self.A = A
        super().__init__()

    def fit(self, X, y):
        self._validate_params()
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        A = float(self.A)
        cmax = float(np.abs(X.T @ y).max())
        if cmax == 0.0:
            w, lam = np.zeros(X.shape[1]), 0.0
        else:
            lo = cmax * 1e-12
            w_lo = Lasso(lam=lo).fit(X, y).w_
            if np.abs(w_lo).sum() <= A:
                w, lam = w_lo, 0.0
            else:
                a, b = np.log(lo), np.log(cmax)        # ||w(lam)||_1 is nonincreasing in lam
                w = None
                for _ in range(200):
                    mid = 0.5 * (a + b)
                    wm = Lasso(lam=float(np.exp(mid))).fit(X, y, w0=w).w_
                    if np.abs(wm).sum() > A:
                        a = mid
                    else:
                        b, w = mid, wm
                    if b - a < 1e-13:
                        break
                lam = float(np.exp(b))
                w = Lasso(lam=lam).fit(X, y).w_ if w is None else w
                w, lam = _constrained_exact(X, y, w, lam, A)
        self.w_ = w
        self.lam_ = lam
        r = X @ w - y
        self.objective_ = float(0.5 * (r @ r) / X.shape[0])   # eq. (4), squared loss
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        if not hasattr(self, "w_"):
            raise ValueError("this ConstrainedLasso is not fitted yet: call fit(X, y) first")
        X = check_matrix(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, expected {self.n_features_in_}")
        return X @ self.w_
