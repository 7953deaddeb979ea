"""OMKL-GF (Ghari & Shen, ICML 2020: online multi-kernel learning with graph-structured
feedback), the bipartite-graph baseline of paper 003 (section 5: J = 1 selective node,
M = 10 kernels) and of paper 000's Table 2. Specification: reference C.1 (the ICML paper's
body was not available; the model is the authors' code's, without its off-by-one draws).

With J = 1 the selective node is always the drawn one, so at time t:

    wbar_k = w_{k,t} / sum_j w_{j,t},  pi_k = (1 - eta_e) wbar_k + eta_e / N
    draw M kernel indices i.i.d. from pi (with replacement); S_t = the distinct ones
    q_k = P(k in S_t) = 1 - (1 - pi_k)^M
    yhat_t = sum_{k in S_t} w_k f_k(x_t) / sum_{k in S_t} w_k
    for k in S_t: ell_k = L_k / q_k,  theta_k <- theta_k - eta grad L_k / q_k,  w_k <- w_k exp(-eta ell_k)

with L_k of paper 003 eq. (5) (square loss + lam |theta_k|^2) at theta_{k,t}. eta_e = eta
(all of the authors' experiments). Named code options: ``q_clip`` (reference C.3: if
q_k <= 0.05 use 20 instead of 1/q_k), ``weighted_gradient=False`` (reference C.2: the
ICML-2020 code's unweighted theta step), ``freeze_after`` (C.3: the graph and q are frozen
after 300 steps; here the drawn subset is then kept fixed).
"""
from __future__ import annotations

import numpy as np

from .._validation import Boolean, Integer, Optional, Real
from ._rfbase import _RFLearner, _softmax_masked, draw_nodes

__all__ = ["OMKLGF"]


class OMKLGF(_RFLearner):
    """OMKL-GF with J = 1 selective node (reference C.1), importance-weighted updates.

    Parameters
    ----------
    m, lam, eta, schedule, seed, dictionary : as in :class:`omkl_core.mkl.Raker`.
    M : number of i.i.d. kernel draws per step (section 5 of paper 003: 10).
    eta_e : exploration rate (None -> eta, as in the authors' experiments).
    q_clip : None (text) or a threshold c (code, reference C.3: c = 0.05): 1/q_k is replaced
        by 1/c = 20 when q_k <= c.
    weighted_gradient : True (theta step divided by q_k) or False (reference C.2).
    freeze_after : None, or the step after which the drawn subset (and q) stay fixed (C.3: 300).
    off_by_one : False (text) or True (the code's edge draw, reference C.1: drawn index + 1,
        capped at N - 1; kernel 0 is never drawn). q keeps the text's formula.
    """

    def __init__(self, *, m=50, lam=1e-3, eta=0.05, M=10, eta_e=None, q_clip=None,
                 weighted_gradient=True, freeze_after=None, off_by_one=False, schedule="constant",
                 seed=0, dictionary=None):
        self.off_by_one = off_by_one
        self.M = M
        self.eta_e = eta_e
        self.q_clip = q_clip
        self.weighted_gradient = weighted_gradient
        self.freeze_after = freeze_after
        super().__init__(m=m, lam=lam, eta=eta, schedule=schedule, seed=seed, dictionary=dictionary)

    _parameter_constraints = {
        "M": Integer(1),
        "eta_e": Optional(Real(0, 1)),
        "q_clip": Optional(Real(0, 1, closed="neither")),
        "weighted_gradient": Boolean(),
        "off_by_one": Boolean(),
        "freeze_after": Optional(Integer(0)),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"m": 4, "eta": 0.2, "M": 4, "seed": 3}

    def _init_extra(self, d, R):
        self._frozen = None

    def _predict_step(self, x, force_node=None):
        eta, _ = self._rates()
        eta_e = eta if self.eta_e is None else self.eta_e
        frozen = self.freeze_after is not None and self.t_ >= self.freeze_after and self._frozen is not None
        if frozen:
            idx, valid, q = self._frozen
        else:
            wbar = _softmax_masked(self.log_w_, np.ones_like(self.log_w_, dtype=bool))
            pi = (1.0 - eta_e) * wbar + eta_e / self.N_
            draws = draw_nodes(pi, self._rng.random((self.n_repetitions_, self.M)))          # (R, M) i.i.d. from pi
            if self.off_by_one:                                                  # reference C.1 code quirk
                draws = np.minimum(draws + 1, self.N_ - 1)
            mask = np.zeros((self.n_repetitions_, self.N_), dtype=bool)
            mask[self._rows[:, None], draws] = True                              # S_t: distinct draws
            K = int(mask.sum(axis=1).max())
            idx = np.argsort(~mask, axis=1, kind="stable")[:, :K]
            valid = mask[self._rows[:, None], idx]
            q = 1.0 - (1.0 - pi) ** self.M                                       # P(k in S_t)
            if self.freeze_after is not None and self.t_ + 1 >= self.freeze_after:
                self._frozen = (idx, valid, q)
        return self._combine(x, idx, valid, q=q, eta=eta)

    def _learn_step(self, st, y):
        q_sel = st.q[self._rows[:, None], st.idx]
        if self.q_clip is not None:
            q_sel = np.where(q_sel > self.q_clip, q_sel, self.q_clip)
        if self.weighted_gradient:
            self._kernel_update(st, y, q_sel, st.eta)
            return
        # reference C.2: theta step without 1/q, weight update with L/q
        r = self._rows[:, None]
        resid = st.f - y
        loss = resid ** 2 + self.lam * np.einsum("rkf,rkf->rk", st.theta, st.theta)
        grad_L = 2.0 * resid[..., None] * st.z + 2.0 * self.lam * st.theta
        grad = np.where(st.valid[..., None], grad_L, 0.0)
        self.theta_[r, st.idx] = st.theta - st.eta * grad
        ell = np.where(st.valid, loss / q_sel, 0.0)
        self.log_w_[r, st.idx] -= st.eta * ell
        st.loss, st.grad_L, st.grad = loss, grad_L, grad
        full = np.zeros((self.n_repetitions_, self.N_))
        full[r, st.idx] = ell
        st.ell = full
