"""OMKL-GF (Ghari & Shen, ICML 2020: online multi-kernel learning with graph-structured
feedback), the bipartite-graph baseline of paper 003 (section 5: J = 1 selective node,
M = 10 kernels) and of paper 000's Table 2. Specification: reference C.1 (the ICML paper's
body was not available; the model is the authors' code's, without its quirks unless asked).

At time t, with J selective nodes (reference C.1):

    wbar_k = w_{k,t} / sum_i w_{i,t}
    for j = 1..J: pi^(j)_k = (1 - eta_e^j) wbar_k + eta_e^j / N          (exponent j)
        draw M kernel indices i.i.d. from pi^(j) and connect them to node j (A[k, j] = 1);
        P_{k,j} = 1 - (1 - pi^(j)_k)^M  (the probability that k is connected to j)
    u_j = sum_k w_k A[k, j];  pi^c_j = (1 - eta_e) u_j / sum_i u_i + eta_e / J
    draw I_t ~ pi^c;  S_t = {k : A[k, I_t] = 1}
    q_k = sum_j P_{k,j} pi^c_j  (P(k in S_t))
    yhat_t = sum_{k in S_t} w_k f_k(x_t) / sum_{k in S_t} w_k
    for k in S_t: ell_k = L_k / q_k,  theta_k <- theta_k - eta grad L_k / q_k,  w_k <- w_k exp(-eta ell_k)

with L_k of paper 003 eq. (5) (square loss + lam |theta_k|^2) at theta_{k,t}. With J = 1 the
selective node is always node 0 (no node draw), pi^c = 1 and q_k = 1 - (1 - pi_k)^M.
eta_e = eta (all of the authors' experiments).

The authors' code (reference C.1 and C.3: the graph-aided repository's class OMKLGF and its
2022 notebooks, which paper 000 ran) departs from this; each departure is a named option:

1. ``J`` = 2 selective nodes (the 2022 notebooks; paper 003's text and the 2021 notebooks: 1).
2. ``off_by_one=True``: the inverse-CDF edge draw returns the drawn index + 1, capped at N - 1
   (kernel 0 is never connected); P keeps the formula above.
3. ``q_clip=0.05``: if q_k <= 0.05 the code uses 20 in place of 1/q_k (theta and weight step).
4. ``freeze_after=302``: the graph (A, P) is regenerated at steps 0..301 and kept from then on
   (the code sets its flag ``ter`` after step index i > 300); pi^c, I_t and q keep being
   recomputed from the current weights.
5. ``loss_after_step=True``: lam |theta_k|^2 in L_k is evaluated at the updated theta_{k,t+1}
   (the code's order: theta step first, then the loss of the weight update).
6. eta_t = 0.1 / sqrt(t) (``eta=0.1, schedule="inv_sqrt_t"``).

:data:`AUTHORS_CODE` holds these values; ``OMKLGF.authors_code(**params)`` builds the learner
with them. ``weighted_gradient=False`` is the ICML-2020 repository's form (reference C.2: the
theta step without 1/q_k; that code also scales the weight step by 2^-floor(log2 J), which is 1
for J = 1, and freezes the graph at the first step with squared error < 1e-4: neither is modelled).
"""
from __future__ import annotations

import numpy as np

from ..presets import OMKLGF_AUTHORS_CODE
from ..validation import Boolean, Integer, Optional, Real
from ._kernels import omklgf_steps
from ._rfbase import _RFLearner, _softmax_masked, _Step, draw_nodes

__all__ = ["OMKLGF", "AUTHORS_CODE"]

#: The graph-aided authors' code of OMKL-GF as paper 000 ran it (reference C.1, C.3; 2022
#: notebooks): J = 2, off-by-one edge draws, 1/q clipped at 1/0.05 = 20, graph frozen after
#: step index 301, regulariser at the updated theta, eta_t = 0.1/sqrt(t). M = 10 is the
#: notebooks' plotted setting (a separate parameter, kept as the caller gives it). Defined with the
#: papers' presets, :data:`omkl_core.presets.OMKLGF_AUTHORS_CODE`.
AUTHORS_CODE = OMKLGF_AUTHORS_CODE


