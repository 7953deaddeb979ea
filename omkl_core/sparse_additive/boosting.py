"""Boosting (paper 004, T. Zhang, ch. 10 slides "Boosting"): Algorithm 1 (AdaBoost) and
Algorithm 2 (gradient boosting), with exact weak learners.

Weak learners (the class Psi of eq. (1) / (10)):

* ``"stump"`` (AdaBoost): psi(theta, x) = s * sgn(x_k - tau) with s in {-1, +1}, feature k and
  a threshold tau at the midpoint between two consecutive distinct training values of x_k;
  sgn(u) = +1 for u > 0 and -1 for u <= 0. The family is closed under negation (Psi = Psi_pm,
  as Theorem 26 assumes). Line 5 of Algorithm 1 is solved *exactly*: the weighted edge
  r(theta) = sum_i rho_i psi(theta, X_i) Y_i of every (k, tau, s) is computed from one prefix
  sum per feature (one argsort per feature at the start of ``fit``, O(d n) per round).
* ``"stump"`` (gradient boosting): two-leaf regression stumps x -> a 1(x_k <= tau) + b 1(x_k > tau);
  line 4 of Algorithm 2 is solved exactly (leaf means of -g, the best split by the exact
  least-squares reduction).
* ``"columns"``: X already holds the dictionary values psi_j(X_i) (AdaBoost: +-1 entries) and
  Psi_pm = {+-columns}.

Ties between equally good weak learners are broken deterministically: smallest feature (or
column) index, then smallest threshold, then s = +1 before s = -1.
"""
from __future__ import annotations

import math

import numpy as np

from ..base import BatchLearner
from ..validation import Check, Integer, Options, Real, check_matrix, check_option, check_vector

#: Machine epsilon of float64: stop rule 1 of :class:`AdaBoost` reads r_t <= 2 n eps as r_t <= 0.
_EPS = float(np.finfo(np.float64).eps)

__all__ = ["AdaBoost", "GradientBoosting", "best_stump", "best_regression_stump"]


# ----------------------------------------------------------------------------------------
# exact weak learners
# ----------------------------------------------------------------------------------------
def _sorted_features(X):
    """Per feature: the argsort, the sorted values and the valid split positions."""
    order = np.argsort(X, axis=0, kind="stable")
    Xs = np.take_along_axis(X, order, axis=0)
    valid = Xs[1:] > Xs[:-1]                          # (n-1, d): a threshold between rows i, i+1
    thresholds = 0.5 * (Xs[1:] + Xs[:-1])             # midpoints between consecutive values
    return order, Xs, valid, thresholds


def best_stump(X, v, _sorted=None):
    """Exact maximiser of the edge sum_i v_i psi(x_i) over the stumps s*sgn(x_k - tau).

    ``v`` = rho * Y (slide eq. (10), line 5 of Algorithm 1). Returns (k, tau, s, edge).
    For the threshold between sorted positions i and i+1 of feature k, the stump with s = +1
    has edge total - 2 * (prefix sum of v up to i): one cumulative sum per feature.
    Raises ``ValueError`` naming X when no feature takes two distinct values.
    """
    order, Xs, valid, thresholds = _sorted if _sorted is not None else _sorted_features(X)
    vs = v[order]                                      # (n, d) v in the sorted order of each feature
    prefix = np.cumsum(vs, axis=0)[:-1]                # (n-1, d)
    edge_plus = v.sum() - 2.0 * prefix                 # s = +1
    score = np.where(valid, np.abs(edge_plus), -np.inf)
    if not np.any(valid):
        raise ValueError("X has no feature with two distinct values: no stump can be formed")
    # deterministic tie-break: smallest feature, then smallest threshold (row order of Xs)
    best = score.max()
    ks = np.flatnonzero((score == best).any(axis=0))
    k = int(ks[0])
    i = int(np.flatnonzero(score[:, k] == best)[0])
    e = float(edge_plus[i, k])
    s = 1.0 if e >= 0 else -1.0
    return k, float(thresholds[i, k]), s, abs(e)


def _stump_values(X, k, tau, s):
    return np.where(X[:, int(k)] > tau, s, -s)


