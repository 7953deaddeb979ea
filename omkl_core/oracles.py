"""Oracles in hindsight for the square loss: what an aggregation of N experts competes with.

Given the experts' forecasts ``Z`` (T x N, row t = z_t) and the labels ``y`` (T,), each oracle
is the best forecaster of a class chosen *after* seeing the whole stream -- the comparators of
the regret bounds of paper 000 (Rokhlin & Gurtovaya, arXiv:2503.20087, sec. 3):

===============================  ==========================================================  ====================
oracle                           comparator (mean square loss (1/T) sum_t (u_t - y_t)^2)     comparator of
===============================  ==========================================================  ====================
:func:`best_expert`              u_t = z_{t,j}, the best fixed j                             P000 eq. (30) (EWA), Theorem 3
:func:`best_convex`              u_t = <w, z_t>, w in the simplex                            P000 eq. (22), after (28)
:func:`best_linear`              u_t = <w, z_t>, w in R^N                                    P000 eqs. (11), (23), (25)
:func:`best_shifting`            u_t = z_{t,j_t}, at most k changes of j_t, k = 0..K         (opera; no bound in P000-004)
===============================  ==========================================================  ====================

They are the oracles of the R package opera (``oracle(Y, experts, model = "expert" | "convex" |
"linear" | "shifting", loss.type = "square")``; reference A.1), computed exactly:

* *expert*: the column of Z with the smallest mean loss (the first one on a tie, as R's
  ``which.min``).
* *convex*: the quadratic programme min ||Z w - y||^2 over the simplex {w >= 0, sum w = 1}. Since
  sum w = 1, Z w - y = A w with A = Z - y 1^T: the best convex combination is the point of
  minimum norm of the convex hull of the columns of A. By least-distance duality (Lawson &
  Hanson, *Solving Least Squares Problems*, 1974, ch. 23) it is one non-negative least-squares
  problem, min_{u >= 0} ||[A; 1^T] u - e_{T+1}||^2 (for fixed direction w = u / 1^T u the
  objective is s^2 ||A w||^2 + (s - 1)^2 with s = 1^T u, whose minimum over s is
  ||A w||^2 / (1 + ||A w||^2), increasing in ||A w||^2), solved by SciPy's active-set NNLS
  (``scipy.optimize.nnls``, Lawson-Hanson, finite). The solution is then polished on its support
  S = {w > 0}: the equality-constrained least squares on S (w_S = 1/|S| + B v, B an orthonormal
  basis of {1^T v = 0}, v by ``lstsq``) is accepted when it stays non-negative and lowers the
  loss. The Karush-Kuhn-Tucker conditions (gradient g = Z^T (Z w - y) equal to a multiplier mu on
  S, >= mu off S) are reported in :attr:`OracleResult.kkt_residual` and checked in the tests.
  opera solves the same programme with a general optimiser (its weights may be slightly
  infeasible, e.g. -2.4e-12 on paper 000's Airfoil experts).
* *linear*: least squares min ||Z w - y||^2 by ``numpy.linalg.lstsq`` (the minimum-norm
  solution): a singular Gram matrix Z^T Z (two identical experts) gives the least-squares loss,
  where opera stops with "system is computationally singular".
* *shifting*: dynamic programming over (at most k shifts, current expert), O(T N (K + 1)) time;
  with D_t(k, j) the smallest cumulative loss of a sequence ending in j at step t with at most k
  shifts, D_t(k, j) = l_t(j) + min(D_{t-1}(k, j), min_i D_{t-1}(k - 1, i)). k = 0 is the best
  expert; the loss is non-increasing in k, and at k = T - 1 it is sum_t min_j l_t(j).
  Back-pointers (T x (K + 1) x N booleans) give the best path for each k.

Every function validates its inputs (a ``ValueError``/``TypeError`` naming ``Z``, ``y`` or ``K``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.optimize

from .validation import check_int, check_matrix, check_memory, check_vector

__all__ = ["OracleResult", "ShiftingResult", "best_expert", "best_convex", "best_linear", "best_shifting",
           "oracle", "MODELS"]

#: opera's names of the oracles (``oracle(model = ...)``).
MODELS = ("expert", "convex", "linear", "shifting")


@dataclass(frozen=True)
class OracleResult:
    """A fixed combination in hindsight (``model`` "expert", "convex" or "linear")."""

    model: str                 # "expert" | "convex" | "linear"
    loss: float                # mean square loss (1/T) sum_t (<w, z_t> - y_t)^2
    cumulative_loss: float     # sum_t (<w, z_t> - y_t)^2
    weights: np.ndarray        # (N,): e_j (expert), a point of the simplex (convex), any (linear)
    predictions: np.ndarray    # (T,): Z @ weights
    expert: int | None = None  # the index j of the best expert (model "expert"), else None
    kkt_residual: float = 0.0  # convex: max violation of the KKT conditions (see the module docstring)


@dataclass(frozen=True)
class ShiftingResult:
    """The best sequences of experts with at most k shifts, k = 0..K."""

    loss: np.ndarray               # (K+1,): mean square loss of the best sequence with <= k shifts
    cumulative_loss: np.ndarray    # (K+1,): the same, summed over t
    paths: np.ndarray | None       # (K+1, T) int: the expert followed at each step (None: paths=False)
    predictions: np.ndarray | None  # (K+1, T): Z[t, paths[k, t]]

    @property
    def K(self) -> int:
        return int(self.loss.shape[0] - 1)


def _check(Z, y):
    Z = check_matrix(Z, "Z")
    if Z.shape[0] == 0 or Z.shape[1] == 0:
        raise ValueError(f"Z must have at least one step and one expert, got shape {Z.shape}")
    y = check_vector(y, "y", length=Z.shape[0])
    return Z, y


def _result(model, Z, y, w, **extra) -> OracleResult:
    pred = Z @ w
    r = pred - y
    cum = float(r @ r)
    return OracleResult(model, cum / Z.shape[0], cum, w, pred, **extra)


def best_expert(Z, y) -> OracleResult:
    """The best fixed expert in hindsight: argmin_j (1/T) sum_t (z_{t,j} - y_t)^2 (opera ``"expert"``)."""
    Z, y = _check(Z, y)
    cum = np.sum((Z - y[:, None]) ** 2, axis=0)
    j = int(np.argmin(cum))                          # first minimiser, as R's which.min
    w = np.zeros(Z.shape[1])
    w[j] = 1.0
    return OracleResult("expert", float(cum[j]) / Z.shape[0], float(cum[j]), w, Z[:, j].copy(), expert=j)


def _kkt_residual(Z, y, w) -> float:
    """Largest violation of the KKT conditions of min ||Zw - y||^2 on the simplex, relative to the
    gradient's scale: g = Z^T(Zw - y); mu = min_j g_j; |g_j - mu| on the support, w feasibility."""
    g = Z.T @ (Z @ w - y)
    S = w > 0
    mu = float(np.min(g))
    scale = max(1.0, float(np.max(np.abs(g))))
    spread = float(np.max(g[S]) - mu) if S.any() else np.inf
    return max(spread / scale, float(max(0.0, -np.min(w))), abs(float(np.sum(w)) - 1.0))


