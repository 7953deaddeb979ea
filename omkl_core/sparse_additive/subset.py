"""Best-subset selection, eq. (3) of paper 004 (T. Zhang, ch. 10 slides "Sparse Learning").

w_hat = argmin over supports F and w with supp(w) in F of (1/n) sum_i (1/2)(w'x_i - y_i)^2 + r(F),
solved by exhaustive enumeration of the supports (the problem is NP-hard in general).
"""
from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from ..base import BatchLearner
from ..validation import Check, check_int, check_matrix, check_nonneg, check_vector

__all__ = ["BestSubset", "MAX_SUPPORTS"]

#: the largest number of supports BestSubset enumerates before refusing
MAX_SUPPORTS = 2_000_000


def _check_penalty(v, name):
    if callable(v):
        return v
    return check_nonneg(v, name)


def _check_max_size(v, name):
    return v if v is None else check_int(v, name, minimum=0)


class BestSubset(BatchLearner):
    """Exhaustive best-subset regression, eq. (3) with the squared loss phi = (1/2)(w'x - y)^2.

    Parameters
    ----------
    penalty : float or callable, default=0.0
        A float lam gives r(F) = lam * sqrt(|F|) (Example 6: lam = c' sqrt(ln m / n));
        a callable is r(F) itself, called with the support as a sorted tuple of column indices.
    max_size : int or None, default=None
        Largest support size enumerated (None: all p columns). More than
        ``MAX_SUPPORTS`` = 2,000,000 supports is refused with a ValueError.

    Attributes
    ----------
    w_ : ndarray of shape (p,)
        The minimiser (least squares on the chosen support; zeros elsewhere).
    support_ : tuple of int
        The chosen F.
    objective_ : float
        (1/n) sum_i (1/2)(w_'x_i - y_i)^2 + r(F).
    n_supports_ : int
        Number of supports enumerated.
    n_features_in_ : int
    """

    _parameter_constraints = {"penalty": Check(_check_penalty, invalid=[-1.0, float("nan"), "1"]),
                              "max_size": Check(_check_max_size, invalid=[-1, 1.5])}

    def __init__(self, *, penalty=0.0, max_size=None):
        self.penalty = penalty
        self.max_size = max_size
        super().__init__()

    def _r(self, F):
        if callable(self.penalty):
            v = self.penalty(F)
            if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
                raise ValueError(f"penalty(F) must return a finite real number, got {v!r} for F={F}")
            return float(v)
        return float(self.penalty) * math.sqrt(len(F))

    def fit(self, X, y):
        self._validate_params()
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        n, p = X.shape
        smax = p if self.max_size is None else min(int(self.max_size), p)
        count = sum(math.comb(p, s) for s in range(smax + 1))
        if count > MAX_SUPPORTS:
            raise ValueError(f"max_size={self.max_size} with p={p} columns needs {count} supports, "
                             f"more than {MAX_SUPPORTS}; lower max_size")
        yy = float(y @ y)
        best = (math.inf, (), np.zeros(p))
        for s in range(smax + 1):
            for F in itertools.combinations(range(p), s):
                if s == 0:
                    wF = np.zeros(0)
                    rss = yy
                else:
                    idx = list(F)
                    wF = np.linalg.lstsq(X[:, idx], y, rcond=None)[0]
                    r = X[:, idx] @ wF - y
                    rss = float(r @ r)
                obj = 0.5 * rss / n + self._r(F)                         # eq. (3)
                if obj < best[0]:
                    w = np.zeros(p)
                    w[list(F)] = wF
                    best = (obj, F, w)
        self.objective_, self.support_, self.w_ = best
        self.n_supports_ = count
        self.n_features_in_ = p
        return self

    def predict(self, X):
        if not hasattr(self, "w_"):
            raise ValueError("this BestSubset is not fitted yet: call fit(X, y) first")
        X = check_matrix(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, expected {self.n_features_in_}")
        return X @ self.w_