def best_regression_stump(X, target, _sorted=None):
    """Exact least-squares two-leaf stump for ``target`` (= -g): returns (k, tau, left, right, sse_reduction).

    For a split after sorted position i the fitted leaves are the means of the target and the
    reduction of sum (target - fit)^2 over the constant fit is n_l m_l^2 + n_r m_r^2 - n m^2.
    """
    order, Xs, valid, thresholds = _sorted if _sorted is not None else _sorted_features(X)
    if not np.any(valid):
        raise ValueError("X has no feature with two distinct values: no stump can be formed")
    n = X.shape[0]
    ts = target[order]
    prefix = np.cumsum(ts, axis=0)[:-1]
    total = target.sum()
    nl = np.arange(1, n, dtype=np.float64)[:, None]
    nr = n - nl
    gain = prefix**2 / nl + (total - prefix) ** 2 / nr - total**2 / n
    gain = np.where(valid, gain, -np.inf)
    best = gain.max()
    ks = np.flatnonzero((gain == best).any(axis=0))
    k = int(ks[0])
    i = int(np.flatnonzero(gain[:, k] == best)[0])
    left = float(prefix[i, k] / nl[i, 0])
    right = float((total - prefix[i, k]) / nr[i, 0])
    return k, float(thresholds[i, k]), left, right, float(best)


