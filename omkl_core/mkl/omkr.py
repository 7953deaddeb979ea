"""OMKR (Sahoo, Hoi & Li, KDD 2014: online multiple kernel regression), the exact-kernel
baseline of paper 003 (section 5, Tables 1-4), as specified in reference D.2.

Each kernel k keeps a growing kernel expansion f_k(x) = sum_{s<t} c_{k,s} kappa_k(x, x_s)
and the prediction is the weighted combination:

    yhat_t = sum_k w_{k,t} / (sum_j w_{j,t}) f_k(x_t)
    c_{k,t} = -eta (f_k(x_t) - y_t)                 (OGD on the halved square loss, no budget)
    w_{k,t+1} = w_{k,t} beta^{(f_k(x_t) - y_t)^2}    (Hedge, beta = 0.5)

Exact kernels kappa_k(x, x') = exp(-|x - x'|^2 / (2 sigma_k^2)) (the paper's convention, so
the same sigma as the random-feature learners); ``bandwidth="code"`` is the authors' code
exp(-|x - x'|^2 / sigma_k^2) (reference D.2/D.3, no factor 2). Deterministic; per step
O(t d + t N) work (the distances |x_t - x_s|^2 once for all N kernels; all kernels and past points in
one vectorised expression); memory for the past points and coefficients grows geometrically
(doubling).

Engines (:mod:`omkl_core.compiled`): ``run`` is one compiled loop (``omkr_steps`` of
:mod:`omkl_core.mkl._kernels`: the exp of N kernels x a block of past points by oneMKL's ``vmdExp``
when the cosine library in force is oneMKL, else the C library's) on ``"numba"``, the NumPy step
below on ``"numpy"`` (the reference; ``predict_one`` / ``learn_one`` always take it); they agree to
rounding (sums in another order).
"""
from __future__ import annotations

import numpy as np

from ..base import OnlineLearner
from ..compiled import use_numba
from ..cosine import mkl_exp
from ..features import paper003_sigmas
from ..progress import progress_bar, progress_iter
from ..validation import (
    Check,
    Options,
    Positive,
    Real,
    check_label,
    check_matrix,
    check_point,
    check_state_array,
    check_vector,
)
from ._kernels import omkr_steps

__all__ = ["OMKR"]


def _check_sigmas(value, name):
    if value is None:
        return
    try:
        s = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be None or a sequence of positive numbers, got {value!r}") from None
    if s.ndim != 1 or s.size == 0 or not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise ValueError(f"{name} must be a non-empty 1-D sequence of finite positive numbers")


