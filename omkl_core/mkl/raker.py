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
"""
from __future__ import annotations

import numpy as np

from ._rfbase import _RFLearner

__all__ = ["Raker"]


class Raker(_RFLearner):
    """Raker: OGD per kernel on random features + exponential weights over all N kernels.

    Parameters
    ----------
    m : D, random features per kernel (2D sin/cos features; paper 003: 50).
    lam : lambda of eq. (5) (1e-3).  eta : step size (paper 003 section 5: 1/sqrt(T)).
    schedule : "constant" (paper 003 text) or "inv_sqrt_t" (eta_t = eta/sqrt(t); the
        authors' graph-aided code uses eta = 0.1 with it, reference D.1).
    seed, dictionary : as in :class:`omkl_core.mkl.SFGMKL` (default: paper 003's 41 Gaussians).

    The loss in the weight update is evaluated at theta_{i,t} (before the step), as in
    Raker's text; the authors' code uses |theta_{i,t+1}|^2 (a 1e-3-sized difference).
    """

    def _init_extra(self, d, R):
        self._all = np.broadcast_to(np.arange(self.N_), (R, self.N_))
        self._valid = np.ones((R, self.N_), dtype=bool)

    def _predict_step(self, x, force_node=None):
        eta, _ = self._rates()
        return self._combine(x, self._all, self._valid, eta=eta)

    def _learn_step(self, st, y):
        self._kernel_update(st, y, np.ones((self.n_repetitions_, self.N_)), st.eta)