class OMKLGF(_RFLearner):
    """Online multi-kernel learning that updates, at each step, only the kernels a feedback graph selects
    (OMKL-GF, a baseline of paper 003).

    OMKL-GF with J selective nodes (reference C.1), importance-weighted updates.

    Parameters
    ----------
    m, lam, eta, schedule, seed, dictionary : as in :class:`omkl_core.mkl.Raker`.
    M : int, default=10
        Number of i.i.d. kernel draws per selective node and step (paper 003 section 5: 10).
    J : int, default=1
        Number of selective nodes (paper 003 section 5: 1; the 2022 authors' notebooks: 2).
    eta_e : float or None, default=None
        Exploration rate (None -> eta_t, as in the authors' experiments).
    q_clip : float or None, default=None
        None (text) or a threshold c (code, reference C.3: c = 0.05): 1/q_k is replaced by
        1/c = 20 when q_k <= c.
    weighted_gradient : bool, default=True
        True (theta step divided by q_k) or False (reference C.2, the ICML-2020 code).
    freeze_after : int or None, default=None
        None, or the step index from which the graph (A, P) stays the one drawn at step
        freeze_after - 1 (0-based; the code, C.3: 302). pi^c, the node and q are recomputed
        from the current weights every step.
    off_by_one : bool, default=False
        False (text) or True (the code's edge draw, reference C.1: drawn index + 1, capped at
        N - 1; kernel 0 is never drawn). P keeps the text's formula.
    loss_after_step : bool, default=False
        False (text: L_k at theta_{k,t}) or True (the code's order, C.1: lam |theta_{k,t+1}|^2).

    Attributes
    ----------
    theta_ (R, N, 2D), log_w_ (R, N), weights_; last_step_ (idx, valid, q, node, pic, A, P of
    the last step: A (R, N, J) edges, P (R, N, J) edge probabilities, pic (R, J) node pmf).
    """

    def __init__(self, *, m=50, lam=1e-3, eta=0.05, M=10, J=1, eta_e=None, q_clip=None,
                 weighted_gradient=True, freeze_after=None, off_by_one=False, loss_after_step=False,
                 schedule="constant", seed=0, dictionary=None):
        self.off_by_one = off_by_one
        self.M = M
        self.J = J
        self.eta_e = eta_e
        self.q_clip = q_clip
        self.weighted_gradient = weighted_gradient
        self.freeze_after = freeze_after
        self.loss_after_step = loss_after_step
        super().__init__(m=m, lam=lam, eta=eta, schedule=schedule, seed=seed, dictionary=dictionary)

    _parameter_constraints = {
        "M": Integer(1),
        "J": Integer(1),
        "eta_e": Optional(Real(0, 1)),
        "q_clip": Optional(Real(0, 1, closed="neither")),
        "weighted_gradient": Boolean(),
        "off_by_one": Boolean(),
        "loss_after_step": Boolean(),
        "freeze_after": Optional(Integer(0)),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"m": 4, "eta": 0.2, "M": 4, "seed": 3}
        yield {"m": 4, "M": 3, "seed": 3, **AUTHORS_CODE, "freeze_after": 5}

    @classmethod
    def authors_code(cls, **params):
        """OMKL-GF with the authors' code's settings (:data:`AUTHORS_CODE`, reference C.1/C.3),
        ``params`` overriding them (e.g. ``M``, ``m``, ``dictionary``, ``seed``)."""
        return cls(**{**AUTHORS_CODE, **params})

    def _init_extra(self, d, R):
        self._frozen = None

    def _graph(self, eta_e):
        """Edges A (R, N, J) and edge probabilities P (R, J, N) from the current weights."""
        R, N, J = self.n_repetitions_, self.N_, self.J
        wbar = _softmax_masked(self.log_w_, np.ones_like(self.log_w_, dtype=bool))
        if J == 1:
            pi = ((1.0 - eta_e) * wbar + eta_e / self.N_)[:, None, :]
        else:
            ej = eta_e ** np.arange(1, J + 1)[None, :, None]                      # eta_e^j, j = 1..J
            pi = (1.0 - ej) * wbar[:, None, :] + ej / N                           # pi^(j)
        u = self._rng.random((R, J, self.M))                                      # M i.i.d. draws per node
        draws = draw_nodes(pi.reshape(R * J, N), u.reshape(R * J, self.M)).reshape(R, J, self.M)
        if self.off_by_one:                                                       # reference C.1 code quirk
            draws = np.minimum(draws + 1, N - 1)
        A = np.zeros((R, N, J), dtype=bool)
        A[self._rows[:, None, None], draws, np.arange(J)[None, :, None]] = True
        P = 1.0 - (1.0 - pi) ** self.M                                           # P(k connected to j)
        return A, P

    def _predict_step(self, x, force_node=None):
        eta, _ = self._rates()
        eta_e = eta if self.eta_e is None else self.eta_e
        frozen = self.freeze_after is not None and self.t_ >= self.freeze_after and self._frozen is not None
        if frozen:
            A, P = self._frozen
        else:
            A, P = self._graph(eta_e)
            if self.freeze_after is not None and self.t_ + 1 >= self.freeze_after:
                self._frozen = (A, P)
        if self.J == 1:                                                           # the only node, no draw
            node = np.zeros(self.n_repetitions_, dtype=np.int64)
            pic = np.ones((self.n_repetitions_, 1))
            q = P[:, 0, :]
        else:
            lw = np.where(A, self.log_w_[:, :, None], -np.inf)                    # (R, N, J)
            top = lw.max(axis=1)                                                  # every node has an edge
            log_u = top + np.log(np.exp(lw - top[:, None, :]).sum(axis=1))        # ln u_j = ln sum_k w_k A_kj
            ubar = _softmax_masked(log_u, np.ones_like(log_u, dtype=bool))         # u_j / sum_i u_i
            pic = (1.0 - eta_e) * ubar + eta_e / self.J                           # pi^c
            node = (draw_nodes(pic, self._rng.random(self.n_repetitions_)) if force_node is None
                    else np.broadcast_to(np.asarray(force_node, dtype=np.int64), (self.n_repetitions_,)).copy())
            q = np.einsum("rjk,rj->rk", P, pic)                                   # q_k = sum_j P_kj pi^c_j
        mask = A[self._rows, :, node]                                             # S_t = {k : A[k, I_t]}
        K = int(mask.sum(axis=1).max())
        idx = np.argsort(~mask, axis=1, kind="stable")[:, :K]
        valid = mask[self._rows[:, None], idx]
        return self._combine(x, idx, valid, q=q, eta=eta, node=node, pic=pic, A=A, P=P)

    def _step_cause(self) -> str:
        if not self.weighted_gradient:          # reference C.2: the theta step without 1/q
            return (f"the step {self._eta_text()} of eq. (17) (weighted_gradient=False: without 1/q) is too "
                    "large for this stream: above about 1 a kernel's theta grows geometrically; use a smaller eta "
                    "or schedule='inv_sqrt_t'")
        floor = ""
        if self.schedule == "constant" and self.dictionaries_ is not None:
            # q_k >= P_{k,J} >= 1 - (1 - eta_e^J / N)^M: pi^(J)_k >= eta_e^J / N however small w_k is
            eta_e = self.eta if self.eta_e is None else self.eta_e
            q = 1.0 - (1.0 - eta_e ** self.J / self.N_) ** self.M
            floor = (f" (with eta={self.eta!r}, eta_e={eta_e!r}, J={self.J}, M={self.M} and N={self.N_} kernels q can be "
                     f"as small as 1 - (1 - eta_e^J/N)^M = {q:.3g}: a step eta/q up to {self.eta / q:.3g}, on every "
                     "stream long enough to draw such a kernel repeatedly: the text's constant eta over T)")
        return self._importance_cause("q_clip", self.q_clip, self.q_clip, "0.05", floor)

    def _learn_step(self, st, y):
        q_sel = st.q[self._rows[:, None], st.idx]
        if self.q_clip is not None:
            q_sel = np.where(q_sel > self.q_clip, q_sel, self.q_clip)
        self._kernel_update(st, y, q_sel, st.eta, weighted_gradient=self.weighted_gradient,
                            loss_after_step=self.loss_after_step)

    # ------------------------------------------------------------------ the compiled loop (engine "numba")
    def _frozen_at(self, t0, n):
        """Whether the graph of steps t0 .. t0 + n - 1 is the kept one (as ``_predict_step`` decides)."""
        t = t0 + np.arange(n)
        if self.freeze_after is None:
            return np.zeros(n, dtype=bool)
        return (t >= self.freeze_after) & ((t > t0) | (self._frozen is not None))

    def _draw_counts(self, t0, n):
        R, J = self.n_repetitions_, self.J
        graph = np.where(self._frozen_at(t0, n), 0, R * J * self.M)             # M uniforms per node and repetition
        return graph + (R if J > 1 else 0)                                      # then the node draw (J > 1)

    def _state_items(self):
        return [*super()._state_items(), (self, "_frozen")]

    def _compiled_block(self, X, y, c0, n, P, U, rec):
        Om, scale, inv_sqrt_t, sincos = self._kernel_args()
        R, N, J = self.n_repetitions_, self.N_, self.J
        has_frozen = self._frozen is not None
        A, Pm = self._frozen if has_frozen else (np.zeros((R, N, J), dtype=bool), np.zeros((R, J, N)))
        A, Pm = np.ascontiguousarray(A, dtype=bool), np.ascontiguousarray(Pm, dtype=np.float64)
        last_node = np.zeros(R, dtype=np.int64)
        fail = omklgf_steps(X, y, c0, n, self.t_, Om, self.theta_, self.log_w_, P, U, float(self.eta), inv_sqrt_t,
                            float(self.lam), scale, sincos, int(self.M), int(J), -1.0 if self.eta_e is None else float(self.eta_e),
                            -1.0 if self.q_clip is None else float(self.q_clip), bool(self.weighted_gradient),
                            -1 if self.freeze_after is None else int(self.freeze_after), has_frozen, A, Pm,
                            bool(self.off_by_one), bool(self.loss_after_step), *rec, last_node)
        if self.freeze_after is not None and self.t_ + n >= self.freeze_after:      # the kept graph is set
            self._frozen = (A, Pm)
        self.last_step_ = _Step(yhat=P[:, c0 + n - 1].copy(), node=last_node, compiled=True)
        return fail
