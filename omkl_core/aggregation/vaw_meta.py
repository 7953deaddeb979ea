"""The Vovk-Azoury-Warmuth forecaster on the expert predictions (P000 eqs. (9)-(10), (22)-(23); "VAW2")."""
from __future__ import annotations

import numpy as np

from .._validation import Boolean, Options, Positive
from ._base import _MetaLearner


class VAWMeta(_MetaLearner):
    """Vovk-Azoury-Warmuth forecaster on the expert predictions (P000 Theorem 2, "VAW2").

    P000 eqs. (9)-(10) with the feature vector Phi(x_t) replaced by the vector of expert
    forecasts z_t (P000 eq. (22)-(23), Theorem 2):

        alpha_t = S_t^{-1} sum_{i<t} y_i z_i,     S_t = lam I_N + sum_{i<=t} z_i z_i^T,
        yhat_t  = <alpha_t, z_t>,

    with S_t^{-1} updated by Sherman-Morrison (eq. (10)):
    S_t^{-1} z_t = S_{t-1}^{-1} z_t / (1 + z_t^T S_{t-1}^{-1} z_t), S_0^{-1} = I / lam.
    ``bounds=(A, B)`` feeds the truncated forecasts zbar_t (eq. (28)) instead -> "VAW2
    (trunc)".  The weights are signed and need not sum to one.

    ``ridge=True`` (option, not the paper's rule): online ridge, z_t's outer product is *not*
    added before predicting, yhat_t = <S_{t-1}^{-1} sum_{i<t} y_i z_i, z_t> -- the form of
    the second author's TVAW code (ref. E.1).

    ``shrink_to="uniform"`` (option, opera's ``Ridge`` aggregation, ref. A.1): penalise
    lam ||alpha - 1/N||^2 instead of lam ||alpha||^2, i.e. start from b_0 = lam/N (1, ..., 1) so
    that S_t^{-1} b_t shrinks towards uniform weights; with ``ridge=True`` this is opera's
    ``mixture(model = "Ridge", parameters = list(lambda = lam))`` (tested against its outputs).

    ``weights_``: VAW's next weight vector alpha_{T+1} needs z_{T+1}; what is reported is
    S_T^{-1} sum_{i<=T} y_i z_i (the regularised least-squares solution on all data seen),
    which is what alpha_{T+1} would be without the z_{T+1} z_{T+1}^T term.
    """

    _parameter_constraints = {"lam": Positive, "ridge": Boolean(), "shrink_to": Options("zero", "uniform")}

    def __init__(self, n_experts=None, *, lam: float = 1.0, bounds=None, ridge: bool = False,
                 shrink_to: str = "zero"):
        self.lam = lam
        self.ridge = ridge
        self.shrink_to = shrink_to
        super().__init__(n_experts, bounds=bounds)

    def _reset(self):
        super()._reset()
        self._lam = float(self.lam)

    def _init_state(self, R, N):
        self.Sinv_ = np.broadcast_to(np.eye(N) / self._lam, (R, N, N)).copy()  # S_0^{-1}
        self.b_ = np.zeros((R, N))                                             # sum y_i z_i
        if self.shrink_to == "uniform":
            self.b_ += self._lam / N                  # b_0 = lam w0, w0 = 1/N (opera's Ridge)

    def _predict_step(self, zb):
        u = np.matmul(self.Sinv_, zb[:, :, None])[:, :, 0]  # S_{t-1}^{-1} z_t
        denom = 1.0 + np.sum(zb * u, axis=-1)                # 1 + z_t^T S_{t-1}^{-1} z_t
        num = np.sum(self.b_ * u, axis=-1)
        yhat = num if self.ridge else num / denom            # <b_{t-1}, S_t^{-1} z_t>
        return (u, denom), yhat

    def _update(self, zb, y, yhat, p):
        u, denom = p
        v = u / denom[:, None]                                   # S_t^{-1} z_t
        self.Sinv_ -= v[:, :, None] * u[:, None, :]              # eq. (10), Sherman-Morrison
        self.b_ += y[:, None] * zb

    def _weights(self):
        return np.einsum("rij,rj->ri", self.Sinv_, self.b_)


