"""SFG-MKL and SFG-MKL-R: paper 003 (Ghari & Shen, "Graph-Aided Online Multi-Kernel
Learning", JMLR 24, 2023), Algorithms 2 and 3.

Notation of the paper: N kernels kappa_i with random features z_i (eq. 4) and RF learners
f_RF,i(x) = theta_i' z_i(x); kernel weights w_{i,t}; node weights u_{i,t}; feedback graph
G (Algorithm 1, :mod:`omkl_core.mkl.graph`) with out-/in-neighbourhoods N_i^out / N_i^in and
dominating set D; exploration rate xi; learning rate eta.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..kernels import dissimilarity_matrix
from ..validation import (
    Boolean,
    Check,
    Integer,
    Optional,
    Options,
    Real,
    check_index,
    check_int,
    check_interval,
    check_state_array,
)
from ._kernels import FORMS, sfg_steps, sfgr_steps
from ._rfbase import _RFLearner, _softmax_masked, _Step, draw_nodes
from .graph import adjacency, feedback_graph

__all__ = ["SFGMKL", "SFGMKLR", "SamplingState", "AFTER_SWITCH", "REFINEMENTS"]

#: Forms of eqs. (14)-(18) once the node is chosen deterministically (section 5's greedy switch);
#: see :class:`SFGMKL`. "auto": "deterministic" for I_t = argmax u, "importance" for the code's fixed node.
AFTER_SWITCH = ("auto", "deterministic", "importance", "frozen_u")
#: Refinement rules of SFG-MKL-R (see :class:`SFGMKLR`): Algorithm 3 as printed, or section 4's sentence.
REFINEMENTS = ("algorithm3", "section4")


@dataclass
class SamplingState:
    """The sampling state of SFG-MKL(-R) at time t, for R repetitions (N kernels / nodes).

    Only the node weights are state; the rest is recomputed from them at every step and kept
    here (the state of the *last* draw) for inspection and for the exact-enumeration tests.
    """

    log_u: np.ndarray          # (R, N) ln u_{i,t}: node weights of eq. (18b), u_{i,1} = 1
    p: np.ndarray | None = None       # (R, N) node pmf p_t of eq. (12) / (24)
    q: np.ndarray | None = None       # (R, N) q_{i,t} = sum_{j in N_i^in} p_{j,t}, eq. (15)
    node: np.ndarray | None = None    # (R,) the drawn node I_t
    greedy: bool = False              # True once I_t = argmax_i u_{i,t} (section 5, after 300 steps)


def _check_greedy_node(value, name, N=None):
    """The one check of ``greedy_node``: "argmax" or a node index, 0 <= index < N once the number of
    kernels N is known (both engines call it with N before any step: the compiled loop indexes
    the node's out-neighbours unchecked)."""
    if value == "argmax":
        return
    if N is None:
        check_int(value, name, minimum=0)
    else:
        check_index(value, name, N, "N (the number of kernels)")


def _check_clip(value, name):
    if not isinstance(value, (tuple, list)) or len(value) != 2:     # a list: the JSON form of a sweep spec
        raise TypeError(f"{name} must be None or a pair (q_min, p_min), got {value!r}")
    check_interval(value[0], f"{name}[0]", 0, 1, closed="right")
    check_interval(value[1], f"{name}[1]", 0, 1, closed="right")


class SFGMKL(_RFLearner):
    """Online multi-kernel learning that picks, at each step, a few kernels by a feedback graph of how
    alike they are (SFG-MKL, paper 003, Algorithm 2).

    SFG-MKL, paper 003 Algorithm 2 (eqs. 12-18) on the feedback graph of Algorithm 1.

    At time t (all R repetitions at once; per step only the M kernels of the drawn node are
    evaluated, O(dDM)):

    1. p_{i,t} = (1 - xi) u_{i,t}/U_t + xi/|D| 1[i in D]                         eq. (12)
    2. draw I_t ~ p_t (after ``greedy_after`` steps: I_t = argmax_i u_{i,t}, section 5);
       S_t = N_{I_t}^out
    3. f_RF(x_t) = sum_{i in S_t} w_{i,t} / (sum_{j in S_t} w_{j,t}) f_RF,i(x_t)    eq. (13)
    4. q_{i,t} = sum_{j in N_i^in} p_{j,t}                                         eq. (15)
       ell_{i,t} = L(theta_{i,t}' z_i(x_t), y_t) / q_{i,t} 1[i in S_t]             eq. (14)
       ellhat_{i,t} = L(f_RF(x_t), y_t) / p_{i,t} 1[I_t = i]                      eq. (16)
    5. theta_{i,t+1} = theta_{i,t} - eta grad L(theta_{i,t}' z_i(x_t), y_t)/q_{i,t} 1[i in S_t]  eq. (17)
       w_{i,t+1} = w_{i,t} exp(-eta ell_{i,t});  u_{i,t+1} = u_{i,t} exp(-eta ellhat_{i,t})    eq. (18)

    L is eq. (5) with the square loss and lam |theta|^2; L(f_RF(x_t), y_t) in eq. (16) is the
    square loss of the combined prediction (the combination has no single theta to regularise).

    **After the greedy switch** (section 5: "after 300 time instants, both algorithms choose
    I_t = argmax_i u_{i,t}/U_t"). The estimators (14) and (16) divide by the probabilities of what
    was observed so that, given the past, they are unbiased (the step (38a)/(51) of the proof of
    Theorem 3): E_t[ell_{i,t}] = Pr_t(i in S_t) L_i / q_{i,t} = L_i because q_{i,t} = Pr_t(i in S_t)
    (eq. 15), and E_t[ellhat_{i,t}] = Pr_t(I_t = i) L(f_RF)/p_{i,t} = L(f_RF) because
    p_{i,t} = Pr_t(I_t = i) (eq. 12). Once I_t = argmax_i u_{i,t} is a function of the past, I_t is
    drawn from the point mass at that node: eq. (12)'s role is played by Pr_t(I_t = i) = 1[i = I_t],
    so p_{I_t,t} = 1, and eq. (15) gives q_{i,t} = sum_{j in N_i^in} 1[j = I_t] = 1[i in N_{I_t}^out]
    = 1 for every i in S_t. Substituting into (14), (16), (17):

    * ell_{i,t} = L(theta_{i,t}' z_i(x_t), y_t) 1[i in S_t]                      eq. (14) with q = 1
    * ellhat_{i,t} = L(f_RF(x_t), y_t) 1[I_t = i]                                eq. (16) with p = 1
    * theta_{i,t+1} = theta_{i,t} - eta grad L(theta_{i,t}' z_i(x_t), y_t) 1[i in S_t]  eq. (17) with q = 1

    i.e. the full-information update (Raker's, importance weight 1) restricted to S_t; (18a)/(18b)
    unchanged. Dividing instead by p_t, q_t of (12)/(15) -- the pmf the node is no longer drawn from
    -- gives E_t[ell_{i,t}] = L_i / q_{i,t} > L_i on S_t: biased upward, an effective step eta/q_{i,t}.
    ``after_switch`` selects the form (ablations of the reading):

    * "deterministic": the forms above (section 5's text; the default for ``greedy_node="argmax"``);
    * "importance": keep dividing by p_t and q_t of eqs. (12)/(15) (this class's behaviour before
      issue 38; the authors' code divides by them too, reference E.4);
    * "frozen_u": the node weights are no longer updated after the switch (eq. 18b skipped,
      u_{i,t+1} = u_{i,t}), so I_t = argmax_i u_{i,greedy_after} stays one node; the kernel updates
      are the deterministic forms above;
    * "auto" (default): "deterministic" with ``greedy_node="argmax"`` (the text), "importance" with
      a fixed ``greedy_node`` (the code's node 0 after the switch, reference E.4, which keeps 1/q).

    Parameters
    ----------
    m : D, random features per kernel (2D features of eq. 4; section 5: 50).
    lam : lambda of eq. (5) (section 5: 1e-3).
    eta, xi : learning and exploration rates (section 5: both 1/sqrt(T)).
    M : out-neighbours per node, self-loop included (eq. 11; section 5: 5).
    greedy_after : steps after which I_t = argmax u (section 5: 300); None = never.
    greedy_node : "argmax" (section 5) or a fixed node index (the authors' code passes node 0
        after the switch, reference E.4).
    clip : None (text) or a pair (q_min, p_min) (tuple or list): the code's clipping of the importance weights,
        1/q -> 1/max(q, q_min) in eqs. (14)/(17) and 1/p -> 1/max(p, p_min) in eq. (16)
        (reference E.4: (0.1, 0.2)).
    after_switch : "auto" (default), "deterministic", "importance" or "frozen_u": the form of
        eqs. (14)-(18) while the node is chosen deterministically (see above). Only the steps
        after ``greedy_after`` are affected.
    schedule : "constant" (text) or "inv_sqrt_t" (code variant: eta/sqrt(t), xi/sqrt(t)).
    seed : random features and node draws; dictionary : None (section 5's 41 Gaussians) or
    (kinds, sigmas).

    Attributes
    ----------
    delta_ (N, N) log Delta(kappa_i, kappa_j) (eq. 7, in logs); out_neighbours_ (N, M);
    dominating_set_; A_ (N, N) adjacency (A[j, i]: edge j -> i); sampling_ (SamplingState);
    theta_ (R, N, 2D); log_w_ (R, N); weights_; last_step_.
    """

    def __init__(self, *, m=50, lam=1e-3, eta=0.05, xi=0.05, M=5, greedy_after=300,
                 greedy_node="argmax", after_switch="auto", clip=None, schedule="constant", seed=0,
                 dictionary=None):
        self.xi = xi
        self.M = M
        self.greedy_after = greedy_after
        self.greedy_node = greedy_node
        self.after_switch = after_switch
        self.clip = clip
        super().__init__(m=m, lam=lam, eta=eta, schedule=schedule, seed=seed, dictionary=dictionary)

    _parameter_constraints = {
        "xi": Real(0, 1, closed="right"),
        "M": Integer(1),
        "greedy_after": Optional(Integer(0)),
        "greedy_node": Check(_check_greedy_node, invalid=[-1, "first", 1.5]),
        "after_switch": Options(*AFTER_SWITCH),
        "clip": Optional(Check(_check_clip, invalid=[0.1, (0.1,), (0.0, 0.2), (0.1, 2.0)])),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"m": 4, "eta": 0.2, "xi": 0.2, "M": 3, "greedy_after": 10, "seed": 3}

    def _init_extra(self, d, R):
        if self.M > self.N_:
            raise ValueError(f"M must be <= N = {self.N_}, got {self.M}")
        self.delta_ = dissimilarity_matrix(self.kinds_, self.sigmas_, d, log=True)   # eq. (7)
        self.out_neighbours_, self.dominating_set_ = feedback_graph(self.delta_, self.M)   # Alg. 1
        self.A_ = adjacency(self.out_neighbours_, self.N_)
        self._inD = np.zeros(self.N_)
        self._inD[self.dominating_set_] = 1.0
        self._in_csr = None                                                   # N_i^in for the compiled loop
        self.sampling_ = SamplingState(log_u=np.zeros((R, self.N_)))

    def _check_state(self):
        super()._check_state()
        _check_greedy_node(self.greedy_node, "greedy_node", self.N_)
        if not isinstance(getattr(self, "sampling_", None), SamplingState):
            raise ValueError(f"{type(self).__name__}.sampling_ must be a SamplingState (the learned state): it was "
                             "written from outside; reset() starts the learner afresh")
        check_state_array(type(self).__name__, "sampling_.log_u", self.sampling_.log_u, (self.n_repetitions_, self.N_))

    def _greedy(self):
        return self.greedy_after is not None and self.t_ >= self.greedy_after

    def after_switch_form(self) -> str:
        """The form of eqs. (14)-(18) used after the switch: ``after_switch`` with "auto" resolved
        ("deterministic" for I_t = argmax u, "importance" for a fixed ``greedy_node``)."""
        if self.after_switch != "auto":
            return self.after_switch
        return "deterministic" if self.greedy_node == "argmax" else "importance"

    def _draw(self, p, force_node):
        s = self.sampling_
        if force_node is not None:
            return np.broadcast_to(np.asarray(force_node, dtype=np.int64), (self.n_repetitions_,)).copy()
        if s.greedy:
            if self.greedy_node != "argmax":                              # code variant (E.4): a fixed node
                return np.full(self.n_repetitions_, self.greedy_node, dtype=np.int64)
            return np.argmax(s.log_u, axis=1)                             # section 5: argmax u
        return draw_nodes(p, self._rng.random(self.n_repetitions_))

    def _predict_step(self, x, force_node=None):
        s = self.sampling_
        eta, xi = self._rates()
        ubar = _softmax_masked(s.log_u, np.ones_like(s.log_u, dtype=bool))   # u_{i,t} / U_t
        p = (1.0 - xi) * ubar + xi / self.dominating_set_.size * self._inD   # eq. (12)
        s.greedy = self._greedy()
        node = self._draw(p, force_node)
        q = p @ self.A_                                                       # eq. (15)
        idx = self.out_neighbours_[node]                                      # S_t = N_{I_t}^out
        valid = np.ones(idx.shape, dtype=bool)
        s.p, s.q, s.node = p, q, node
        return self._combine(x, idx, valid, p=p, q=q, node=node, eta=eta, greedy=s.greedy)

    def _step_cause(self) -> str:
        clip = None if self.clip is None else tuple(self.clip)
        return self._importance_cause("clip", clip, None if clip is None else clip[0], "(0.1, 0.2) for SFG-MKL-R")

    def _learn_step(self, st, y):
        r = self._rows
        form = self.after_switch_form() if st.greedy else "importance"       # before the switch: drawn
        if form == "importance":
            q_sel = st.q[r[:, None], st.idx]                                  # eq. (15)
            p_sel = st.p[r, st.node]                                          # eq. (12)
            if self.clip is not None:                                         # code variant (E.4)
                q_sel = np.maximum(q_sel, self.clip[0])
                p_sel = np.maximum(p_sel, self.clip[1])
        else:                                                                 # I_t a point mass
            q_sel = np.ones(st.idx.shape)                                     # eq. (15): q_{i,t} = 1 on S_t
            p_sel = np.ones(self.n_repetitions_)                              # eq. (12): p_{I_t,t} = 1
        self._kernel_update(st, y, q_sel, st.eta)                             # eqs. (14), (17), (18a)
        loss_hat = (st.yhat - y) ** 2                                          # L(f_RF(x_t), y_t)
        ell_hat = np.zeros((self.n_repetitions_, self.N_))
        if form != "frozen_u":                                                # frozen_u: (18b) skipped
            with np.errstate(divide="ignore", over="ignore"):                # p ~ 0 only for a forced node
                ell_hat[r, st.node] = loss_hat / p_sel                         # eq. (16)
            self.sampling_.log_u -= st.eta * ell_hat                           # eq. (18b), in logs
        st.ell_hat = ell_hat
        st.loss_hat = loss_hat
        st.q_used, st.p_used = q_sel, p_sel                                    # the weights divided by

    # ------------------------------------------------------------------ the compiled loop (engine "numba")
    def _greedy_flags(self, t0, n):
        if self.greedy_after is None:
            return np.zeros(n, dtype=bool)
        return t0 + np.arange(n) >= self.greedy_after

    def _draw_counts(self, t0, n):
        return np.where(self._greedy_flags(t0, n), 0, self.n_repetitions_)      # one uniform per repetition

    def _state_items(self):
        return [*super()._state_items(), (self.sampling_, "log_u")]

    def _switch_args(self):
        """The kernels' form of greedy_after, greedy_node, the after-switch form and the clip."""
        clip = self.clip if self.clip is not None else (0.0, 0.0)
        return (-1 if self.greedy_after is None else int(self.greedy_after),
                -1 if self.greedy_node == "argmax" else int(self.greedy_node), FORMS[self.after_switch_form()],
                self.clip is not None, float(clip[0]), float(clip[1]))

    def _compiled_block(self, X, y, c0, n, P, U, rec):
        Om, scale, inv_sqrt_t, sincos = self._kernel_args()
        if getattr(self, "_in_csr", None) is None:                             # N_i^in of every node, ascending
            cols, rows = np.nonzero(self.A_.T)
            self._in_csr = (np.concatenate([[0], np.cumsum(np.bincount(cols, minlength=self.N_))]).astype(np.int64),
                            rows.astype(np.int64))
        R = self.n_repetitions_
        s = self.sampling_
        last_p, last_q, last_node = np.empty((R, self.N_)), np.empty((R, self.N_)), np.empty(R, dtype=np.int64)
        fail = sfg_steps(X, y, c0, n, self.t_, Om, self.theta_, self.log_w_, s.log_u, P, U, float(self.eta),
                         float(self.xi), inv_sqrt_t, float(self.lam), scale, sincos, np.ascontiguousarray(self.out_neighbours_),
                         *self._in_csr, self._inD, int(self.dominating_set_.size), *self._switch_args(), *rec,
                         last_p, last_q, last_node)
        self._finish_block(P[:, c0 + n - 1], last_p, last_q, last_node, self._greedy_flags(self.t_ + n - 1, 1)[0])
        return fail

    def _finish_block(self, yhat, p, q, node, greedy):
        s = self.sampling_
        s.p, s.q, s.node, s.greedy = p, q, node, bool(greedy)
        self.last_step_ = _Step(yhat=yhat.copy(), p=p, q=q, node=node, greedy=bool(greedy), compiled=True)


class SFGMKLR(SFGMKL):
    """SFG-MKL with the feedback graph rebuilt at every step from the kernels' losses (SFG-MKL-R, paper
    003, Algorithm 3).

    SFG-MKL-R, paper 003 Algorithm 3 (eqs. 22-25): SFG-MKL on a graph refined every step.

    At time t, with ubar_i = u_{i,t}/U_t:

    * beta_t: a constant ``beta``, or (default, section 5) beta_t = (1 - xi) ubar_[10,t] + xi/N
      with ubar_[10,t] the ``beta_rank``-th largest ubar_i;
    * D'_t = {i : ubar_i >= (beta_t - xi/N)/(1 - xi)}                                   eq. (22)
      (with the section-5 beta this is {i : ubar_i >= ubar_[10,t]}, computed that way so
      that round-off cannot drop the 10th node);
    * E'_t = E plus the edges (d_{i,t}, i), d_{i,t} = argmin_{j in D'_t} Delta(kappa_i, kappa_j)
      (eq. 23, ties: the lower index), for the nodes i named by ``refinement``:

      - "algorithm3" (default): Algorithm 3 as printed, "For all i in V \\ D'_t, append (d_{i,t}, i)
        to E'_t if (d_{i,t}, i) not in E" -- every node outside D'_t gets the edge from its most
        similar node of D'_t, whether or not another node of D'_t already has an edge to it;
      - "section4": the sentence of section 4, "the edge (d_{i,t}, i) is appended to E'_t, if there
        is not any edge from D'_t to v_i" -- only nodes not yet dominated by D'_t in G (this
        class's rule before issue 38). Both make D'_t a dominating set of G'_t (so q_{i,t} >= beta);
        Algorithm 3's adds more edges, hence larger out-neighbourhoods of D'_t's nodes;
    * p_{i,t} = (1 - xi) ubar_i + xi/|D'_t| 1[i in D'_t]                                  eq. (24);
    * S_t = N_{I_t,t}^out (out-neighbours in G'_t), prediction eq. (25), q_{i,t} over the
      in-neighbours in G'_t, and the updates (17)-(18) of :class:`SFGMKL`.

    The refined subset can hold up to N kernels (worst case O(dDN) per step, section 4). The
    greedy switch of section 5 applies as in :class:`SFGMKL`.

    Extra parameters: beta (None -> section 5's rule; a float -> constant beta),
    beta_rank (10), refinement ("algorithm3"), freeze_refinement (False). ``dominating_set_`` (of G) is not used by this
    algorithm.

    ``freeze_refinement=True`` is the authors' code's switch (reference E.4, class OMKLSFG's
    ``predict_refinement`` and the notebooks' ``if ter == 0: graphrefinement(...)``): from step
    ``greedy_after`` on, D'_t and the refined graph stay those of step greedy_after - 1, p_t of
    eq. (24) is recomputed from the current u with that D', and the node keeps being *drawn*
    from p_t (the code's second, unconditional draw overrides the fixed node it was passed), so
    ``greedy_node`` and ``after_switch`` are not used (an explicit "deterministic" or "frozen_u"
    is refused: the node is not chosen deterministically). The code's other departures (off-by-one node draw, clipping,
    prediction over the unrefined out-neighbours) are not part of this option.
    """

    def __init__(self, *, m=50, lam=1e-3, eta=0.05, xi=0.05, M=5, beta=None, beta_rank=10,
                 greedy_after=300, greedy_node="argmax", after_switch="auto", refinement="algorithm3",
                 freeze_refinement=False, clip=None, schedule="constant", seed=0, dictionary=None):
        self.beta = beta
        self.beta_rank = beta_rank
        self.refinement = refinement
        self.freeze_refinement = freeze_refinement
        super().__init__(m=m, lam=lam, eta=eta, xi=xi, M=M, greedy_after=greedy_after,
                         greedy_node=greedy_node, after_switch=after_switch, clip=clip, schedule=schedule,
                         seed=seed, dictionary=dictionary)

    _parameter_constraints = {"beta": Optional(Real(0, 1, closed="right")), "beta_rank": Integer(1),
                              "refinement": Options(*REFINEMENTS), "freeze_refinement": Boolean()}

    @classmethod
    def _unit_test_params(cls):
        yield {"m": 4, "eta": 0.2, "xi": 0.2, "M": 3, "greedy_after": 10, "seed": 3}
        yield {"m": 4, "eta": 0.2, "xi": 0.2, "M": 3, "greedy_after": 10, "freeze_refinement": True, "seed": 3}

    def _init_extra(self, d, R):
        super()._init_extra(d, R)
        if self.beta_rank > self.N_:
            raise ValueError(f"beta_rank must be <= N = {self.N_}, got {self.beta_rank}")
        if self.freeze_refinement and self.after_switch in ("deterministic", "frozen_u"):
            raise ValueError(f"after_switch={self.after_switch!r} needs a deterministic node after the switch, but "
                             "freeze_refinement=True keeps drawing it (reference E.4); use after_switch='auto' "
                             "or 'importance'")
        self._frozen_refinement = None

    def refined_graph(self, ubar, xi):
        """(D'_t mask (R, N), refined adjacency A'_t (R, N, N), beta_t (R,)) -- eqs. (22)-(23)."""
        N = self.N_
        if self.beta is None:
            ubar_k = -np.partition(-ubar, self.beta_rank - 1, axis=1)[:, self.beta_rank - 1]
            beta = (1.0 - xi) * ubar_k + xi / N
            Dp = ubar >= ubar_k[:, None]                                      # eq. (22), exact form
        else:
            beta = np.full(ubar.shape[0], float(self.beta))
            Dp = ubar >= (beta[:, None] - xi / N) / (1.0 - xi)               # eq. (22)
        delta = np.where(Dp[:, None, :], self.delta_[None, :, :], np.inf)    # Delta(i, j), j in D'_t
        d_it = np.argmin(delta, axis=2)                                       # eq. (23)
        if self.refinement == "section4":                                     # section 4's sentence
            add = ~((Dp.astype(np.float64) @ self.A_) > 0)                    # no edge from D'_t in G
        else:
            add = ~Dp                                                         # Algorithm 3: all i in V \ D'_t
        A = np.broadcast_to(self.A_, (ubar.shape[0], N, N)).copy()            # E'_t = E
        rr, ii = np.nonzero(add)
        A[rr, d_it[rr, ii], ii] = True                                        # append (d_{i,t}, i) (if not in E)
        return Dp, A, beta

    def _predict_step(self, x, force_node=None):
        s = self.sampling_
        eta, xi = self._rates()
        ubar = _softmax_masked(s.log_u, np.ones_like(s.log_u, dtype=bool))
        if self.freeze_refinement and self._greedy() and self._frozen_refinement is not None:
            Dp, A, beta = self._frozen_refinement                            # code (E.4): D', A' kept
        else:
            Dp, A, beta = self.refined_graph(ubar, xi)
            if self.freeze_refinement:
                self._frozen_refinement = (Dp, A, beta)
        p = (1.0 - xi) * ubar + xi * Dp / Dp.sum(axis=1, keepdims=True)     # eq. (24)
        s.greedy = self._greedy() and not self.freeze_refinement              # code (E.4): node stays drawn
        node = self._draw(p, force_node)
        q = np.einsum("rj,rji->ri", p, A)                                     # q over N_{i,t}^in
        mask = A[self._rows, node]                                            # N_{I_t,t}^out (R, N)
        K = int(mask.sum(axis=1).max())
        idx = np.argsort(~mask, axis=1, kind="stable")[:, :K]                 # chosen first, then padding
        valid = mask[self._rows[:, None], idx]
        s.p, s.q, s.node = p, q, node
        return self._combine(x, idx, valid, p=p, q=q, node=node, eta=eta, Dp=Dp, A=A, beta=beta, greedy=s.greedy)

    # ------------------------------------------------------------------ the compiled loop (engine "numba")
    def _greedy_flags(self, t0, n):
        flags = super()._greedy_flags(t0, n)
        return flags & (not self.freeze_refinement)                           # code (E.4): node stays drawn

    def _state_items(self):
        return [*super()._state_items(), (self, "_frozen_refinement")]

    def _compiled_block(self, X, y, c0, n, P, U, rec):
        Om, scale, inv_sqrt_t, sincos = self._kernel_args()
        R, N = self.n_repetitions_, self.N_
        frozen = self._frozen_refinement
        has_frozen = frozen is not None
        if frozen is None:
            frozen = (np.zeros((R, N), dtype=bool), np.zeros((R, N, N), dtype=bool), np.zeros(R))
        Dp, A = (np.ascontiguousarray(a, dtype=bool) for a in frozen[:2])
        beta = np.ascontiguousarray(frozen[2], dtype=np.float64)
        s = self.sampling_
        last_p, last_q, last_node = np.empty((R, N)), np.empty((R, N)), np.empty(R, dtype=np.int64)
        fail = sfgr_steps(X, y, c0, n, self.t_, Om, self.theta_, self.log_w_, s.log_u, P, U, float(self.eta),
                          float(self.xi), inv_sqrt_t, float(self.lam), scale, sincos, np.ascontiguousarray(self.delta_),
                          self.A_, int(self.beta_rank), -1.0 if self.beta is None else float(self.beta),
                          self.refinement == "section4", bool(self.freeze_refinement), has_frozen, Dp, A, beta,
                          *self._switch_args(), *rec, last_p, last_q, last_node)
        if self.freeze_refinement:
            self._frozen_refinement = (Dp, A, beta)
        self._finish_block(P[:, c0 + n - 1], last_p, last_q, last_node, self._greedy_flags(self.t_ + n - 1, 1)[0])
        return fail
