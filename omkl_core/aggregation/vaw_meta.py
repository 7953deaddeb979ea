"""The Vovk-Azoury-Warmuth forecaster on the expert predictions (P000 eqs. (9)-(10), (22)-(23); "VAW2")."""
from __future__ import annotations

import numpy as np

from ..sherman_morrison import sm_forecast, sm_predict, sm_update
from ..validation import Boolean, Options, Positive
from ..vaw import kernels as _vaw
from . import _stated
from ._base import _MetaLearner, _stated_inputs


class VAWMeta(_MetaLearner):
    """The Vovk-Azoury-Warmuth forecaster on the experts' forecasts: a ridge regression of the label on
    them (paper 000, Theorem 2, the second level of VAW2).

    Vovk-Azoury-Warmuth forecaster on the expert predictions (P000 Theorem 2, "VAW2").

    P000 eqs. (9)-(10) with the feature vector Phi(x_t) replaced by the vector of expert
    forecasts z_t (P000 eq. (22)-(23), Theorem 2):

        alpha_t = S_t^{-1} sum_{i<t} y_i z_i,     S_t = lam I_N + sum_{i<=t} z_i z_i^T,
        yhat_t  = <alpha_t, z_t>,

    with S_t^{-1} updated by Sherman-Morrison (eq. (10)):
    S_t^{-1} z_t = S_{t-1}^{-1} z_t / (1 + z_t^T S_{t-1}^{-1} z_t), S_0^{-1} = I / lam -- the
    Sherman-Morrison core of the VAW expert layer (``omkl_core.vaw.sm_predict``/``sm_update``;
    state P = S_{t-1}^{-1} and w = S_{t-1}^{-1} b_{t-1}, forecast ``sm_forecast``).
    ``bounds=(A, B)`` feeds the truncated forecasts zbar_t (eq. (28)) instead -> "VAW2
    (trunc)".  The weights are signed and need not sum to one.

    ``ridge=True`` (option, not the paper's rule): online ridge, z_t's outer product is *not*
    added before predicting, yhat_t = <S_{t-1}^{-1} sum_{i<t} y_i z_i, z_t> -- the form of
    the second author's TVAW code (ref. E.1).

    ``shrink_to="uniform"`` (option, opera's ``Ridge`` aggregation, ref. A.1): penalise
    lam ||alpha - 1/N||^2 instead of lam ||alpha||^2, i.e. start from b_0 = lam/N (1, ..., 1) so
    that S_t^{-1} b_t shrinks towards uniform weights; with ``ridge=True`` this is opera's
    ``mixture(model = "Ridge", parameters = list(lambda = lam))`` (tested against its outputs).

    Whole streams: on the ``"numba"`` engine ``run`` is one compiled loop, the expert layer's
    per-step Sherman-Morrison kernel (``omkl_core.vaw.sm_run``) on z_t, and ``predict_one`` /
    ``learn_one`` of a single stream its step split at the forecast (``omkl_core.vaw.sm_step_forecast``,
    ``sm_step_learn``: ``run``'s numbers bit for bit); the NumPy engine uses the NumPy recursion above.
    The two engines agree to rounding (1e-12 relative, ``tests/test_aggregation_engines.py``); a run
    split in two gives the run's numbers bit for bit on either engine.

    ``weights_``: VAW's next weight vector alpha_{T+1} needs z_{T+1}; what is reported is
    S_T^{-1} sum_{i<=T} y_i z_i (the regularised least-squares solution on all data seen),
    which is what alpha_{T+1} would be without the z_{T+1} z_{T+1}^T term.

    Attributes
    ----------
    P_ : ndarray of shape (R, N, N)
        S_t^{-1} after t learned steps.
    w_ : ndarray of shape (R, N)
        S_t^{-1} b_t, b_t = b_0 + sum_{i<=t} y_i z_i (the reported ``weights_``).
    """

    regret_bound = _stated.VAW_BOUND

    def stated_bounds(self, Z, y, predictions, *, expert_layer=None) -> list:
        """P000 eq. (11) (with (25) for a VAW expert layer, and after (28) when truncated); P002
        Corollary 2 for ``ridge=True``; none for ``shrink_to="uniform"``."""
        return _stated.vaw_rows(self, *_stated_inputs(Z, y, predictions), expert_layer)

    _parameter_constraints = {"lam": Positive(), "ridge": Boolean(), "shrink_to": Options("zero", "uniform")}

    def __init__(self, n_experts=None, *, lam: float = 1.0, bounds=None, ridge: bool = False,
                 shrink_to: str = "zero"):
        self.lam = lam
        self.ridge = ridge
        self.shrink_to = shrink_to
        super().__init__(n_experts, bounds=bounds)

    def _reset(self):
        super()._reset()
        self._lam = float(self.lam)
        self.P_ = None

    @property
    def P_(self):
        """S_t^{-1} (R, N, N), exactly symmetric (the compiled step's pending update is applied and
        its lower triangle mirrored when read)."""
        self._flush()
        return self.__dict__.get("_P")

    @P_.setter
    def P_(self, value):
        self.__dict__.update(_P=value, _pending=None, _upper_stale=False)

    def _flush(self) -> None:
        """Apply the compiled step's pending rank-1 update of eq. (10) and mirror the lower triangle."""
        d = self.__dict__
        if d.get("_pending") is not None:
            V, d["_pending"] = d["_pending"], None
            _vaw.sm_step_forecast(np.zeros_like(V), d["_P"], self.w_, V, True, np.empty_like(V),
                                  np.empty((V.shape[0], 2)))
            d["_upper_stale"] = True
        if d.get("_upper_stale"):
            P = d["_P"]
            iu, ju = np.triu_indices(P.shape[-1], 1)
            P[:, iu, ju] = P[:, ju, iu]
            d["_upper_stale"] = False

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_workspace", None)        # the compiled step's scratch rows, recreated on demand
        return state

    def _init_state(self, R, N):
        self.P_ = np.broadcast_to(np.eye(N) / self._lam, (R, N, N)).copy()   # S_0^{-1} = I / lam
        # w_0 = S_0^{-1} b_0: b_0 = 0, or b_0 = lam w0 with w0 = 1/N (opera's Ridge) -> w_0 = 1/N
        self.w_ = np.zeros((R, N)) if self.shrink_to == "zero" else np.full((R, N), 1.0 / N)

    def _predict_step(self, zb):
        u, s, r = sm_predict(self.P_, self.w_, zb)           # r = <b_{t-1}, S_{t-1}^{-1} z_t>
        return (u, s, r), sm_forecast(r, s, self.ridge)      # VAW: r / (1 + s), eq. (9)

    def _update(self, zb, y, yhat, p):
        u, s, r = p
        sm_update(self.P_, self.w_, u, s, r, y)             # eq. (10), b_t = b_{t-1} + y_t z_t

    # one stream on the compiled engine: run's arithmetic (vaw.sm_run's step, split at the forecast)
    _compiled_step = True

    def _step_forecast(self, v):
        """The pending update of the last step (eq. (10)) fused with u = S_{t-1}^{-1} z_t in one pass,
        then r = <w, z_t>, s = z_t' u and eq. (9) as ``vaw.sm_run`` computes them
        (:func:`omkl_core.vaw.sm_step_forecast`); aux = (u, (r, s))."""
        d = self.__dict__
        P, w = d["_P"], self.w_
        if not (P.flags.writeable and w.flags.writeable and P.flags.c_contiguous and w.flags.c_contiguous):
            P = d["_P"] = np.array(P, order="C")            # e.g. unpickled from a read-only map: the
            w = self.w_ = np.array(w, order="C")            # compiled pass works in place
        # eq. (28) ("VAW2 (trunc)") or z_t itself (v: the forecast's own contiguous copy)
        zb = (v if self._bounds is None else np.clip(v, *self._bounds))[None, :]
        N = zb.shape[1]
        U, RS = np.empty((1, N)), np.empty((1, 2))
        V, d["_pending"] = d.get("_pending"), None
        work = d.get("_workspace")
        if work is None or work.shape[1] < N or not work.flags.writeable:
            work = self._work(N)
        _vaw.sm_step_forecast(zb, P, w, U if V is None else V, V is not None, U, RS, False, work)
        d["_upper_stale"] = True
        r, s = RS.item(0), RS.item(1)
        return (r if self.ridge else r * (1.0 / (1.0 + s))), zb, (U, RS)     # eq. (9) as sm_run

    def _step_learn(self, zb, y, yhat, aux):
        """w += u (y_t - r) / (1 + s) and the rank-1 factor v of eq. (10), applied by the next forecast's
        pass (:func:`omkl_core.vaw.sm_step_learn`)."""
        U, RS = aux
        V = np.empty_like(U)
        _vaw.sm_step_learn(U, RS, y, self.w_, V)
        self.__dict__["_pending"] = V                       # eq. (10): applied by the next forecast's pass

    def _work(self, N):
        w = self.__dict__.get("_workspace")
        if w is None or w.shape[1] < N or not w.flags.writeable:
            w = self.__dict__["_workspace"] = _vaw.aligned_rows(3, N)
        return w

    def _weights(self):
        return self.w_

    def _run_compiled(self, Zt, Y, out):
        """The compiled kernel of this rule: the expert layer's per-step Sherman-Morrison kernel
        (``omkl_core.vaw.sm_run``, eqs. (9)-(10)) on z_t as features, one repetition at a time
        (each has its own labels); state updated in place."""
        T, R, N = Zt.shape
        self.P_, self.w_ = np.ascontiguousarray(self.P_), np.ascontiguousarray(self.w_)
        Zv, Zr = np.empty((1, T)), np.empty((1, T))
        for r in range(R):
            _vaw.sm_run(np.ascontiguousarray(Zt[:, r, :])[None], np.ascontiguousarray(Y[:, r]),
                        self.P_[r:r + 1], self.w_[r:r + 1], Zv, Zr)
            out[:, r] = Zr[0] if self.ridge else Zv[0]


