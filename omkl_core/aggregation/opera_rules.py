"""The second-order rules of R's opera package, with its gradient trick: ML-Poly, ML-Prod, BOA.

Each rule is written once in NumPy (``_weights``/``_update``, batched over R repetitions) and
once compiled (``_kernels.mlpoly_stream``, ``_kernels.mlprod_stream``, ``_kernels.boa120_stream``,
``_kernels.boa122_stream``), named by the rule's ``_run_compiled``; the regret r_{t,k} is
``_base._regret`` (the factor 2 of the gradient trick in ``_base._loss_gradient``)."""
from __future__ import annotations

import math

import numpy as np

from ..validation import Options
from . import _kernels, _stated
from ._base import _EXP700, _MetaLearner, _own, _regret, _softmax, _stated_inputs


class MLPoly(_MetaLearner):
    """ML-Poly: weights each expert by how much better it did than the mixture so far, with a learning rate
    per expert that adapts to the scale of the losses, as R's opera package codes it (Gaillard,
    Stoltz & van Erven 2014).

    ML-Poly as opera's ``MLpol`` implements it (ref. A.1, A.4; Gaillard et al. 2014).

    Polynomial potential of degree 2 with one learning rate per expert, on the linearised
    square loss (gradient trick):

        p_{t,k} ∝ eta_{t,k} (R_{t-1,k})_+   if max_k R_{t-1,k} > 0, else uniform,
        R_{t,k} = R_{t-1,k} + r_{t,k},
        B_t = max(B_{t-1}, max_k r_{t,k}^2),
        eta_{t+1,k} = 1 / (1/eta_{t,k} + r_{t,k}^2 + B_t - B_{t-1}),  eta_{1,k} = e^700, B_0 = 0.

    No prior weights enter MLpol (opera refuses them).

    Parameters
    ----------
    n_experts, bounds : int or None, (float, float) or None; defaults None, (0, 1)
        As for every aggregator (package docstring, "Common parameters");
        ``bounds=None``: opera's rule on the raw forecasts.

    Attributes
    ----------
    regret_ : ndarray of shape (R, N)
        Cumulative regrets R_{t,k}.
    eta_ : ndarray of shape (R, N)
        Learning rates of the next step.
    B_ : ndarray of shape (R,)
        Largest squared instantaneous regret so far.
    """

    convex_weights = True    # yhat_t = <weights_, zbar_t> (tests/test_mixture.py)
    regret_bound = _stated.MLPOLY_BOUND

    def stated_bounds(self, Z, y, predictions, *, expert_layer=None) -> list:
        """ML-Poly's bound against every expert, evaluated on the run (``regret_bound``;
        :func:`omkl_core.bounds.mlpoly_potential_bound`)."""
        return _stated.mlpoly_rows(self, *_stated_inputs(Z, y, predictions))

    def __init__(self, n_experts=None, *, bounds=(0, 1)):
        super().__init__(n_experts, bounds=bounds)

    def _run_compiled(self, Zt, Y, out):
        """The compiled kernel of this rule: :func:`_kernels.mlpoly_stream` (state updated in place)."""
        self.regret_, self.eta_, self.B_ = _own(self.regret_), _own(self.eta_), _own(self.B_)
        _kernels.mlpoly_stream(Zt, Y, self.regret_, self.eta_, self.B_, out)

    _compiled_step = True

    def _step_forecast(self, v):
        """:func:`_kernels.mlpoly_step_forecast`: eq. (28), then p ∝ eta (R)_+ (ref. A.4)."""
        A, B, clip = self._trunc
        zb = np.empty(v.shape[0])
        return _kernels.mlpoly_step_forecast(v, A, B, clip, zb, self.regret_, self.eta_), zb, None

    def _step_learn(self, zb, y, yhat, aux):
        """:func:`_kernels.mlpoly_step_learn`: R, B and eta of ref. A.4."""
        _kernels.mlpoly_step_learn(zb, y, yhat, self.regret_, self.eta_, self.B_)

    def _init_state(self, R, N):
        self.regret_ = np.zeros((R, N))
        self.eta_ = np.full((R, N), _EXP700)
        self.B_ = np.zeros(R)

    def _weights(self):
        R = self.regret_
        num = self.eta_ * np.maximum(R, 0.0)                      # eta_{t,k} (R_{t-1,k})_+
        s = np.sum(num, axis=-1)
        has_pos = np.max(R, axis=-1) > 0
        N = R.shape[-1]
        safe = np.where(has_pos, s, 1.0)
        return np.where(has_pos[:, None], num / safe[:, None], 1.0 / N)   # else uniform (ref. A.4)

    def _update(self, zb, y, yhat, p):
        r = _regret(zb, y, yhat)                                  # r_{t,k} (ref. A.1)
        self.regret_ += r                                         # R_{t,k} = R_{t-1,k} + r_{t,k}
        r2 = r * r
        newB = np.maximum(self.B_, np.max(r2, axis=-1))           # B_t = max(B_{t-1}, max_k r_{t,k}^2)
        self.eta_ = 1.0 / (1.0 / self.eta_ + r2 + newB[:, None] - self.B_[:, None])
        self.B_ = newB