def _check_pm1(y, name="y"):
    bad = ~np.isin(y, (-1.0, 1.0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name} must take values in {{-1, +1}}; got {y[i]!r} at index {i}")


# ----------------------------------------------------------------------------------------
# AdaBoost
# ----------------------------------------------------------------------------------------

def _check_fitted_X(model, X, fitted_attr: str):
    """X for a fitted boosting model: 2-D, finite, with the training number of features."""
    if not hasattr(model, fitted_attr):
        raise ValueError(f"this {type(model).__name__} is not fitted yet: call fit(X, y) first")
    X = check_matrix(X, "X")
    if X.shape[1] != model.n_features_in_:
        raise ValueError(f"X has {X.shape[1]} features, expected {model.n_features_in_}")
    return X

class AdaBoost(BatchLearner):
    """AdaBoost, Algorithm 1 of the slides (Thm 10.29 / Cor 10.30 of the book).

    f^(0) = 0, rho_i = 1/n; for t = 1..T: theta_t = argmax_theta r(theta) (line 5, exact),
    r_t = sum_i rho_i psi(theta_t, X_i) Y_i (line 6), w_t = (1/2) ln((1 + r_t)/(1 - r_t))
    (line 7), rho_i <- rho_i exp(-w_t psi(theta_t, X_i) Y_i) normalised (lines 8-9),
    f^(t) = f^(t-1) + w_t psi(theta_t, .) (line 10).

    Parameters
    ----------
    n_rounds : int, default=100
        T, the number of rounds (at most; see the stop rules).
    weak_learner : {"stump", "columns"}, default="stump"
        ``"stump"``: s * sgn(x_k - tau) on one feature (exact maximiser of the weighted edge);
        ``"columns"``: X is a +-1 dictionary matrix and Psi_pm = {+-columns}.

    Attributes
    ----------
    n_rounds_ : int
        T_run, the number of rounds actually run (<= n_rounds).
    w_ : ndarray of shape (T_run,)
        w_t (line 7); ``inf`` for a perfect weak learner (stop rule 2).
    r_ : ndarray of shape (T_run,)
        The edges r_t (line 6).
    rho_ : ndarray of shape (T_run, n)
        The sample weights used in round t (rows sum to 1); row t-1 is prop. to exp(-f^(t-1)(X_i) Y_i).
    theta_ : ndarray of shape (T_run, 3)
        (feature or column index, threshold (NaN for columns), sign s) of psi(theta_t, .).
    n_features_in_ : int

    Notes
    -----
    Deviations from the printed algorithm (named, each with a test):

    1. Stop rule r_t <= 0: when no weak learner has a positive edge (then r_t = 0 since Psi is
       closed under negation) the round would have w_t = 0 and change nothing; AdaBoost stops
       and ``n_rounds_`` = t - 1. "r_t <= 0" is decided up to the rounding of line 6's sum of n
       terms rho_i psi_i Y_i (sum rho_i = 1, |psi_i Y_i| = 1: an error of at most about n eps):
       a computed r_t <= 2 n eps (eps = 2.2e-16) is taken as 0. Without that, an edge that is 0 in
       exact arithmetic can come out as +1e-16 on one machine's summation order and 0 on
       another's, and the round kept with w_t = 5e-17 -- or w_t = 0.0 after rounding.
    2. Stop rule r_t = 1: a weak learner classifies every training point correctly (tested
       exactly, psi_t(X_i) Y_i = 1 for all i, so that round-off in sum_i rho_i cannot hide it); line 7
       gives w_t = +inf (the limit). It is kept with ``w_ = inf`` and AdaBoost stops; the
       decision function is then +-inf and ``predict`` is that learner's sign. Theorem 26's
       (1/n) sum exp(-f Y) = prod sqrt(1 - r_t^2) = 0 still holds.

    ``predict`` returns +1 where f^(T)(x) >= 0 and -1 elsewhere (f = 0 goes to +1).

    Examples
    --------
    >>> import numpy as np
    >>> from omkl_core.sparse_additive import AdaBoost
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([-1.0, -1.0, 1.0, 1.0])
    >>> model = AdaBoost(n_rounds=5).fit(X, y)
    >>> model.predict(X).tolist(), model.n_rounds_, float(model.theta_[0, 1])
    ([-1.0, -1.0, 1.0, 1.0], 1, 1.5)
    """

    _parameter_constraints = {
        "n_rounds": Integer(1),
        "weak_learner": Options("stump", "columns"),
    }

    def __init__(self, *, n_rounds=100, weak_learner="stump"):
        self.n_rounds = n_rounds
        self.weak_learner = weak_learner
        super().__init__()

    def fit(self, X, y):
        self._validate_params()
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        _check_pm1(y)
        n, d = X.shape
        if self.weak_learner == "columns":
            _check_pm1(X.ravel(), "X (weak_learner='columns' needs a +-1 dictionary)")
            sorted_ = None
        else:
            sorted_ = _sorted_features(X)
        rho = np.full(n, 1.0 / n)                                   # line 2
        ws, rs, rhos, thetas = [], [], [], []
        for _t in range(self.n_rounds):                             # line 3
            v = rho * y
            if self.weak_learner == "columns":
                edges = X.T @ v
                j = int(np.argmax(np.abs(edges)))
                s = 1.0 if edges[j] >= 0 else -1.0
                theta = (float(j), math.nan, s)
                psi = s * X[:, j]
            else:
                k, tau, s, _ = best_stump(X, v, sorted_)           # line 5 (exact)
                theta = (float(k), tau, s)
                psi = _stump_values(X, k, tau, s)
            r = float(np.dot(rho, psi * y))                         # line 6
            if r <= 2.0 * n * _EPS:                                 # stop rule 1 (r_t <= 0 up to rounding)
                break
            rhos.append(rho)
            perfect = bool(np.all(psi * y > 0))
            rs.append(1.0 if perfect else r)
            thetas.append(theta)
            if perfect or r >= 1.0:                                 # stop rule 2: r_t = 1, w_t = +inf
                ws.append(math.inf)
                break
            w = 0.5 * math.log((1.0 + r) / (1.0 - r))               # line 7
            ws.append(w)
            rho = rho * np.exp(-w * psi * y)                        # line 8
            rho = rho / rho.sum()                                   # line 9
        self.w_ = np.asarray(ws, dtype=np.float64)
        self.r_ = np.asarray(rs, dtype=np.float64)
        self.rho_ = np.asarray(rhos, dtype=np.float64).reshape(len(rhos), n)
        self.theta_ = np.asarray(thetas, dtype=np.float64).reshape(len(thetas), 3)
        self.n_rounds_ = len(ws)
        self.n_features_in_ = d
        return self

    def _check_X(self, X):
        return _check_fitted_X(self, X, "w_")

    def weak_outputs(self, X) -> np.ndarray:
        """psi(theta_t, X_i) for every round: shape (T_run, n)."""
        X = self._check_X(X)
        out = np.empty((self.n_rounds_, X.shape[0]))
        for t, (k, tau, s) in enumerate(self.theta_):
            out[t] = s * X[:, int(k)] if self.weak_learner == "columns" else _stump_values(X, k, tau, s)
        return out

    def staged_decision_function(self, X) -> np.ndarray:
        """f^(t)(X_i) for t = 1..T_run: shape (T_run, n), row t-1 = f^(t) (line 10)."""
        psi = self.weak_outputs(X)
        return np.cumsum(self.w_[:, None] * psi, axis=0)

    def decision_function(self, X) -> np.ndarray:
        """f^(T)(x) = sum_t w_t psi(theta_t, x), not normalised by sum_t w_t."""
        X = self._check_X(X)
        if self.n_rounds_ == 0:
            return np.zeros(X.shape[0])
        return self.staged_decision_function(X)[-1]

    def predict(self, X) -> np.ndarray:
        """+1 where f^(T)(x) >= 0, else -1."""
        return np.where(self.decision_function(X) >= 0, 1.0, -1.0)


# ----------------------------------------------------------------------------------------
# gradient boosting
# ----------------------------------------------------------------------------------------
class _Squared:
    """L(p, y) = (1/2)(p - y)^2, L'_1 = p - y."""
    def value(self, p, y):
        return 0.5 * (p - y) ** 2

    def derivative(self, p, y):
        return p - y


class _Logistic:
    """L(p, y) = ln(1 + exp(-p y)), y in {-1, +1}; L'_1 = -y / (1 + exp(p y))."""
    def value(self, p, y):
        return np.logaddexp(0.0, -p * y)

    def derivative(self, p, y):
        return -y * np.exp(-np.logaddexp(0.0, p * y))


class _Exponential:
    """L(p, y) = exp(-p y); L'_1 = -y exp(-p y)."""
    def value(self, p, y):
        return np.exp(-p * y)

    def derivative(self, p, y):
        return -y * np.exp(-p * y)


_LOSSES = {"squared": _Squared, "logistic": _Logistic, "exponential": _Exponential}


def _check_loss(v, name):
    if isinstance(v, str):
        return check_option(v, name, tuple(_LOSSES))
    if not (callable(getattr(v, "value", None)) and callable(getattr(v, "derivative", None))):
        raise TypeError(f"{name} must be one of {tuple(_LOSSES)} or an object with value(p, y) and derivative(p, y)")
    return v


class GradientBoosting(BatchLearner):
    """Gradient boosting, Algorithm 2 of the slides.

    f^(0) = 0; for t = 1..T: g_i = L'_1(f^(t-1)(X_i), Y_i) (line 3),
    [w_t, theta_t] = argmin_{w, theta} sum_i (w psi(theta, X_i) + g_i)^2 (line 4, exact),
    f^(t) = f^(t-1) + nu * w_t psi(theta_t, .) (line 5; nu = ``learning_rate``, 1 as printed).

    Parameters
    ----------
    n_rounds : int, default=100
        T.
    loss : {"squared", "logistic", "exponential"} or object, default="squared"
        ``"squared"``: L = (1/2)(p - y)^2 (with the 1/2 the full step fits the residual
        exactly; without it, g = 2(p - y) and the full step overshoots by a factor 2);
        ``"logistic"``: ln(1 + e^{-py}); ``"exponential"``: e^{-py} (y in {-1, +1} for both);
        or an object with ``value(p, y)`` and ``derivative(p, y)`` (vectorised).
    weak_learner : {"stump", "columns"}, default="stump"
        Two-leaf regression stumps, or the columns of X as the dictionary psi_j(X_i).
    learning_rate : float in (0, 1], default=1.0
        nu; 1 is Algorithm 2 as printed, nu < 1 is forward-stagewise shrinkage (a named option).

    Attributes
    ----------
    n_rounds_ : int
        Rounds run (stops early when the best weak learner cannot reduce (line 4), e.g. g = 0).
    theta_ : ndarray of shape (n_rounds_, 4)
        Stumps: (feature, threshold, left value, right value) of nu*w_t*psi(theta_t, .);
        columns: (column, NaN, coefficient nu*w_t, NaN).
    loss_ : ndarray of shape (n_rounds_,)
        (1/n) sum_i L(f^(t)(X_i), Y_i) after round t.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from omkl_core.sparse_additive import GradientBoosting
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([1.0, 1.0, 3.0, 3.0])
    >>> model = GradientBoosting(n_rounds=3).fit(X, y)   # the first full step fits the residual exactly
    >>> model.predict(X).tolist(), model.n_rounds_
    ([1.0, 1.0, 3.0, 3.0], 1)
    """

    _parameter_constraints = {
        "n_rounds": Integer(1),
        "loss": Check(_check_loss, invalid=["no-such-loss", 1.0]),
        "weak_learner": Options("stump", "columns"),
        "learning_rate": Real(0.0, 1.0, closed="right"),
    }

    def __init__(self, *, n_rounds=100, loss="squared", weak_learner="stump", learning_rate=1.0):
        self.n_rounds = n_rounds
        self.loss = loss
        self.weak_learner = weak_learner
        self.learning_rate = learning_rate
        super().__init__()

    def _loss_obj(self):
        return _LOSSES[self.loss]() if isinstance(self.loss, str) else self.loss

    def fit(self, X, y):
        self._validate_params()
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        if self.loss in ("logistic", "exponential"):
            _check_pm1(y)
        L = self._loss_obj()
        nu = float(self.learning_rate)
        n, d = X.shape
        sorted_ = _sorted_features(X) if self.weak_learner == "stump" else None
        if self.weak_learner == "columns":
            norms2 = (X * X).sum(axis=0)
        f = np.zeros(n)                                              # line 1
        thetas, losses = [], []
        for _t in range(self.n_rounds):
            g = np.asarray(L.derivative(f, y), dtype=np.float64)     # line 3
            if not np.all(np.isfinite(g)):
                raise ValueError("loss derivative is not finite at the current predictions")
            if self.weak_learner == "stump":
                k, tau, a, b, gain = best_regression_stump(X, -g, sorted_)   # line 4 (exact)
                if not gain > 0:
                    break
                step = np.where(X[:, k] > tau, b, a) * nu
                thetas.append((float(k), tau, nu * a, nu * b))
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    red = np.where(norms2 > 0, (X.T @ g) ** 2 / norms2, 0.0)
                j = int(np.argmax(red))
                if not red[j] > 0:
                    break
                w = -float(X[:, j] @ g) / norms2[j]                  # line 4: w = -g'psi / |psi|^2
                step = nu * w * X[:, j]
                thetas.append((float(j), math.nan, nu * w, math.nan))
            f = f + step                                             # line 5
            losses.append(float(np.mean(L.value(f, y))))
        self.theta_ = np.asarray(thetas, dtype=np.float64).reshape(len(thetas), 4)
        self.loss_ = np.asarray(losses, dtype=np.float64)
        self.n_rounds_ = len(thetas)
        self.n_features_in_ = d
        return self

    def _check_X(self, X):
        return _check_fitted_X(self, X, "theta_")

    def staged_decision_function(self, X) -> np.ndarray:
        """f^(t)(X_i), t = 1..n_rounds_: shape (n_rounds_, n)."""
        X = self._check_X(X)
        out = np.empty((self.n_rounds_, X.shape[0]))
        for t, (k, tau, a, b) in enumerate(self.theta_):
            out[t] = np.where(X[:, int(k)] > tau, b, a) if self.weak_learner == "stump" else a * X[:, int(k)]
        return np.cumsum(out, axis=0)

    def decision_function(self, X) -> np.ndarray:
        X = self._check_X(X)
        if self.n_rounds_ == 0:
            return np.zeros(X.shape[0])
        return self.staged_decision_function(X)[-1]

    def predict(self, X) -> np.ndarray:
        """f^(T)(x) for the squared (or a custom) loss; +1 where f >= 0 else -1 for logistic/exponential."""
        f = self.decision_function(X)
        if isinstance(self.loss, str) and self.loss in ("logistic", "exponential"):
            return np.where(f >= 0, 1.0, -1.0)
        return f
