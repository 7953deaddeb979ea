"""Paper 002's Algorithm 2: the Bayesian Algorithm over a finite set of Gaussian linear experts
(eq. (11); Lemma 1, eq. (10))."""
from __future__ import annotations

import math

import numpy as np

from ..base import OnlineLearner
from ..validation import (
    Check,
    Positive,
    check_label,
    check_matrix,
    check_point,
    check_scalar,
    check_vector,
)
from ._base import _LOG_2PI

__all__ = ["BayesianAlgorithm"]


def _check_prior(value, name):
    if value is not None:
        p = check_vector(value, name)
        if np.any(p <= 0) or abs(p.sum() - 1.0) > 1e-12:
            raise ValueError(f"{name} must be positive weights summing to 1")


class BayesianAlgorithm(OnlineLearner):
    r"""The Bayesian Algorithm: a Bayesian mixture over a given finite set of linear predictors with
    Gaussian noise (paper 002, Algorithm 2).

    The Bayesian Algorithm (Algorithm 2 of Zhdanov & Vovk, 2009) over a finite set of
    Gaussian linear experts.

    Experts theta_k (k = 1..K) predict the densities xi_t^theta(y) = N(y; theta'x_t, sigma^2)
    of eq. (11); the prior P_0 puts weight ``prior[k]`` on theta_k. At step t the learner
    predicts the mixture g_t = sum_k xi_t^{theta_k} P_{t-1}^*(theta_k) (eq. 9) and updates
    P_t(theta) = xi_t^theta(y_t) P_{t-1}(theta) (kept as log-weights, normalised).

    Lemma 1, eq. (10): ``log_loss_`` = L_T = -ln sum_k e^{-L_T(theta_k)} P_0(theta_k),
    with ``expert_log_loss_`` = (L_T(theta_k))_k.

    Parameters
    ----------
    thetas : (K, n) array of the experts' parameters theta_k.
    sigma2 : float > 0, the experts' noise variance.
    prior : (K,) positive weights summing to 1, or None for uniform.
    """

    _parameter_constraints = {
        "thetas": Check(check_matrix, invalid=[[[np.nan]], [1.0, 2.0], "theta"]),
        "sigma2": Positive(),
        "prior": Check(_check_prior, invalid=[[2.0, -1.0, 0.0], [0.5, 0.5, 0.5]]),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"thetas": np.array([[0.2, -0.1, 0.3], [0.0, 0.5, -0.2], [0.4, 0.4, 0.0]]), "sigma2": 0.5}

    def __init__(self, thetas, *, sigma2: float = 1.0, prior=None):
        self.thetas = thetas
        self.sigma2 = sigma2
        self.prior = prior
        super().__init__()

    def _validate_joint(self):
        K = check_matrix(self.thetas, "thetas").shape[0]
        if self.prior is not None:
            check_vector(self.prior, "prior", length=K)

    def _reset(self):
        self._thetas = check_matrix(self.thetas, "thetas")
        K = self._thetas.shape[0]
        prior = np.full(K, 1.0 / K) if self.prior is None else check_vector(self.prior, "prior", length=K)
        self.log_weights_ = np.log(prior)           # ln P_t^*(theta_k)
        self.expert_log_loss_ = np.zeros(K)         # L_t(theta_k)
        self.log_loss_ = 0.0                        # L_t

    @property
    def weights_(self) -> np.ndarray:
        """P_t^*(theta_k): the normalised weights the next prediction uses (eq. 8)."""
        return np.exp(self.log_weights_)

    def _expert_logpdf(self, x, y) -> np.ndarray:
        mu = self._thetas @ x                        # theta_k' x_t, all experts at once
        return -0.5 * (_LOG_2PI + math.log(self.sigma2)) - (y - mu) ** 2 / (2.0 * self.sigma2)

    def _x(self, x):
        return check_point(x, self._thetas.shape[1], "x")

    def predict_logpdf(self, x, y) -> float:
        """ln g_t(y) = ln sum_k P_{t-1}^*(theta_k) xi_t^{theta_k}(y), eq. (9)."""
        x = self._x(x)
        y = check_scalar(y, "y")
        z = self.log_weights_ + self._expert_logpdf(x, y)
        m = z.max()
        return float(m + math.log(np.exp(z - m).sum()))

    def predict_one(self, x) -> float:
        """The mean of the mixture g_t (a point forecast)."""
        x = self._x(x)
        w = np.exp(self.log_weights_ - self.log_weights_.max())
        return float((w / w.sum()) @ (self._thetas @ x))

    def learn_one(self, x, y) -> None:
        x = self._x(x)
        y = check_label(y, "y")
        lp = self._expert_logpdf(x, y)              # ln xi_t^theta(y_t) = -lambda(xi_t^theta, y_t)
        # the weights use only differences of ln xi between experts (the common part cancels in the
        # normalisation): at tiny sigma2 the common part is ~ -1e300 and absorbs ln(sum) or overflows
        # to -inf for every expert (nan weights before); -(q_k - q_min)/(2 sigma2) keeps the best expert at 0
        q = (y - self._thetas @ x) ** 2
        rel = self.log_weights_ - (q - q.min()) / (2.0 * self.sigma2)
        m = rel.max()
        log_sum = math.log(np.exp(rel - m).sum())
        log_s = m + log_sum
        log_g = float(-0.5 * (_LOG_2PI + math.log(self.sigma2)) - q.min() / (2.0 * self.sigma2) + log_s)  # ln g_t(y_t)
        self.log_loss_ -= log_g                     # L_t = L_{t-1} + lambda(g_t, y_t)
        self.expert_log_loss_ -= lp
        self.log_weights_ = (rel - m) - log_sum     # P_t^* = xi_t^theta(y_t) P_{t-1}^* / g_t(y_t)
        self.t_ += 1
