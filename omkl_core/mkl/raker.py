"""Raker (Shen, Chen & Giannakis, JMLR 20, 2019), the random-feature online multi-kernel
baseline of paper 003 (section 5; eqs. 4-6) and of paper 000's Table 2 (reference D.1).

Every kernel i of the dictionary runs OGD on its random-feature learner
f_RF,i(x) = theta_i' z_i(x) (paper 003 eq. 4) and the prediction is the exponentially
weighted combination (eq. 6):

    yhat_t = sum_i w_{i,t} / (sum_j w_{j,t}) theta_{i,t}' z_i(x_t)
    L_{i,t} = (theta_{i,t}' z_i(x_t) - y_t)^2 + lam |theta_{i,t}|^2                 (eq. 5)
    theta_{i,t+1} = theta_{i,t} - eta [2 (theta_{i,t}' z_i(x_t) - y_t) z_i(x_t) + 2 lam theta_{i,t}]
    w_{i,t+1} = w_{i,t} exp(-eta L_{i,t})

All N kernels every step: O(dDN) per step.

The authors' code (reference D.1: the graph-aided repository's class Raker, which paper 003 and
paper 000 ran) departs in two named options: ``loss_after_step=True`` (lam |theta_i|^2 of L_{i,t}
at the updated theta_{i,t+1}, the code's order) and eta_t = 0.1/sqrt(t) (``eta=0.1,
schedule="inv_sqrt_t"``). :data:`AUTHORS_CODE` holds them; ``Raker.authors_code(**params)``
builds the learner with them.
"""
from __future__ import annotations

import numpy as np

from ..presets import RAKER_AUTHORS_CODE
from ..validation import Boolean
from ._kernels import raker_steps
from ._rfbase import _RFLearner, _Step

__all__ = ["Raker", "AUTHORS_CODE"]

#: The graph-aided authors' code of Raker (reference D.1): regulariser at the updated theta,
#: eta_t = 0.1/sqrt(t) (defined with the papers' presets, :data:`omkl_core.presets.RAKER_AUTHORS_CODE`).
AUTHORS_CODE = RAKER_AUTHORS_CODE


class Raker(_RFLearner):
    """Online multi-kernel learning on random features: a gradient learner per kernel, the kernels weighted
    by their past losses (Raker, a baseline of paper 003).

    Raker: OGD per kernel on random features + exponential weights over all N kernels.

    Parameters
    ----------
    m : D, random features per kernel (2D sin/cos features; paper 003: 50).
    lam : lambda of eq. (5) (1e-3).  eta : step size (paper 003 section 5: 1/sqrt(T)).
    schedule : "constant" (paper 003 text) or "inv_sqrt_t" (eta_t = eta/sqrt(t); the
        authors' graph-aided code uses eta = 0.1 with it, reference D.1).
    seed, dictionary : as in :class:`omkl_core.mkl.SFGMKL` (default: paper 003's 41 Gaussians).
    loss_after_step : False (text: the loss of the weight update at theta_{i,t}, before the
        step) or True (the authors' code, reference D.1: lam |theta_{i,t+1}|^2).
    """

    def __init__(self, *, m=50, lam=1e-3, eta=0.05, loss_after_step=False, schedule="constant", seed=0,
                 dictionary=None):
        self.loss_after_step = loss_after_step
        super().__init__(m=m, lam=lam, eta=eta, schedule=schedule, seed=seed, dictionary=dictionary)

    _parameter_constraints = {"loss_after_step": Boolean()}

    @classmethod
    def _unit_test_params(cls):
        yield {"m": 4, "eta": 0.2, "seed": 3}
        yield {"m": 4, "seed": 3, **AUTHORS_CODE}

    @classmethod
    def authors_code(cls, **params):
        """Raker with the authors' code's settings (:data:`AUTHORS_CODE`, reference D.1),
        ``params`` overriding them."""
        return cls(**{**AUTHORS_CODE, **params})

    def _init_extra(self, d, R):
        self._all = np.broadcast_to(np.arange(self.N_), (R, self.N_))
        self._valid = np.ones((R, self.N_), dtype=bool)

    def _predict_step(self, x, force_node=None):
        eta, _ = self._rates()
        return self._combine(x, self._all, self._valid, eta=eta)

    def _learn_step(self, st, y):
        self._kernel_update(st, y, np.ones((self.n_repetitions_, self.N_)), st.eta,
                            loss_after_step=self.loss_after_step)

    def _compiled_block(self, X, y, c0, n, P, U, rec):
        Om, scale, inv_sqrt_t, sincos = self._kernel_args()
        fail = raker_steps(X, y, c0, n, self.t_, Om, self.theta_, self.log_w_, P, float(self.eta), inv_sqrt_t,
                           float(self.lam), scale, sincos, bool(self.loss_after_step))
        self.last_step_ = _Step(yhat=P[:, c0 + n - 1].copy(), compiled=True)
        return fail