class MLProd(_MetaLearner):
    """ML-Prod: multiplicative weights with a learning rate per expert that adapts to the losses, as R's
    opera package codes it (Gaillard, Stoltz & van Erven 2014).

    ML-Prod as opera's ``MLprod`` implements it (ref. A.1, A.5; Gaillard et al. 2014).

    Initial state: R_k = ln w0_k = -ln N, L_k = 1, maxloss_k = 0, eta_{1,k} = e^700.

        p_{t,k} ∝ eta_{t,k} exp(R_k)                      (max-subtracted),
        L_k <- L_k + r_{t,k}^2,   maxloss_k <- max(maxloss_k, |r_{t,k}|),
        eta_{t+1,k} = min(1/(2 maxloss_k), sqrt(ln N / L_k))   (1/(2*0) = +inf),
        R_k <- (eta_{t+1,k}/eta_{t,k}) R_k + ln(1 + eta_{t+1,k} r_{t,k}).

    This is opera's variant (new eta inside the log, old exponent rescaled); the prior
    ln w0 is wiped out at t = 1 by the ratio e^{-700}.  Needs N >= 2 (ln N = 0 makes opera's
    eta zero and its weights NaN).

    Departure from opera's code (the weights): every opera version computes
    ``w <- truncate1(exp(R))`` -- exp(R) clipped to [e^-700, e^700] -- without subtracting
    max R: ``R/MLprod.R`` of 1.2.0 (the R path, its default) and of 1.2.2, and 1.2.0's optional
    C++ path (``src/MLProdEigen.cpp``: ``R.exp().unaryExpr(truncate1)``).  ref. A.5 says
    "max-subtracted": that is this class's form, not opera's.  Here p ∝ eta exp(R - max R).
    In exact arithmetic the two give the same p whenever every R_k lies in [-700, 700] (the
    factor e^{-max R} cancels in the normalisation); in floating point they then differ by
    rounding only (<= 4.4e-16 in the predictions against the opera fixtures, README table).
    Outside that range opera clips each exp(R_k) into [e^-700, e^700] and the two differ;
    exp(R - max R) never overflows.

    Parameters
    ----------
    n_experts, bounds : int or None, (float, float) or None; defaults None, (0, 1)
        As for every aggregator (package docstring, "Common parameters"), here N >= 2;
        ``bounds=None``: opera's rule on the raw forecasts.

    Attributes
    ----------
    log_weights_ : ndarray of shape (R, N)
        The exponents R_k of ref. A.5 (opera's ``R``): the weights are p ∝ eta exp(R_k), so
        R_k is the log of the unnormalised weight before the learning-rate factor.
    L_ : ndarray of shape (R, N)
        1 + cumulative squared regrets.
    maxloss_ : ndarray of shape (R, N)
        Largest |r_{t,k}| so far.
    eta_ : ndarray of shape (R, N)
        Learning rates of the next step.
    """

    convex_weights = True    # yhat_t = <weights_, zbar_t> (tests/test_mixture.py)

    #: No bound evaluated: Gaillard, Stoltz & van Erven (2014) bound ML-Prod with their learning rates
    #: and prior update (Corollary 4); opera's variant (the new eta inside the log, the old exponent
    #: rescaled, ref. A.5) is not the algorithm that corollary is proved for.
    no_bound_reason = ("Gaillard, Stoltz & van Erven (2014), Corollary 4, bounds the paper's ML-Prod; opera's "
                       "variant implemented here (ref. A.5) differs from it, and no bound is restated for it")

    min_experts = 2

    def __init__(self, n_experts=None, *, bounds=(0, 1)):
        super().__init__(n_experts, bounds=bounds)

    def _run_compiled(self, Zt, Y, out):
        """The compiled kernel of this rule: :func:`_kernels.mlprod_stream` (state updated in place)."""
        self.log_weights_, self.L_, self.maxloss_, self.eta_ = (
            _own(a) for a in (self.log_weights_, self.L_, self.maxloss_, self.eta_))
        _kernels.mlprod_stream(Zt, Y, self.log_weights_, self.L_, self.maxloss_, self.eta_, self._logN, out)

    _compiled_step = True

    def _step_forecast(self, v):
        """:func:`_kernels.mlprod_step_forecast`: eq. (28), then p ∝ eta exp(R - max R) (ref. A.5)."""
        A, B, clip = self._trunc
        zb = np.empty(v.shape[0])
        return _kernels.mlprod_step_forecast(v, A, B, clip, zb, self.log_weights_, self.eta_), zb, None

    def _step_learn(self, zb, y, yhat, aux):
        """:func:`_kernels.mlprod_step_learn`: L, maxloss, eta and R of ref. A.5."""
        _kernels.mlprod_step_learn(zb, y, yhat, self.log_weights_, self.L_, self.maxloss_, self.eta_, self._logN)

    def _init_state(self, R, N):
        w0 = np.full(N, 1.0 / N)
        self._logN = math.log(N)
        self.log_weights_ = np.broadcast_to(np.log(w0), (R, N)).copy()    # R_k = ln w0_k
        self.L_ = np.ones((R, N))
        self.maxloss_ = np.zeros((R, N))
        self.eta_ = np.full((R, N), _EXP700)

    def _weights(self):
        lw = self.log_weights_
        w = np.exp(lw - np.max(lw, axis=-1, keepdims=True))
        ew = self.eta_ * w                                        # p_{t,k} ∝ eta_{t,k} exp(R_k)
        return ew / np.sum(ew, axis=-1, keepdims=True)

    def _update(self, zb, y, yhat, p):
        r = _regret(zb, y, yhat)                                  # r_{t,k} (ref. A.1)
        self.L_ += r * r                                          # L_k <- L_k + r_{t,k}^2
        self.maxloss_ = np.maximum(self.maxloss_, np.abs(r))
        with np.errstate(divide="ignore"):
            inv = 1.0 / (2.0 * self.maxloss_)
        neweta = np.minimum(inv, np.sqrt(self._logN / self.L_))  # eta_{t+1,k} (ref. A.5)
        self.log_weights_ = neweta / self.eta_ * self.log_weights_ + np.log(1.0 + neweta * r)
        self.eta_ = neweta