def best_convex(Z, y) -> OracleResult:
    """The best convex combination in hindsight: argmin over the simplex of (1/T) ||Z w - y||^2
    (opera ``"convex"``), exactly: NNLS of the least-distance dual, polished on its support (module
    docstring). ``kkt_residual`` reports how well the KKT conditions hold (rounding level)."""
    Z, y = _check(Z, y)
    T, N = Z.shape
    A = np.vstack([Z - y[:, None], np.ones((1, N))])
    f = np.zeros(T + 1)
    f[-1] = 1.0
    u, _ = scipy.optimize.nnls(A, f, maxiter=50 * max(N, 10))
    s = float(u.sum())
    if s <= 0.0:                                      # cannot happen for finite data (u = e_j / (1 + ...) is better than 0)
        raise FloatingPointError("best_convex: the non-negative least-squares dual returned 0")
    w = u / s
    best = _result("convex", Z, y, w)
    S = np.flatnonzero(w > 0)
    if S.size > 1:                                    # polish: equality-constrained least squares on the support
        k = S.size
        B = np.linalg.qr(np.column_stack([np.ones(k), np.eye(k)[:, :k - 1]]))[0][:, 1:]   # basis of 1^T v = 0
        Zs = Z[:, S]
        w0 = np.full(k, 1.0 / k)
        v = np.linalg.lstsq(Zs @ B, y - Zs @ w0, rcond=None)[0]
        ws = w0 + B @ v
        if np.all(ws >= 0):
            w2 = np.zeros(N)
            w2[S] = ws
            w2 /= w2.sum()
            cand = _result("convex", Z, y, w2)
            if cand.cumulative_loss <= best.cumulative_loss:
                best = cand
    return OracleResult(**{**best.__dict__, "kkt_residual": _kkt_residual(Z, y, best.weights)})


