"""What the ridge family of paper 002 shares: the running totals, ``run`` and ``trajectory``
(:class:`RidgeTrajectory`), and the Gaussian log loss of Section 3."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..base import OnlineLearner
from ..kernels import make_kernel
from ..validation import (
    Checked,
    check_label,
    check_magnitude,
    check_matrix,
    check_vector,
)

__all__ = ["RidgeTrajectory"]

_LOG_2PI = math.log(2.0 * math.pi)


@dataclass
class RidgeTrajectory:
    """Per-step quantities of one pass over a stream (what the paper's equalities sum).

    Attributes
    ----------
    gamma : ndarray of shape (T,)
        The unclipped predictions gamma_t (the means of the predictive distributions for the
        Bayesian learners).
    prediction : ndarray of shape (T,)
        What ``predict_one`` returned (gamma_t^Y when ``clip`` is set).
    denominator : ndarray of shape (T,)
        1 + x_t'A_{t-1}^{-1}x_t (kernel form 1 + (K(x_t,x_t) - k_t'(aI+K_{t-1})^{-1}k_t)/a).
    variance : ndarray of shape (T,)
        sigma_t^2 = sigma^2 * denominator (Bayesian learners, else NaN).
    log_loss : ndarray of shape (T,)
        -ln N(y_t; gamma_t, sigma_t^2) (Bayesian learners, else NaN).
    """

    gamma: np.ndarray
    prediction: np.ndarray
    denominator: np.ndarray
    variance: np.ndarray
    log_loss: np.ndarray

    def cumulative(self, y) -> dict:
        """Running sums over T of the terms of (1), (2), (14), (16): a dict of (T,) arrays
        ``weighted_loss``, ``square_loss`` (of ``prediction``), ``log_det`` and ``log_loss``."""
        y = np.asarray(y, dtype=np.float64)
        return {
            "weighted_loss": np.cumsum((y - self.gamma) ** 2 / self.denominator),
            "square_loss": np.cumsum((y - self.prediction) ** 2),
            "log_det": np.cumsum(np.log(self.denominator)),
            "log_loss": np.cumsum(self.log_loss),
        }


def _gaussian_log_loss(y: float, mean: float, var: float) -> float:
    """-ln N(y; mean, var) (the logarithmic loss of a normal density, Section 3)."""
    return 0.5 * (_LOG_2PI + math.log(var)) + (y - mean) ** 2 / (2.0 * var)


def _check_kernel(value, name):
    if value is None:
        raise TypeError(f"{name} is required (a Kernel object, a kernel name or a callable k(x, x'))")
    try:
        make_kernel(value)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"{name}: {exc}") from None


class _RidgeBase(OnlineLearner):
    """Shared driver: validation, running totals, ``run`` and ``trajectory``."""

    _bayesian = False

    def _reset_totals(self):
        self.weighted_loss_ = 0.0
        self.square_loss_ = 0.0
        self.log_det_ = 0.0
        self.log_loss_ = 0.0

    def _clip(self, gamma: float) -> float:
        if self.clip is None:
            return gamma
        return min(max(gamma, -self.clip), self.clip)

    # subclasses implement: _check_x(x) -> validated x; _gamma_h(x) -> (gamma, h, cache)
    # with denominator 1 + h; _update(x, y, gamma, h, cache).

    def _checked(self, x):
        """(x_t checked as given, the learner's input from it): :meth:`_check_x` in two parts, for a
        subclass whose input is not the checked point itself (``OnlineRidge(fit_intercept=True)``)."""
        v = self._check_x(x)
        return v, v

    def predict_one(self, x) -> float:
        """gamma_t (clipped to [-clip, clip] if ``clip`` is set), before y_t is revealed."""
        v, xa = self._checked(x)
        gamma, h, cache = self._gamma_h(xa)
        # reused by learn_one on the same x_t, recognised by Checked without a second scan; the
        # learner's input kept where it is not the checked x_t itself (which learn_one is given again)
        self._forecast = (self.t_, Checked(v), None if xa is v else xa, (gamma, h, cache))
        return self._clip(gamma)

    def learn_one(self, x, y) -> None:
        """Reveal y_t for input x_t: accumulate the loss terms, then update the state (from
        ``predict_one``'s gamma_t and h_t when it saw the same x_t at this step)."""
        f = self._forecast
        if f is not None and f[0] == self.t_ and f[1].matches(x):     # the x_t predict_one checked
            self._step(x if f[2] is None else f[2], check_label(y, "y"), f[3])
            return
        v, x = self._checked(x)
        y = check_label(y, "y")
        self._step(x, y, f[3] if f is not None and f[0] == self.t_ and f[1].matches(v) else None)

    def _step(self, x, y, forecast=None):
        self._forecast = None
        gamma, h, cache = self._gamma_h(x) if forecast is None else forecast
        den = 1.0 + h
        if not den > 0.0 or not math.isfinite(den):
            raise FloatingPointError(f"non-positive denominator 1 + x'A^-1 x = {den!r} at step {self.t_ + 1}: "
                                     "the (kernel) matrix lost positive definiteness")
        try:                                   # the step's terms first: nothing changes until all are finite
            e = y - gamma
            weighted = self.weighted_loss_ + e * e / den
            square = self.square_loss_ + (y - self._clip(gamma)) ** 2
            log_det = self.log_det_ + math.log1p(h)
            ll = math.nan
            log_loss = self.log_loss_
            if self._bayesian:
                ll = _gaussian_log_loss(y, gamma, self.sigma2 * den)
                log_loss += ll
            if not (math.isfinite(weighted) and math.isfinite(square)):
                raise OverflowError
        except OverflowError:
            raise OverflowError(f"y = {y:.3g} at step {self.t_ + 1} (prediction gamma = {gamma:.3g}): the squared "
                                "error (y - gamma)^2 overflows float64; rescale y (e.g. "
                                "omkl_core.datasets.normalise_stream)") from None
        self._update(x, y, gamma, h, cache)
        self.weighted_loss_, self.square_loss_, self.log_det_, self.log_loss_ = weighted, square, log_det, log_loss
        self.t_ += 1
        return gamma, den, ll

    def _check_stream(self, X, y):
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        check_magnitude(X, "X")
        check_magnitude(y, "y")
        d = self._dim()
        if d is not None and X.shape[1] != d:
            raise ValueError(f"X has {X.shape[1]} columns, the learner has seen d={d}")
        return X, y

    def trajectory(self, X, y) -> RidgeTrajectory:
        """Run predict-then-learn over (X, y) from the current state; return per-step terms."""
        X, y = self._check_stream(X, y)
        T = X.shape[0]
        gam, den, ll = np.empty(T), np.empty(T), np.full(T, np.nan)
        for t in range(T):
            gam[t], den[t], ll[t] = self._step(X[t], float(y[t]))
        pred = gam if self.clip is None else np.clip(gam, -self.clip, self.clip)
        var = self.sigma2 * den if self._bayesian else np.full(T, np.nan)
        return RidgeTrajectory(gamma=gam, prediction=pred, denominator=den, variance=var, log_loss=ll)

    def run(self, X, y) -> np.ndarray:
        """Predictions of the online pass over (X, y) (same numbers as the predict/learn loop)."""
        return self.trajectory(X, y).prediction