class BOA(_MetaLearner):
    """Bernstein Online Aggregation: weights the experts by their past losses with a second-order
    correction, as R's opera package codes it (Wintenberger 2017).

    Bernstein Online Aggregation as coded in opera (ref. A.1, A.6; Wintenberger 2017).

    ``version="v120"`` (default; opera 1.2.0 / 1.2.1, the CRAN-era code), w0 = 1/N:

        p_{t,k} ∝ w0_k eta_{t,k} exp(eta_{t,k} Rreg_k),      eta_1 = 1, Rreg = 0,
        Bm_k <- max(Bm_k, |r_{t,k}|) (Bm starts at 2^-20),  B2_k = 2^ceil(log2 Bm_k),
        V_k <- V_k + r_{t,k}^2,
        eta_{t+1,k} = min(1/B2_k, sqrt(ln(1/w0_k) / V_k))    (V = 0 -> 1/B2),
        Rreg_k <- Rreg_k + (r_{t,k} - eta_{t+1,k} r_{t,k}^2 + B2_k 1[eta_{t+1,k} r_{t,k} > 1/2]) / 2.

    ``version="v122"`` (opera 1.2.2, GitHub HEAD 2024-11): S_k = 0 ("eta_inv2"), Rreg = 0;
    experts with S_k = 0 keep w0_k, the others share mass sum w0 over them in proportion to
    w0_k S_k^{-1/2} exp(Rreg_k / sqrt(S_k)); then normalised.  Update
    S_k <- S_k + 2.2 r_{t,k}^2;  for S_k > 0: Rreg_k <- Rreg_k + r_{t,k} - r_{t,k}^2/sqrt(S_k).
    v120 needs N >= 2 (ln N = 0 gives eta = 0 and NaN weights in opera).

    Parameters
    ----------
    n_experts : int or None, default=None
        See "Common parameters" (package docstring); N >= 2 for ``"v120"``.
    version : {"v120", "v122"}, default="v120"
        opera 1.2.0 / 1.2.1 code or opera 1.2.2 code (ref. A.6): two implementations opera
        shipped under one name, kept as an option of one class.
    bounds : (float, float) or None, default=(0, 1)
        See "Common parameters"; ``None``: opera's rule on the raw forecasts.

    Attributes
    ----------
    Rreg_ : ndarray of shape (R, N)
        Regularised cumulative regrets.
    eta_, V_, Bmax_ : ndarray of shape (R, N)
        (v120) learning rates of the next step, cumulative squared regrets, largest |r| so far.
    S_ : ndarray of shape (R, N)
        (v122) 2.2 times the cumulative squared regrets.
    """

    convex_weights = True    # yhat_t = <weights_, zbar_t> (tests/test_mixture.py)

    #: No bound evaluated: Wintenberger (2017) bounds BOA with multiple learning rates; opera's two
    #: codes (ref. A.6: v120's doubling of the range, v122's constant 2.2 and no ln N) are not
    #: restated here with constants checked against that proof.
    no_bound_reason = ("Wintenberger (2017, Machine Learning 106:119-141) bounds BOA with multiple learning "
                       "rates; opera's codes (ref. A.6) are not restated with constants checked against that "
                       "proof, so nothing is evaluated")

    _VERSIONS = ("v120", "v122")
    _parameter_constraints = {"version": Options(*_VERSIONS)}

    def __init__(self, n_experts=None, *, version: str = "v120", bounds=(0, 1)):
        self.version = version
        super().__init__(n_experts, bounds=bounds)

    @property
    def min_experts(self):
        """v120's rates involve ln N: at least 2 experts; v122: 1."""
        return 2 if self.version == "v120" else 1

    def _run_compiled(self, Zt, Y, out):
        """The compiled kernels of this rule: :func:`_kernels.boa120_stream` (``"v120"``) and
        :func:`_kernels.boa122_stream` (``"v122"``), state updated in place."""
        if self.version == "v120":
            self.Rreg_, self.eta_, self.V_, self.Bmax_ = (_own(a) for a in (self.Rreg_, self.eta_, self.V_, self.Bmax_))
            _kernels.boa120_stream(Zt, Y, self.Rreg_, self.eta_, self.V_, self.Bmax_, self._log_w0,
                                   self._log_inv_w0, out)
        else:
            self.Rreg_, self.S_, self._rreg = _own(self.Rreg_), _own(self.S_), _own(self._rreg)
            _kernels.boa122_stream(Zt, Y, self.Rreg_, self.S_, self._rreg, self._w0, self._log_w0, out)

    _compiled_step = True

    def _step_forecast(self, v):
        """:func:`_kernels.boa120_step_forecast` / :func:`_kernels.boa122_step_forecast`: eq. (28), then
        the weights of ref. A.6a / A.6b."""
        A, B, clip = self._trunc
        zb = np.empty(v.shape[0])
        if self.version == "v120":
            return _kernels.boa120_step_forecast(v, A, B, clip, zb, self.Rreg_, self.eta_, self._log_w0), zb, None
        return _kernels.boa122_step_forecast(v, A, B, clip, zb, self.Rreg_, self.S_, self._w0, self._log_w0), zb, None

    def _step_learn(self, zb, y, yhat, aux):
        """:func:`_kernels.boa120_step_learn` / :func:`_kernels.boa122_step_learn`: the updates of ref. A.6."""
        if self.version == "v120":
            _kernels.boa120_step_learn(zb, y, yhat, self.Rreg_, self.eta_, self.V_, self.Bmax_, self._log_inv_w0)
        else:
            _kernels.boa122_step_learn(zb, y, yhat, self.Rreg_, self.S_, self._rreg)

    def _init_state(self, R, N):
        w0 = 1.0 / N
        self._w0 = w0
        self._log_w0 = math.log(w0)
        self.Rreg_ = np.zeros((R, N))
        if self.version == "v120":
            self._log_inv_w0 = math.log(1.0 / w0)
            self.eta_ = np.ones((R, N))
            self.V_ = np.zeros((R, N))
            self.Bmax_ = np.full((R, N), 2.0 ** -20)
        else:
            self.S_ = np.zeros((R, N))
            self._rreg = np.zeros((R, N))

    def _weights(self):
        if self.version == "v120":
            return _softmax(np.log(self.eta_) + self._log_w0 + self.eta_ * self.Rreg_)
        S = self.S_
        nz = S > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            aux = np.where(nz, -0.5 * np.log(S) + self._log_w0 + self.Rreg_ / np.sqrt(S),
                           -np.inf)
        m = np.max(aux, axis=-1, keepdims=True)
        m = np.where(np.isfinite(m), m, 0.0)
        e = np.where(nz, np.exp(aux - m), 0.0)
        se = np.sum(e, axis=-1, keepdims=True)
        mass = self._w0 * np.sum(nz, axis=-1, keepdims=True)             # sum of w0 over nz
        w = np.where(nz, mass * e / np.where(se > 0, se, 1.0), self._w0)
        return w / np.sum(w, axis=-1, keepdims=True)

    def _update(self, zb, y, yhat, p):
        r = _regret(zb, y, yhat)
        r2 = r * r
        if self.version == "v120":
            self.Bmax_ = np.maximum(self.Bmax_, np.abs(r))
            B2 = np.exp2(np.ceil(np.log2(self.Bmax_)))
            self.V_ += r2
            with np.errstate(divide="ignore"):
                self.eta_ = np.minimum(1.0 / B2, np.sqrt(self._log_inv_w0 / self.V_))
            self.Rreg_ += 0.5 * (r - self.eta_ * r2 + B2 * (self.eta_ * r > 0.5))
        else:
            self.S_ += 2.2 * r2
            nz = self.S_ > 0
            with np.errstate(divide="ignore", invalid="ignore"):
                self._rreg = np.where(nz, r - r2 / np.sqrt(self.S_), self._rreg)
            self.Rreg_ += self._rreg