def best_linear(Z, y) -> OracleResult:
    """The best linear combination in hindsight: least squares min_w (1/T) ||Z w - y||^2 (opera
    ``"linear"``), the minimum-norm solution by ``numpy.linalg.lstsq``: a singular Gram matrix
    (identical or collinear experts) is handled, not an error."""
    Z, y = _check(Z, y)
    w = np.linalg.lstsq(Z, y, rcond=None)[0]
    return _result("linear", Z, y, w)


def best_shifting(Z, y, K: int | None = None, *, paths: bool = True) -> ShiftingResult:
    """The best sequence of experts with at most k shifts, for every k = 0..K (opera ``"shifting"``).

    Dynamic programming (module docstring), one vectorised (K+1) x N update per step:
    D_t(k, j) = l_t(j) + min(D_{t-1}(k, j), min_i D_{t-1}(k-1, i)), D_0(k, j) = 0.

    Parameters
    ----------
    Z : array of shape (T, N)
        Expert forecasts.
    y : array of shape (T,)
        Labels.
    K : int or None, default=None
        Largest number of shifts; None: T - 1 (every number of shifts, as opera).
    paths : bool, default=True
        Also return the best path for each k (back-pointers and paths: about T (K+1) (N + 24)
        bytes, refused before allocation when they exceed the memory available now; with the
        default K = T - 1 that is quadratic in T: pass a small K, or ``paths=False``).
    """
    Z, y = _check(Z, y)
    T, N = Z.shape
    K = T - 1 if K is None else check_int(K, "K", minimum=0)
    L = (Z - y[:, None]) ** 2                          # l_t(j)
    if paths:
        # back-pointers (T, K+1, N) bool and (T, K+1) int64, then the paths (K+1, T) int64 and their
        # forecasts (K+1, T) float64: refused before any of them is allocated (issue 42)
        check_memory(float(T) * (K + 1) * (N + 24),
                     f"the shifting oracle's back-pointers and paths (T={T}, K={K}, N={N})")
        switched = np.empty((T, K + 1, N), dtype=bool)
        came = np.zeros((T, K + 1), dtype=np.int64)
    D = np.zeros((K + 1, N))
    prev = np.empty(K + 1)
    for t in range(T):
        if t == 0:
            D = np.broadcast_to(L[0], (K + 1, N)).copy()
            if paths:
                switched[0] = False
            continue
        arg = np.argmin(D, axis=1)                     # best end of each row k at t - 1
        prev[0] = np.inf
        prev[1:] = D[np.arange(K), arg[:K]]            # min_i D_{t-1}(k - 1, i)
        sw = prev[:, None] < D                         # shift only when strictly better (fewer shifts on ties)
        if paths:
            switched[t] = sw
            came[t, 1:] = arg[:K]
        D = np.where(sw, prev[:, None], D) + L[t]
    cum = D.min(axis=1)
    if not paths:
        return ShiftingResult(cum / T, cum, None, None)
    P = np.empty((K + 1, T), dtype=np.int64)
    for k in range(K + 1):
        j, kk = int(np.argmin(D[k])), k
        for t in range(T - 1, -1, -1):
            P[k, t] = j
            if switched[t, kk, j]:
                j, kk = int(came[t, kk]), kk - 1
    return ShiftingResult(cum / T, cum, P, Z[np.arange(T)[None, :], P])


def oracle(Z, y, model: str = "convex", **kwargs):
    """opera's ``oracle(Y = y, experts = Z, model = model, loss.type = "square")``: ``model`` one of
    "expert", "convex" (opera's default), "linear", "shifting" (``K``, ``paths`` passed on)."""
    fns = {"expert": best_expert, "convex": best_convex, "linear": best_linear, "shifting": best_shifting}
    if not isinstance(model, str) or model not in fns:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    if kwargs and model != "shifting":
        raise TypeError(f"oracle(model={model!r}) takes no extra arguments, got {', '.join(kwargs)}")
    return fns[model](Z, y, **kwargs)