class OMKR(OnlineLearner):
    """Online multi-kernel regression with exact Gaussian kernels (no random features), one learner per
    kernel weighted by its past losses (OMKR, a baseline of paper 003).

    OMKR with N Gaussian kernels (paper 003's 41 by default).

    Parameters
    ----------
    eta : step size (paper 003 section 5: 1/sqrt(T) for all algorithms).
    beta : Hedge discount (0.5).
    schedule : "constant" or "inv_sqrt_t" (eta_t = eta/sqrt(t); the authors' code: eta = 0.1).
    bandwidth : "text" (exp(-r^2/(2 sigma^2))) or "code" (exp(-r^2/sigma^2)).
    sigmas : None (paper 003's grid) or a sequence of Gaussian sigmas.

    Attributes
    ----------
    X_ (t, d) past inputs; C_ (N, t) expansion coefficients; log_w_ (N,); weights_ (N,);
    expert_predictions_ (N,) f_k(x_t) of the last step.
    """

    _parameter_constraints = {
        "eta": Positive(),
        "beta": Real(0, 1, closed="neither"),
        "schedule": Options("constant", "inv_sqrt_t"),
        "bandwidth": Options("text", "code"),
        "sigmas": Check(_check_sigmas, invalid=[[], [1.0, -1.0], [[1.0]], "wide"]),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"eta": 0.2}

    def __init__(self, *, eta=0.05, beta=0.5, schedule="constant", bandwidth="text", sigmas=None):
        self.eta = eta
        self.beta = beta
        self.schedule = schedule
        self.bandwidth = bandwidth
        self.sigmas = sigmas
        super().__init__()

    def _reset(self):
        s = paper003_sigmas()[1] if self.sigmas is None else np.asarray(self.sigmas, dtype=np.float64)
        factor = 2.0 if self.bandwidth == "text" else 1.0
        self.a_ = 1.0 / (factor * s ** 2)              # kappa_k = exp(-a_k |r|^2)
        self.N_ = s.size
        self.d_ = None
        self._X = None
        self._C = None
        self._sq = None
        self.log_w_ = np.zeros(self.N_)                 # w_{k,1} = 1/N (a constant factor)
        self.expert_predictions_ = None
        self._pending = None

    @property
    def X_(self):
        return None if self._X is None else self._X[: self.t_]

    @property
    def C_(self):
        return None if self._C is None else self._C[:, : self.t_]

    @property
    def weights_(self):
        with np.errstate(invalid="ignore"):
            w = np.exp(self.log_w_ - self.log_w_.max())
        return w / w.sum()

    def _grow(self, d, need=None):
        """Room for the past points: 64 at first, doubled while fewer than ``need`` (default: the
        step about to be stored, t_ + 1) fit -- amortised O(1) copies."""
        need = self.t_ + 1 if need is None else need
        if self._X is None:
            self.d_ = d
            cap = 64
            self._X = np.empty((cap, d))
            self._C = np.empty((self.N_, cap))
            self._sq = np.empty(cap)
        if need > self._X.shape[0]:                     # geometric growth
            cap = self._X.shape[0]
            while cap < need:
                cap *= 2
            X, C, sq = self._X, self._C, self._sq
            self._X = np.empty((cap, self.d_))
            self._X[: self.t_] = X[: self.t_]
            self._C = np.empty((self.N_, cap))
            self._C[:, : self.t_] = C[:, : self.t_]
            self._sq = np.empty(cap)
            self._sq[: self.t_] = sq[: self.t_]

    def _experts(self, x):
        """f_k(x_t) for all k: sum_s c_{k,s} exp(-a_k |x_t - x_s|^2), one (N, t) expression."""
        t = self.t_
        if t == 0:
            return np.zeros(self.N_)
        r2 = np.maximum(self._sq[:t] - 2.0 * (self._X[:t] @ x) + x @ x, 0.0)   # |x_t - x_s|^2
        K = np.exp(-np.multiply.outer(self.a_, r2))                             # (N, t)
        return np.einsum("kt,kt->k", K, self._C[:, :t])

    def _check_state(self):
        """Refuse (ValueError naming it) a learned state the loops would index out of bounds -- an
        attribute written from outside (``log_w_``, ``t_``): before every step and every ``run``, on
        both engines (the compiled loop indexes without bounds checks)."""
        check_state_array("OMKR", "log_w_", self.log_w_, (self.N_,))
        check_state_array("OMKR", "a_", self.a_, (self.N_,))
        t = self.t_
        cap = 0 if self._X is None else self._X.shape[0]
        if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= t <= cap:
            raise ValueError(f"OMKR.t_ must be an integer 0..{cap} (the past points stored), got {t!r}: it was "
                             "written from outside; reset() starts the learner afresh")
        if self._X is not None:
            check_state_array("OMKR", "_X", self._X, (cap, self.d_))
            check_state_array("OMKR", "_C", self._C, (self.N_, cap))
            check_state_array("OMKR", "_sq", self._sq, (cap,))

    def _nonfinite(self, step: int, value: float) -> FloatingPointError:
        """The error of a non-finite forecast at ``step`` (1-based), the same on the step path and in
        ``run`` on either engine."""
        return FloatingPointError(
            f"OMKR produced a non-finite forecast ({value!r}) at step t = {step}: its kernel expansions diverged "
            f"(the coefficients c_k,t = -eta (f_k - y_t) grow geometrically when eta = {self.eta!r} is too large "
            "for this stream); reset() and use a smaller eta")

    def _predict(self, x):
        if self._pending is not None and np.array_equal(self._pending[0], x):
            return self._pending[1]
        self._check_state()
        f = self._experts(x)
        w = self.weights_
        with np.errstate(invalid="ignore", over="ignore"):
            yhat = float(w @ f)
        if not np.isfinite(yhat):                      # never a silent NaN / inf forecast
            raise self._nonfinite(self.t_ + 1, yhat)
        out = (f, yhat)
        self._pending = (x.copy(), out)
        return out

    def _check_x(self, x):
        x = check_point(x, name="x")
        if self.d_ is not None and x.shape[0] != self.d_:
            raise ValueError(f"x has dimension {x.shape[0]}, expected d={self.d_}")
        return x

    def predict_one(self, x) -> float:
        x = self._check_x(x)
        return self._predict(x)[1]

    def learn_one(self, x, y) -> None:
        y = check_label(y, "y")   # finite, |y| <= MAX_MAGNITUDE
        x = self._check_x(x)
        f, _ = self._predict(x)
        self._update(x, y, f)
        self._pending = None

    def _update(self, x, y, f):
        eta = self.eta if self.schedule == "constant" else self.eta / np.sqrt(self.t_ + 1)
        self._grow(x.shape[0])
        t = self.t_
        self._X[t] = x
        self._sq[t] = x @ x
        resid = f - y
        with np.errstate(over="ignore", invalid="ignore"):          # a divergence is refused at the next forecast
            self._C[:, t] = -eta * resid                             # c_{k,t} = -eta (f_k - y)
            self.log_w_ += np.log(self.beta) * resid ** 2            # w <- w beta^{(f_k - y)^2}
        self.expert_predictions_ = f
        self.t_ += 1

    def run(self, X, y, progress: bool = False):
        """Predictions over a stream (the same loop, without per-step validation)."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        if self.d_ is not None and X.shape[1] != self.d_:
            raise ValueError(f"X has {X.shape[1]} columns, expected d={self.d_}")
        T = X.shape[0]
        self._check_state()
        P = np.empty(T)
        if T and use_numba():
            self._run_compiled(X, y, P, progress)
            return P
        steps = range(T)
        if progress:
            steps = progress_iter(steps, desc="OMKR")
        for t in steps:
            f = self._experts(X[t])
            with np.errstate(invalid="ignore", over="ignore"):
                P[t] = self.weights_ @ f
            if not np.isfinite(P[t]):                  # as the step path: the same step, the same error
                raise self._nonfinite(self.t_ + 1, float(P[t]))
            self._update(X[t], float(y[t]), f)
        self._pending = None
        return P

    def _run_compiled(self, X, y, P, progress):
        """The compiled loop (:func:`omkl_core.mkl._kernels.omkr_steps`) over the stream, in blocks of
        steps when ``progress``."""
        T = X.shape[0]
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        self._grow(X.shape[1], self.t_ + T)
        f = np.zeros(self.N_)
        vexp = mkl_exp()
        c0 = 0
        with progress_bar(T, desc="OMKR", leave=False, enabled=progress) as bar:
            while c0 < T:
                n = min(T - c0, max(16, T // 50)) if progress else T - c0
                omkr_steps(X, y, c0, n, self.t_, self._X, self._sq, self._C, self.log_w_, self.a_, float(self.eta),
                           self.schedule == "inv_sqrt_t", float(np.log(self.beta)), P, f, vexp)
                bad = np.flatnonzero(~np.isfinite(P[c0:c0 + n]))
                if bad.size:                           # as the step path (run restores the state it began with)
                    raise self._nonfinite(self.t_ + int(bad[0]) + 1, float(P[c0 + int(bad[0])]))
                self.t_ += n
                c0 += n
                bar.update(n)
        self.expert_predictions_ = f
        self._pending = None
