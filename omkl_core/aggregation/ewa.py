"""Exponentially weighted averages of the experts: with a fixed learning rate (:class:`EWA`, paper 000,
eq. 29, and R's opera package's ``ewa``) and with one chosen online (:class:`CalibratedEWA`, opera's
``ewaCalib``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import Boolean, Optional, Positive
from . import _kernels, _stated
from ._base import _K_INF, _loss_gradient, _MetaLearner, _own, _softmax, _stated_inputs


class EWA(_MetaLearner):
    """Exponentially weighted averaging of the experts with a fixed learning rate (paper 000, eq. 29; its
    regret bound: eq. 30).

    Exponentially weighted average forecaster with a fixed learning rate (P000 eq. (29), bound (30); ref. A.2).

    ``gradient=False`` (default) -- P000 eq. (29) on the truncated forecasts zbar_t (eq. (28)):

        alpha_1 = (1/N, ..., 1/N),
        alpha_{t+1,j} = alpha_{t,j} exp(-eta (zbar_{t,j} - y_t)^2) / sum_k (same),
        yhat_t = <alpha_t, zbar_t>,

    with eta = 1/(8 Y^2) on [-Y, Y], i.e. eta = 1/(2 (B - A)^2) on [A, B] (``eta=None``).
    (The paper prints the update for alpha_t with the loss of step t; the weights used at
    step t can only depend on the losses of steps < t -- CBL sec. 2.1 / Prop. 3.1 -- so the
    loss of step t enters alpha_{t+1}.)  Bound (30), CBL Prop. 3.1 (square loss is
    eta-exp-concave on [A, B] for eta <= 1/(2(B-A)^2)):
    sum_t (yhat_t - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2 <= ln N / eta = 8 Y^2 ln N
    (``omkl_core.bounds.ewa_bound``).

    ``gradient=True`` -- opera's fixed-eta ``ewa`` with the gradient trick (ref. A.2):
    p_{t,k} ∝ exp(eta R_{t-1,k}), R_{t,k} = R_{t-1,k} + r_{t,k},
    r_{t,k} = 2 (yhat_t - y_t)(yhat_t - zbar_{t,k})  (exponentiated gradient).

    Opera's default ``mixture(model = "EWA")`` calibrates eta online on a grid: that is a
    different algorithm, :class:`CalibratedEWA`.

    Compiled kernel of both forms: :func:`_kernels.ewa_stream` (``run`` on the ``"numba"`` engine).

    Parameters
    ----------
    n_experts : int or None, default=None
        See "Common parameters" (package docstring).
    eta : float > 0 or None, default=None
        Learning rate; None: 1/(2 (B - A)^2) from ``bounds`` (= 1/2 on [0, 1]).
    bounds : (float, float) or None, default=(0, 1)
        [A, B] for the truncation (28); None: no truncation (``eta`` is then required).
    gradient : bool, default=False
        False: exponential weights on the square losses (eq. 29); True: opera's linearised
        losses (gradient trick, ref. A.1).

    Attributes
    ----------
    cum_ : ndarray of shape (R, N)
        Cumulative square losses L_{t,k} (``gradient=False``) or cumulative regrets R_{t,k}.
    eta_ : float
        The learning rate in use.
    weights_ : ndarray of shape (N,) or (R, N)
        The weights the next prediction uses.
    """

    convex_weights = True    # yhat_t = <weights_, zbar_t> (tests/test_mixture.py)
    regret_bound = _stated.EWA_BOUND

    def stated_bounds(self, Z, y, predictions, *, expert_layer=None) -> list:
        """P000 eq. (30) (CBL Prop. 3.1) on the true losses; none for ``gradient=True`` (opera's
        linearised-loss EWA)."""
        if self.gradient:
            return _stated.no_bound_rows(self, "EWA(gradient=True) is opera's linearised-loss EWA: no bound stated")
        return _stated.exp_concave_rows(self, *_stated_inputs(Z, y, predictions), expert_layer)

    _parameter_constraints = {"eta": Optional(Positive()), "gradient": Boolean()}

    def __init__(self, n_experts=None, *, eta=None, bounds=(0, 1), gradient: bool = False):
        self.eta = eta
        self.gradient = gradient
        super().__init__(n_experts, bounds=bounds)

    def _validate_joint(self):
        super()._validate_joint()
        if self.eta is None and self.bounds is None:
            raise ValueError("eta must be given when bounds is None (the default "
                             "eta = 1/(2(B-A)^2) needs bounds)")

    def _reset(self):
        super()._reset()
        if self.eta is None:
            A, B = self._bounds
            self._eta = 1.0 / (2.0 * (B - A) ** 2)
        else:
            self._eta = float(self.eta)

    def _init_state(self, R, N):
        # gradient=False: cumulative losses L_{t,k}; gradient=True: cumulative regrets R_{t,k}
        self.cum_ = np.zeros((R, N))

    def _weights(self):
        if self.gradient:
            return _softmax(self._eta * self.cum_)     # p ∝ exp(eta R_{t-1})
        return _softmax(-self._eta * self.cum_)        # eq. (29): alpha ∝ exp(-eta L_{t-1})

    def _update(self, zb, y, yhat, p):
        if self.gradient:
            self.cum_ += _loss_gradient(yhat, y)[:, None] * (yhat[:, None] - zb)   # r_t (ref. A.1)
        else:
            d = zb - y[:, None]
            self.cum_ += d * d                                               # (zbar - y)^2, eq. (29)

    def _run_compiled(self, Zt, Y, out):
        """The compiled kernel of this rule: :func:`_kernels.ewa_stream` (state updated in place)."""
        self.cum_ = _own(self.cum_)
        eta = self._eta if self.gradient else -self._eta
        _kernels.ewa_stream(Zt, Y, self.cum_, eta, self.gradient, out)

    _compiled_step = True

    def _step_forecast(self, v):
        """:func:`_kernels.ewa_step_forecast`: eq. (28), then eq. (29)'s weights and forecast."""
        A, B, clip = self._trunc
        zb = np.empty(v.shape[0])
        return _kernels.ewa_step_forecast(v, A, B, clip, zb, self.cum_, self._eta if self.gradient else -self._eta), zb, None

    def _step_learn(self, zb, y, yhat, aux):
        """:func:`_kernels.ewa_step_learn`: L += (zbar - y)^2 (eq. (29)), or R += r_t (ref. A.1)."""
        _kernels.ewa_step_learn(zb, y, yhat, self.cum_, self.gradient)

    @property
    def eta_(self):
        """Learning rate the next prediction uses (fixed)."""
        return None if self._R is None else self._eta



# ---------------------------------------------------------------------------------------
# Calibrated EWA: opera's ewaCalib
# ---------------------------------------------------------------------------------------
@dataclass
class CalibratedEWAState:
    """State of :class:`CalibratedEWA` for R repetitions and N experts.

    Every grid value is eta0 * 2^k (k an integer exponent).  Members k_lo..k_hi are stored
    explicitly (G = k_hi - k_lo + 1 of them, a range shared by the R repetitions); a member
    below k_lo is stored once as the "uniform" member while its weights have been exactly 1/N
    at every step (see :class:`CalibratedEWA`).
    """

    w0: np.ndarray       # (N,) float: opera's prior weights 1/N; enter only eta0 (ln w0 + r_1)
    eta0: np.ndarray     # (R,) float: base learning rate, grid = eta0 * 2^k; 1 before t = 1,
                         #   then 1 / mean_k |ln w0_k + r_{1,k}|
    k_lo: int            # smallest exponent with an explicitly stored member
    k_hi: int            # largest exponent with an explicitly stored member
    Rg: np.ndarray       # (R, G, N) float: cumulative regret of each stored member, no ln w0 term
    CL: np.ndarray       # (R, G) float: cumulative true square loss of each stored member's forecasts
    RU: np.ndarray       # (R, N) float: cumulative regret of the uniform member (weights exactly 1/N)
    CLU: np.ndarray      # (R,) float: cumulative square loss of the uniform member
    sat: np.ndarray      # (R,) int64: largest k whose member has had exactly uniform weights at every
                         #   step so far (_K_INF: every k)
    lo: np.ndarray       # (R,) int64: smallest exponent of each repetition's active grid
    hi: np.ndarray       # (R,) int64: largest exponent of each repetition's active grid
    best: np.ndarray     # (R,) int64: exponent k of the member the next prediction follows
    hist_z: list         # T_seen arrays (R, N): truncated forecasts seen, to re-run new members
    hist_y: list         # T_seen arrays (R,): labels seen


class CalibratedEWA(_MetaLearner):
    """Exponentially weighted averaging of the experts whose learning rate is chosen online from a grid of
    rates, as R's opera package codes it (its ewaCalib).

    opera's calibrated EWA, ``ewaCalib`` (ref. A.2): EWA whose learning rate follows the best member of a grid.

    opera's default ``mixture(model = "EWA")`` (``grid.eta = NULL``, gamma = 2, gradient trick,
    opera >= 1.2.0): a grid of fixed-eta gradient-trick EWA members (:class:`EWA` with
    ``gradient=True``), each linearising at its own prediction; at t = 1 the grid {1} is
    replaced by eta0 = 1 / mean_k |ln w0_k + r_{1,k}| (w0_k = 1/N, the ln term included as
    in opera); the mixture follows the member of least cumulative true square loss (ties
    -> smallest eta; see the departure below); when it is the largest (smallest) eta of the grid, eta*2, 4, 8
    (eta/2, 4, 8) are added, each run from scratch on all data seen so far.

    Departures from opera's code, none changing a number: every grid value is eta0 * 2^k
    (k integer) and each member's state is a function of (eta0, k, data) only, so members of
    a global exponent range are kept running and a member joins a repetition's grid with
    exactly the state a re-run from scratch gives; R repetitions share that range (each
    repetition has its own eta0 and its own active [lo, hi]).  When the plain average is the
    best forecaster, the smallest etas all give weights exactly 1/N and tie exactly, opera's
    ``order()`` picks the smallest, and the grid grows by 3 members at *every* step (opera
    then re-runs 3 members from scratch per step, O(T^2)); such members are stored once, as
    the "uniform" member, which is bit-for-bit their state, so a step costs the same however
    long the grid is.  Quirk kept from opera: if mean |ln w0 + r_1| = 0 (only possible for
    N = 1) opera divides by zero; here eta0 = 1 then.

    One departure that can change a number: opera follows the member of least cumulative loss
    and breaks only exact ties (smallest eta); here every member within relative
    ``CALIB_TIE_RTOL`` = 1e-9 of the least is tied, and the smallest eta among them is followed
    (:func:`omkl_core.aggregation._kernels.calib_choose`). Otherwise losses that differ in their
    last bits -- the rounding of the experts' forecasts under another BLAS kernel -- decide the
    choice, and a last-bit difference becomes a 7th-digit one in the mixture's loss (issue 51).

    Parameters
    ----------
    n_experts, bounds : int or None, (float, float) or None; defaults None, (0, 1)
        As for every aggregator (package docstring, "Common parameters");
        ``bounds=None``: opera's rule on the raw forecasts.

    Attributes
    ----------
    state_ : CalibratedEWAState
        The grid members and the calibration bookkeeping (one comment per field there).
    eta_ : float or ndarray of shape (R,)
        The learning rate the next prediction uses.
    eta0_ : ndarray of shape (R,)
        Base of the grid.
    grid_eta_ : ndarray or list of ndarray
        The active grid of each repetition, in increasing order.
    weights_ : ndarray of shape (N,) or (R, N)
        The weights the next prediction uses.
    """

    convex_weights = True    # yhat_t = <weights_, zbar_t> (tests/test_mixture.py)

    #: No bound: opera's online calibration of eta over a grid states none.
    no_bound_reason = "opera's calibrated EWA (a grid of learning rates chosen online) states no regret bound"

    def __init__(self, n_experts=None, *, bounds=(0, 1)):
        super().__init__(n_experts, bounds=bounds)

    def _reset(self):
        super()._reset()
        self.state_ = None
        self._grid_cache = None     # (k_lo, k_hi, eta0, ks, etas): derived from state_, not state
        self._compiled_rerun = False  # True while the compiled driver runs (members re-run by the kernel)

    # ---- state ------------------------------------------------------------------------
    def _init_state(self, R, N):
        self.state_ = CalibratedEWAState(
            w0=np.full(N, 1.0 / N), eta0=np.ones(R), k_lo=0, k_hi=0,
            Rg=np.zeros((R, 1, N)), CL=np.zeros((R, 1)), RU=np.zeros((R, N)), CLU=np.zeros(R),
            sat=np.full(R, _K_INF, dtype=np.int64), lo=np.zeros(R, dtype=np.int64),
            hi=np.zeros(R, dtype=np.int64), best=np.zeros(R, dtype=np.int64), hist_z=[], hist_y=[])

    @property
    def eta0_(self):
        return None if self.state_ is None else self.state_.eta0

    # ---- members ------------------------------------------------------------------------
    # Members with k < k_lo are not stored: a repetition only ever holds such a member in its
    # grid when k <= sat (its weights were exactly (1/N, ..., 1/N) at every past step), and
    # then its state *is* the uniform member's state (RU, CLU) bit for bit, which is what a
    # re-run from scratch gives.  When such a member stops being saturated it is made
    # explicit by a re-run (rare: the spread of RU has to double).  This keeps the cost of
    # opera's grid, which grows by 3 members at every step when the smallest etas tie
    # exactly (all of them predicting the plain average), independent of the grid's length.
    def _member_etas(self, k_lo, k_hi):
        ks = np.arange(k_lo, k_hi + 1)
        return self.state_.eta0[:, None] * np.exp2(ks)[None, :]      # (R, G)

    def _grid_arrays(self):
        """(ks, etas) of the stored members k_lo..k_hi, recomputed only when they change."""
        st = self.state_
        c = self._grid_cache
        if c is None or c[0] != st.k_lo or c[1] != st.k_hi or c[2] is not st.eta0:
            c = (st.k_lo, st.k_hi, st.eta0, np.arange(st.k_lo, st.k_hi + 1), self._member_etas(st.k_lo, st.k_hi))
            self._grid_cache = c
        return c[3], c[4]

    @staticmethod
    def _member_step(Rg, CL, etas, zb, y):
        """One step of fixed-eta gradient-trick EWA (:class:`EWA`, ``gradient=True``) for every
        member (R, G, N): p ∝ exp(eta R_{t-1}), R += r_t; CL += (pred - y)^2 (ref. A.2 step 3)."""
        a = etas[:, :, None] * Rg
        e = np.exp(a - np.maximum.reduce(a, axis=-1, keepdims=True))
        W = e / np.add.reduce(e, axis=-1, keepdims=True)               # p of each member
        pred = np.add.reduce(W * zb[:, None, :], axis=-1)              # (R, G)
        err = pred - y[:, None]
        CL += err * err
        Rg += _loss_gradient(pred, y[:, None])[:, :, None] * (pred[:, :, None] - zb[:, None, :])   # r_t
        return pred

    @staticmethod
    def _uniform_member_step(RU, CLU, zb, y):
        """``_member_step`` of the eta = 0 member, whose weights are exactly 1/N (exp(0) / N): the
        same numbers with fewer operations.  RU (R, N), CLU (R,) are updated in place."""
        pred = np.add.reduce((1.0 / zb.shape[-1]) * zb, axis=-1)     # (R,)
        err = pred - y
        CLU += err * err
        RU += _loss_gradient(pred, y)[:, None] * (pred[:, None] - zb)   # r_t
        return pred

    def _saturation_exponent(self):
        """Per repetition, the largest k with exp(eta0 2^k RU_k - max) == 1 for every k.

        Only ``min(sat, .)`` of the result is used: where the first estimate k shows that the
        exact value (within k - 4 .. k + 4 of it) cannot go below the current ``sat``, k - 4 is
        returned instead (>= sat, so the same minimum) and the exact adjustment is skipped.
        """
        st = self.state_
        a = st.eta0[:, None] * st.RU
        xmin = (a - a.max(axis=-1, keepdims=True)).min(axis=-1)              # <= 0
        out = np.full(xmin.shape, _K_INF, dtype=np.int64)
        nz = xmin < 0
        if nz.any():
            xm = xmin[nz]
            k = np.floor(np.log2(2.0 ** -54 / -xm)).astype(np.int64)
            if (k - 4 >= st.sat[nz]).all():
                out[nz] = k - 4
                return out
            for _ in range(4):   # exact adjustment: exp(x 2^k) == 1 and exp(x 2^(k+1)) != 1
                up = np.exp(np.ldexp(xm, k + 1)) == 1.0
                k_up = np.where(up, k + 1, k)
                down = np.exp(np.ldexp(xm, k_up)) != 1.0
                k_new = np.where(down, k_up - 1, k_up)
                if np.array_equal(k_new, k):
                    break        # a fixed point: the remaining rounds would change nothing
                k = k_new
            out[nz] = k
        return out

    def _extend_global(self, k_lo_new, k_hi_new):
        """Add explicit members, each re-run from scratch on the stored history."""
        st = self.state_
        R, N = self._R, self.n_experts_

        def rerun(lo, hi):
            """States (Rg, CL) of members k = lo..hi replayed on the stored history."""
            Rg, CL = np.zeros((R, max(hi - lo + 1, 0), N)), np.zeros((R, max(hi - lo + 1, 0)))
            if hi >= lo and self._compiled_rerun:     # inside the compiled driver: the kernel's arithmetic
                _kernels.calib_rerun(np.stack(st.hist_z), np.stack(st.hist_y), Rg, CL, _own(st.eta0),
                                     np.exp2(np.arange(lo, hi + 1)))
            elif hi >= lo:
                etas = self._member_etas(lo, hi)
                for zs, ys in zip(st.hist_z, st.hist_y):
                    self._member_step(Rg, CL, etas, zs, ys)
            return Rg, CL

        (R_lo, C_lo), (R_hi, C_hi) = rerun(k_lo_new, st.k_lo - 1), rerun(st.k_hi + 1, k_hi_new)
        st.Rg = np.concatenate([R_lo, st.Rg, R_hi], axis=1)
        st.CL = np.concatenate([C_lo, st.CL, C_hi], axis=1)
        st.k_lo, st.k_hi = min(st.k_lo, k_lo_new), max(st.k_hi, k_hi_new)

    def _state_of_best(self):
        st = self.state_
        virtual = st.best < st.k_lo
        g = np.minimum(np.maximum(st.best - st.k_lo, 0), st.k_hi - st.k_lo)
        Rb = st.Rg[np.arange(self._R), g]                               # (R, N)
        return np.where(virtual[:, None], st.RU, Rb)

    # ---- rule -------------------------------------------------------------------------
    def _weights(self):
        st = self.state_
        eta = st.eta0 * np.exp2(st.best.astype(np.float64))
        return _softmax(eta[:, None] * self._state_of_best())

    def _step(self, zb, y):
        # The forecast of step t is the forecast of member `best` (state before the update), which
        # step (c) of the update computes with the operations of _weights/_aggregate: taken from
        # there instead of recomputed (the same numbers; ``predict_one`` uses _weights).
        yhat = self._update(zb, y, None, None)
        self.t_ += 1
        return yhat

    def _run_compiled(self, Zt, Y, out):
        """``run`` with steps (a)-(e) compiled (:func:`_kernels.calib_stream`); the kernel hands
        back the rare steps that re-run members from the stored history (steps (b) and (e)),
        which run here with the NumPy code (the re-runs themselves by :func:`_kernels.calib_rerun`)."""
        self._compiled_rerun = True      # members re-run by _extend_global: with the kernel too
        try:
            self._run_compiled_loop(Zt, Y, out)
        finally:
            self._compiled_rerun = False

    def _run_compiled_loop(self, Zt, Y, out):
        T = Y.shape[0]
        st = self.state_
        log_w0 = np.log(st.w0)
        t = 0
        while t < T:
            st.Rg, st.CL, st.RU, st.CLU = _own(st.Rg), _own(st.CL), _own(st.RU), _own(st.CLU)
            st.eta0 = _own(st.eta0).copy()          # a new array: _grid_arrays' cache sees the change
            st.sat, st.lo, st.hi, st.best = (_own(a, np.int64) for a in (st.sat, st.lo, st.hi, st.best))
            pow2 = np.exp2(np.arange(st.k_lo, st.k_hi + 1))
            stop, outcome = _kernels.calib_stream(Zt, Y, t, self.t_, st.Rg, st.CL, st.RU, st.CLU, st.eta0,
                                                  st.sat, st.lo, st.hi, st.best, st.k_lo, pow2, log_w0, out)
            # steps t .. done-1 are complete (up to (d) for the last one when it needs an extension)
            done = stop + 1 if outcome == _kernels.CALIB_NEEDS_EXTENSION else stop
            st.hist_z.extend(Zt[t:done].copy())
            st.hist_y.extend(Y[t:done].copy())
            if outcome == _kernels.CALIB_NEEDS_EXPLICIT:     # step (b), then the kernel takes step `stop` again
                self._explicit_unsaturated()
            elif outcome == _kernels.CALIB_NEEDS_EXTENSION:  # step (e) adds members
                self._extend_grid()
            t = done

    def _update(self, zb, y, yhat, p):
        """Steps (a)-(e) of one update; returns the forecast of the member in use before it."""
        st = self.state_
        # (a) saturation of the stored-as-uniform members at this step (state before update)
        st.sat = np.minimum(st.sat, self._saturation_exponent())
        self._explicit_unsaturated()
        # (c) one step of every explicit member and of the uniform member
        st.hist_z.append(zb.copy())
        st.hist_y.append(y.copy())
        ks, etas = self._grid_arrays()
        pred = self._member_step(st.Rg, st.CL, etas, zb, y)                    # (R, G)
        pred_u = self._uniform_member_step(st.RU, st.CLU, zb, y)[:, None]      # (R, 1)
        # forecast of the member in use (a member below k_lo in use is stored as the uniform one)
        virtual = st.best < st.k_lo
        g = np.minimum(np.maximum(st.best - st.k_lo, 0), st.k_hi - st.k_lo)
        yhat_used = np.where(virtual, pred_u[:, 0], pred[np.arange(self._R), g])
        if self.t_ == 0:
            # t = 1: grid.eta <- 1 / mean|R.w0|, R.w0 = ln w0 + r_1 (ref. A.2 step 4);
            # only member k = 0 exists and its regret row is r_1.
            m = np.mean(np.abs(np.log(st.w0)[None, :] + st.Rg[:, 0, :]), axis=-1)
            safe = np.where(m > 0, m, 1.0)
            st.eta0 = np.where(m > 0, 1.0 / safe, 1.0)
        # (d) best member of each repetition's grid: the smallest eta among the members within
        # relative CALIB_TIE_RTOL of the least cumulative loss (_kernels.calib_choose, vectorised)
        st.best = self._choose(st.CL, ks, st.lo, st.hi, st.k_lo, st.CLU)
        self._extend_grid()
        return yhat_used

    @staticmethod
    def _choose(CL, ks, lo, hi, k_lo, CLU):
        """Step (d) for every repetition (R,): the exponent of the member to follow, the smallest k
        of the active grid lo..hi whose cumulative loss is <= cmin + CALIB_TIE_RTOL * cmin (cmin: the
        grid's least; members below k_lo are the uniform member, loss CLU). The same arithmetic as
        :func:`_kernels.calib_choose`, which the compiled driver calls per repetition."""
        active = (ks[None, :] >= lo[:, None]) & (ks[None, :] <= hi[:, None])
        CLm = np.where(active, CL, np.inf)
        has_virtual = lo < k_lo
        cmin = np.minimum(np.where(has_virtual, CLU, np.inf), CLm.min(axis=1))
        thr = cmin + _kernels.CALIB_TIE_RTOL * cmin
        first = np.argmax(CLm <= thr[:, None], axis=1)           # the smallest k within thr
        return np.where(has_virtual & (CLU <= thr), lo, ks[first])

    def _explicit_unsaturated(self):
        """Step (b): members of a grid below k_lo that stop being saturated become explicit."""
        st = self.state_
        has_virtual = st.lo < st.k_lo
        if has_virtual.any():
            top_virtual = np.minimum(st.hi, st.k_lo - 1)
            need = has_virtual & (top_virtual > st.sat)
            if need.any():
                k_new = int(np.min(np.maximum(st.lo, st.sat + 1)[need]))
                self._extend_global(k_new, st.k_hi)

    def _extend_grid(self):
        """Step (e): grid extension at the extremities (opera: +3 members, factors gamma^1..3)."""
        st = self.state_
        up = st.best == st.hi
        down = st.best == st.lo
        new_hi = np.where(up, st.hi + 3, st.hi)
        new_lo = np.where(down, st.lo - 3, st.lo)
        if new_hi.max() > st.k_hi:
            self._extend_global(st.k_lo, int(new_hi.max()))
        # new members below k_lo that were not saturated at every step need explicit states
        need_lo = np.maximum(new_lo, st.sat + 1)
        below = need_lo < st.k_lo
        if below.any():
            self._extend_global(int(np.min(need_lo[below])), st.k_hi)
        st.hi, st.lo = new_hi, new_lo

    @property
    def eta_(self):
        """Learning rate the next prediction uses ((R,) array for batched runs)."""
        if self._R is None:
            return None
        st = self.state_
        eta = st.eta0 * np.exp2(st.best.astype(np.float64))
        return eta.copy() if self._batched else float(eta[0])

    @property
    def grid_eta_(self):
        """The calibrated grid of each repetition (list of arrays)."""
        if self._R is None:
            return None
        st = self.state_
        grids = [st.eta0[r] * np.exp2(np.arange(st.lo[r], st.hi[r] + 1)) for r in range(self._R)]
        return grids if self._batched else grids[0]


