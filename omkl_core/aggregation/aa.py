"""Vovk's Aggregating Algorithm for the square loss on [A, B] (paper 000, section 4, "VAW-Aggr")."""
from __future__ import annotations

import numpy as np

from ..validation import Interval, Optional, Positive
from . import _kernels, _stated
from ._base import _as_float_array, _logsumexp, _MetaLearner, _own, _softmax, _stated_inputs, truncate


class AggregatingAlgorithm(_MetaLearner):
    """Vovk's Aggregating Algorithm: mixes the experts' forecasts, favouring those with a small past square
    loss, for labels in a known range [A, B] (paper 000, section 4).

    Vovk's Aggregating Algorithm for the square loss on [A, B] (ref. B; P000 sec. 4).

    Truncated forecasts zbar_t (P000 eq. (28)); exponential weights on the true losses

        wbar_{t,k} ∝ exp(-eta sum_{s<t} (y_s - zbar_{s,k})^2),  w_0 uniform,
        eta = 2/(B - A)^2  (mixability constant of the square loss; = 2 on [0, 1], CBL 3.6);

    generalised prediction g_t(y) = -(1/eta) ln sum_k wbar_{t,k} exp(-eta (y - zbar_{t,k})^2);
    substitution function (Vovk 2001, ref. B)

        gamma_t = (A + B)/2 + (g_t(A) - g_t(B)) / (2 (B - A)),  clipped to [A, B],

    computed with stable log-sum-exps.  Guarantee (CBL Prop. 3.2):
    sum_t (y_t - gamma_t)^2 <= min_k sum_t (y_t - zbar_{t,k})^2 + ln N / eta
    (``omkl_core.bounds.aa_bound``).  ``weights_`` are the exponential weights wbar; the
    forecast is gamma_t, not <wbar_t, zbar_t>.  ``eta`` may be set lower than 2/(B-A)^2
    (any eta <= 2/(B-A)^2 keeps the square loss eta-mixable); ``bounds`` is required.

    Parameters
    ----------
    n_experts : int or None, default=None
        See "Common parameters" (package docstring).
    bounds : (float, float), default=(0, 1)
        [A, B]: truncation (28) and the range of the substitution function (required).
    eta : float > 0 or None, default=None
        Learning rate, at most 2/(B - A)^2; None: 2/(B - A)^2.

    Attributes
    ----------
    cum_loss_ : ndarray of shape (R, N)
        Cumulative square losses of the truncated forecasts.
    weights_ : ndarray of shape (N,) or (R, N)
        The exponential weights wbar of the next step.
    """

    regret_bound = _stated.AA_BOUND

    def stated_bounds(self, Z, y, predictions, *, expert_layer=None) -> list:
        """CBL Prop. 3.2 (P000 sec. 4): ln N / eta against the best truncated expert."""
        return _stated.exp_concave_rows(self, *_stated_inputs(Z, y, predictions), expert_layer, aa=True)

    _parameter_constraints = {"bounds": Interval(), "eta": Optional(Positive())}

    def __init__(self, n_experts=None, *, bounds=(0, 1), eta=None):
        self.eta = eta
        super().__init__(n_experts, bounds=bounds)

    def _eta_max(self):
        A, B = self.bounds
        return 2.0 / (float(B) - float(A)) ** 2

    def _validate_joint(self):
        super()._validate_joint()
        if self.eta is not None and self.eta > self._eta_max() * (1 + 1e-12):
            raise ValueError(f"eta must be <= 2/(B-A)^2 = {self._eta_max()!r} (mixability of the "
                             f"square loss on bounds={self.bounds!r}), got {self.eta!r}")

    def _reset(self):
        super()._reset()
        self._eta = self._eta_max() if self.eta is None else float(self.eta)

    def _init_state(self, R, N):
        self.cum_loss_ = np.zeros((R, N))      # sum_{s<t} (y_s - zbar_{s,k})^2

    def _weights(self):
        return _softmax(-self._eta * self.cum_loss_)      # wbar_{t,k} ∝ exp(-eta L_{t-1,k})

    def generalized_prediction(self, y_values, z=None):
        """g_t(y) for the current weights and truncated forecasts ``z`` (default: last z).

        ``y_values`` 1-D; returns (len(y_values),) for a single stream, (R, len) batched.
        """
        yv = _as_float_array(y_values, "y_values").reshape(-1)
        if z is None:
            if self.expert_predictions_ is None:
                raise ValueError("z must be given before any expert prediction was seen")
            z = self.expert_predictions_
        zz = _as_float_array(z, "z")
        zb = truncate(zz if zz.ndim == 2 else zz[None, :], self._bounds)
        logw = -self._eta * self.cum_loss_
        logw = logw - _logsumexp(logw)[:, None]                          # ln wbar
        a = logw[:, None, :] - self._eta * (yv[None, :, None] - zb[:, None, :]) ** 2
        g = -_logsumexp(a) / self._eta                                    # (R, len)
        return g if self._batched else g[0]

    def _aggregate(self, zb, p):
        A, B = self._bounds
        eta = self._eta
        logw = -eta * self.cum_loss_                 # normalisation cancels in the difference
        lse_B = _logsumexp(logw - eta * (B - zb) ** 2)   # = -eta g(B) + const
        lse_A = _logsumexp(logw - eta * (A - zb) ** 2)   # = -eta g(A) + const
        gamma = 0.5 * (A + B) + (lse_B - lse_A) / (2.0 * eta * (B - A))
        return np.clip(gamma, A, B)

    def _update(self, zb, y, yhat, p):
        d = y[:, None] - zb
        self.cum_loss_ += d * d                            # L_{t,k} = L_{t-1,k} + (y_t - zbar_{t,k})^2

    def _run_compiled(self, Zt, Y, out):
        """The compiled kernel of this rule: :func:`_kernels.aa_stream` (state updated in place)."""
        self.cum_loss_ = _own(self.cum_loss_)
        A, B = self._bounds
        _kernels.aa_stream(Zt, Y, self.cum_loss_, self._eta, float(A), float(B), out)

    _compiled_step = True

    def _step_forecast(self, v):
        """:func:`_kernels.aa_step_forecast`: eq. (28), then the substitution function gamma_t (ref. B)."""
        A, B, _ = self._trunc
        zb = np.empty(v.shape[0])
        return _kernels.aa_step_forecast(v, A, B, zb, self.cum_loss_, self._eta), zb, None

    def _step_learn(self, zb, y, yhat, aux):
        """:func:`_kernels.aa_step_learn`: L_{t,k} = L_{t-1,k} + (y_t - zbar_{t,k})^2."""
        _kernels.aa_step_learn(zb, y, self.cum_loss_)


