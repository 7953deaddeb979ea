"""Meta-learners that aggregate N expert forecasts (seed paper 000, section 3 and section 4).

Every class here combines the expert predictions ``z_t = (z_{t,1}, ..., z_{t,N})`` of one
time step into one forecast of the label ``y_t``:

======================  ==========================================================  =========
class                   rule                                                        source
======================  ==========================================================  =========
:class:`VAWMeta`        Vovk-Azoury-Warmuth forecaster on ``z_t`` (-> "VAW2")       P000 eqs. (9)-(10), (22)-(23), (28)
:class:`EWA`            exponentially weighted average of truncated forecasts       P000 eqs. (28)-(30); opera ``ewa`` (ref. A.2)
:class:`CalibratedEWA`  EWA with opera's online-calibrated learning-rate grid       opera ``ewaCalib`` (ref. A.2), opera's default ``"EWA"``
:class:`AggregatingAlgorithm`  Vovk's AA for the square loss on ``[A, B]``          P000 sec. 4 ("VAW-Aggr"); ref. B; CBL sec. 3.5-3.6
:class:`MLProd`         ML-Prod as coded in the R package opera                     ref. A.1, A.5 (Gaillard, Stoltz & van Erven 2014)
:class:`MLPoly`         ML-Poly (opera's ``MLpol``)                                  ref. A.1, A.4 (Gaillard, Stoltz & van Erven 2014)
:class:`BOA`            Bernstein Online Aggregation, opera 1.2.0 and 1.2.2 codes    ref. A.1, A.6 (Wintenberger 2017)
======================  ==========================================================  =========

"ref." is ``../shared/reference/algorithms.md`` (sections A.1-A.6 and B), which records
how opera implements the rules the paper ran ("These algorithms are implemented within the
Opera library, which we employed", P000 sec. 4).

Truncation (P000 eq. (28) and sec. 4)
-------------------------------------
The theory of EWA and of the AA is stated for *truncated* expert forecasts
``zbar_t = min(B, max(A, z_t))`` and labels in ``[A, B]``; P000 sec. 4 says that all
algorithms of Table 2 except VAW2 are run on truncated forecasts, with ``[A, B] = [0, 1]``
(the normalised labels, eq. (33)).  Every class therefore takes ``bounds=(A, B)``: the
expert forecasts are clipped to ``[A, B]`` before the rule sees them (``bounds=None``: no
clipping).  Defaults: ``VAWMeta(bounds=None)`` (= "VAW2"; ``bounds=(0, 1)`` gives
"VAW2 (trunc)"), all the others ``bounds=(0, 1)`` (Table 2).  Opera itself never clips
anything, neither the expert forecasts nor the aggregate (ref. A.1); with
``bounds=None`` the ML-Prod / ML-Poly / BOA / calibrated-EWA classes are opera's rules on
the raw forecasts.  The aggregate itself is never clipped, except the AA's substitution
value, which lies in ``[A, B]`` by construction (ref. B).

Common interface
----------------
``predict_one(z) -> float`` and ``learn_one(z, y) -> None`` (River style, ``z`` of shape
``(N,)``); ``run(Z, y)`` for a whole stream, ``Z`` of shape ``(T, N)`` -> predictions
``(T,)``, or ``(R, T, N)`` -> ``(R, T)`` for R independent repetitions processed together
(the state carries a leading R axis; there is no Python loop over R or N inside the time
loop, only over t).  ``run`` continues from the current state, so a fresh model's ``run``
equals the ``predict_one``/``learn_one`` loop exactly (same floating-point operations).
``weights_`` are the weights the *next* prediction uses (after a run over the whole stream
this is opera's ``coefficients``, p_{T+1}); ``expert_predictions_`` is the last ``z`` seen
(as given, before truncation).  N is taken from the first ``z`` unless ``n_experts`` is
given.  The learned state arrays of each rule (``regret_``, ``eta_``, ``R_``, ``Sinv_``, ...)
always carry the leading repetition axis (R = 1 for a single stream); ``weights_`` and
``expert_predictions_`` drop it for a single stream.

Notation: p_t = weights, yhat_t = aggregate forecast, r_{t,k} = 2 (yhat_t - y_t)(yhat_t - z_{t,k})
is opera's instantaneous regret of expert k under the "gradient trick" (linearised square
loss, opera's default ``loss.gradient = TRUE``, ref. A.1).
"""
from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np

from ._validation import check_bool, check_label, check_magnitude, check_option, check_positive, check_scalar

__all__ = [
    "VAWMeta",
    "EWA",
    "CalibratedEWA",
    "CalibratedEWAState",
    "AggregatingAlgorithm",
    "MLProd",
    "MLPoly",
    "BOA",
    "truncate",
]

_EXP700 = math.exp(700.0)  # opera's "infinite" initial learning rate (ref. A.4, A.5)
_K_INF = 1 << 40            # "every exponent" (no member has left the uniform state yet)


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------
def _check_bounds(bounds, required: bool = False):
    if bounds is None:
        if required:
            raise ValueError("bounds must be a pair (A, B) with A < B, got None")
        return None
    try:
        A, B = bounds
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be a pair (A, B) with A < B, got {bounds!r}") from None
    A = check_scalar(A, "bounds[0]")
    B = check_scalar(B, "bounds[1]")
    if not A < B:
        raise ValueError(f"bounds must satisfy A < B, got bounds=({A!r}, {B!r})")
    return (A, B)


def truncate(z, bounds):
    """P000 eq. (28): ``zbar = min(B, max(A, z))`` component-wise; ``bounds=None`` -> ``z``."""
    if bounds is None:
        return z
    return np.clip(z, bounds[0], bounds[1])


def _check_n_experts(n_experts, minimum: int):
    if n_experts is None:
        return None
    if isinstance(n_experts, bool) or not isinstance(n_experts, numbers.Integral):
        raise TypeError(f"n_experts must be an integer or None, got {type(n_experts).__name__}")
    if n_experts < minimum:
        raise ValueError(f"n_experts must be >= {minimum}, got {n_experts!r}")
    return int(n_experts)


def _as_float_array(a, name):
    try:
        return np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array: {exc}") from None


def _softmax(a):
    """exp(a) normalised over the last axis, computed stably (max subtracted)."""
    m = np.max(a, axis=-1, keepdims=True)
    e = np.exp(a - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def _logsumexp(a):
    m = np.max(a, axis=-1)
    return m + np.log(np.sum(np.exp(a - m[..., None]), axis=-1))


# ---------------------------------------------------------------------------------------
# base class
# ---------------------------------------------------------------------------------------
class _MetaLearner:
    """Shared bookkeeping: validation, lazy state creation, the predict/learn/run loop.

    Subclasses implement, on arrays with a leading batch axis of length R:
      ``_init_state(R, N)``, ``_weights() -> (R, N)``, ``_update(zb, y, yhat, p)``;
    and optionally ``_aggregate(zb, p) -> (R,)`` (default: ``sum_k p_k zb_k``).
    """

    _min_experts = 1

    def __init__(self, n_experts=None, *, bounds=None):
        self.bounds = bounds
        self.n_experts = n_experts
        self._bounds = _check_bounds(bounds)
        self._n_fixed = _check_n_experts(n_experts, self._min_experts)
        self._R = None          # batch size of the current state (None: no state yet)
        self._batched = False   # state created by a batched run (R, T, N)
        self.n_experts_ = None
        self.n_steps_ = 0
        self.expert_predictions_ = None

    # ---- state ------------------------------------------------------------------------
    def _ensure_state(self, R, N, batched):
        if self._R is None:
            if self._n_fixed is not None and N != self._n_fixed:
                raise ValueError(f"z has {N} expert predictions but n_experts={self._n_fixed}")
            if N < self._min_experts:
                raise ValueError(f"{type(self).__name__} needs at least {self._min_experts} "
                                 f"experts (n_experts), got N={N}")
            self._R = R
            self._batched = batched
            self.n_experts_ = N
            self._init_state(R, N)
            return
        if N != self.n_experts_:
            src = (f"n_experts={self._n_fixed}" if self._n_fixed is not None
                   else "the number of experts seen so far")
            raise ValueError(f"z has {N} expert predictions, expected N={self.n_experts_} ({src})")
        if R != self._R or batched != self._batched:
            have = f"R={self._R} repetitions" if self._batched else "a single stream"
            want = f"R={R} repetitions" if batched else "a single stream"
            raise ValueError(f"Z: this model holds the state of {have}, got {want}")

    def _check_z_one(self, z):
        v = _as_float_array(z, "z")
        if v.ndim != 1:
            raise ValueError(f"z must be 1-D (N,), got shape {v.shape}")
        if v.shape[0] == 0:
            raise ValueError("z must hold at least one expert prediction")
        if not np.all(np.isfinite(v)):
            i = int(np.flatnonzero(~np.isfinite(v))[0])
            raise ValueError(f"z contains NaN or inf (first at index {i})")
        self._ensure_state(1, v.shape[0], False)
        return v

    def _warn_out_of_range(self, z, y) -> None:
        """Warn once per learner when a label lies outside ``bounds`` = [A, B]: the rules
        on [A, B]-bounded losses assume labels there, and the expert forecasts are clipped
        to [A, B] (eq. 28), so the aggregate cannot follow such labels. (Forecasts outside
        [A, B] with labels inside are what the truncation of eq. 28 is for: no warning.)"""
        if self._bounds is None or getattr(self, "_range_warned", False):
            return
        A, B = self._bounds
        ya = np.asarray(y, dtype=np.float64)
        if ya.size and (ya.min() < A or ya.max() > B):
            self._range_warned = True
            warnings.warn(f"{type(self).__name__}: labels y in [{ya.min():.4g}, {ya.max():.4g}] lie outside "
                          f"bounds=[{A:g}, {B:g}]; expert forecasts are clipped to [{A:g}, {B:g}] (eq. 28), so "
                          "the aggregate cannot follow the labels. Normalise the stream "
                          "(omkl_core.datasets.normalise_stream) or pass bounds that cover the labels",
                          RuntimeWarning, stacklevel=3)

    # ---- one step ---------------------------------------------------------------------
    def _aggregate(self, zb, p):
        return np.sum(p * zb, axis=-1)

    def _predict_step(self, zb):
        p = self._weights()
        return p, self._aggregate(zb, p)

    def _step(self, zb, y):
        p, yhat = self._predict_step(zb)
        self._update(zb, y, yhat, p)
        self.n_steps_ += 1
        return yhat

    # ---- public API -------------------------------------------------------------------
    def predict_one(self, z) -> float:
        """Forecast of y_t from the expert forecasts z_t (shape (N,)); state unchanged."""
        v = self._check_z_one(z)
        zb = truncate(v, self._bounds)[None, :]
        p, yhat = self._predict_step(zb)
        if not np.isfinite(yhat[0]):
            raise FloatingPointError(f"{type(self).__name__} produced a non-finite forecast {yhat[0]!r} at step "
                                     f"{self.n_steps_ + 1}: its weights overflowed (z in [{v.min():.3g}, {v.max():.3g}])")
        self.expert_predictions_ = v.copy()
        return float(yhat[0])

    def learn_one(self, z, y) -> None:
        """Observe y_t after the forecasts z_t (shape (N,)) and update the state."""
        v = self._check_z_one(z)
        yv = check_label(y, "y")
        self._warn_out_of_range(v, yv)
        zb = truncate(v, self._bounds)[None, :]
        self._step(zb, np.array([yv]))
        self.expert_predictions_ = v.copy()

    def run(self, Z, y):
        """Predict-then-learn over a whole stream.

        ``Z`` (T, N) with ``y`` (T,) -> predictions (T,);  ``Z`` (R, T, N) with ``y`` (T,)
        (shared labels) or (R, T) -> predictions (R, T): R independent repetitions run
        together.  Continues from the current state (a fresh model starts from scratch).
        """
        Za = _as_float_array(Z, "Z")
        if Za.ndim not in (2, 3):
            raise ValueError(f"Z must be (T, N) or (R, T, N), got shape {Za.shape}")
        batched = Za.ndim == 3
        Zb = Za if batched else Za[None]
        R, T, N = Zb.shape
        if T == 0 or N == 0 or R == 0:
            raise ValueError(f"Z must be non-empty, got shape {Za.shape}")
        if not np.all(np.isfinite(Zb)):
            raise ValueError("Z contains NaN or inf")
        ya = _as_float_array(y, "y")
        if ya.ndim == 1:
            if ya.shape[0] != T:
                raise ValueError(f"y has length {ya.shape[0]} but Z has T={T} time steps")
            Y = np.broadcast_to(ya[:, None], (T, R))
        elif ya.ndim == 2 and batched:
            if ya.shape != (R, T):
                raise ValueError(f"y must have shape (T,) or (R, T) = {(R, T)}, got {ya.shape}")
            Y = ya.T
        else:
            raise ValueError(f"y must be 1-D (T,) (or (R, T) with a 3-D Z), got shape {ya.shape}")
        if not np.all(np.isfinite(ya)):
            raise ValueError("y contains NaN or inf")
        check_magnitude(ya, "y")
        self._warn_out_of_range(Zb, ya)
        self._ensure_state(R, N, batched)
        # time-major, contiguous, truncated once (eq. 28)
        Zt = np.ascontiguousarray(truncate(Zb, self._bounds).transpose(1, 0, 2))
        Y = np.ascontiguousarray(Y)
        out = self._run_stream(Zt, Y)
        self.expert_predictions_ = Zb[:, -1, :].copy() if batched else Zb[0, -1, :].copy()
        return np.ascontiguousarray(out.T) if batched else out[:, 0].copy()

    def _run_stream(self, Zt, Y):
        """Predict-then-learn over time-major truncated forecasts Zt (T, R, N) and labels Y (T, R).

        Returns the predictions (T, R).  This generic loop calls ``_step``; the rules override
        it with a fused loop (same floating-point operations in the same order, fewer Python
        calls per step: the per-step interpreter overhead, not the arithmetic on N = 76
        numbers, is what a step costs).
        """
        T, R = Y.shape
        out = np.empty((T, R))
        for t in range(T):
            out[t] = self._step(Zt[t], Y[t])
        return out

    @property
    def weights_(self):
        """Weights the next prediction uses ((N,) or (R, N)); None before N is known."""
        if self._R is None:
            if self._n_fixed is None:
                return None
            self._ensure_state(1, self._n_fixed, False)
        w = self._weights()
        return w.copy() if self._batched else w[0].copy()

    def reset(self):
        """Forget everything learned (hyper-parameters are kept)."""
        self._R = None
        self._batched = False
        self.n_experts_ = None
        self.n_steps_ = 0
        self.expert_predictions_ = None
        return self

    def __repr__(self):
        return f"{type(self).__name__}({self._params_repr()})"

    def _params_repr(self):
        return f"bounds={self.bounds!r}"


# ---------------------------------------------------------------------------------------
# VAW on the expert predictions
# ---------------------------------------------------------------------------------------
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

    def __init__(self, n_experts=None, *, lam: float = 1.0, bounds=None, ridge: bool = False,
                 shrink_to: str = "zero"):
        super().__init__(n_experts, bounds=bounds)
        self.lam = lam
        self.ridge = ridge
        self.shrink_to = check_option(shrink_to, "shrink_to", ("zero", "uniform"))
        self._lam = check_positive(lam, "lam")
        if not isinstance(ridge, (bool, np.bool_)):
            raise TypeError(f"ridge must be a bool, got {type(ridge).__name__}")

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

    def _params_repr(self):
        extra = "" if self.shrink_to == "zero" else f", shrink_to={self.shrink_to!r}"
        return f"lam={self.lam!r}, bounds={self.bounds!r}, ridge={self.ridge!r}{extra}"


# ---------------------------------------------------------------------------------------
# EWA: paper eq. (29) and opera's ewa
# ---------------------------------------------------------------------------------------
_TIME_BLOCK = 512    # steps per block of the vectorised fixed-eta EWA (bounds its memory)


class EWA(_MetaLearner):
    """Exponentially weighted average forecaster with a fixed learning rate (P000 eq. (29), bound (30); ref. A.2).

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
    (``omkl_core.bounds.ewa_bound``).  The weights of step t depend on the labels only through
    the cumulative losses L_{t-1}, so ``run`` computes all of them at once (cumulative sums
    over time, in the same order of additions as the step-by-step loop: the same numbers).

    ``gradient=True`` -- opera's fixed-eta ``ewa`` with the gradient trick (ref. A.2):
    p_{t,k} ∝ exp(eta R_{t-1,k}), R_{t,k} = R_{t-1,k} + r_{t,k},
    r_{t,k} = 2 (yhat_t - y_t)(yhat_t - zbar_{t,k})  (exponentiated gradient).

    Opera's default ``mixture(model = "EWA")`` calibrates eta online on a grid: that is a
    different algorithm, :class:`CalibratedEWA`.  The old spelling ``EWA(calibrated=True)``
    still works: it emits a ``DeprecationWarning`` and returns a :class:`CalibratedEWA`.

    Parameters
    ----------
    n_experts : int or None, default=None
        Number N of experts; None: taken from the first ``z``.
    eta : float > 0 or None, default=None
        Learning rate; None: 1/(2 (B - A)^2) from ``bounds`` (= 1/2 on [0, 1]).
    bounds : (float, float) or None, default=(0, 1)
        [A, B] for the truncation (28); None: no truncation (``eta`` is then required).
    gradient : bool, default=False
        False: exponential weights on the square losses (eq. 29); True: opera's linearised
        losses (gradient trick, ref. A.1).
    calibrated : bool, default=False
        Deprecated; ``True`` returns :class:`CalibratedEWA` (with a ``DeprecationWarning``).

    Attributes
    ----------
    cum_ : ndarray of shape (R, N)
        Cumulative square losses L_{t,k} (``gradient=False``) or cumulative regrets R_{t,k}.
    eta_ : float
        The learning rate in use.
    weights_ : ndarray of shape (N,) or (R, N)
        The weights the next prediction uses.
    """

    def __new__(cls, n_experts=None, *, calibrated=False, **kwargs):
        if cls is EWA and isinstance(calibrated, (bool, np.bool_)) and calibrated:
            warnings.warn("EWA(calibrated=True) is deprecated: opera's calibrated EWA is its own class, "
                          "CalibratedEWA(n_experts, bounds=...)", DeprecationWarning, stacklevel=2)
            if kwargs.get("eta") is not None:
                raise ValueError("eta must be None when calibrated=True (the grid is calibrated online, ref. A.2)")
            unknown = set(kwargs) - {"eta", "bounds", "gradient"}
            if unknown:
                raise TypeError(f"EWA() got unexpected keyword argument(s) {sorted(unknown)}")
            return CalibratedEWA(n_experts, bounds=kwargs.get("bounds", (0, 1)))
        return super().__new__(cls)

    def __init__(self, n_experts=None, *, eta=None, bounds=(0, 1), gradient: bool = False,
                 calibrated: bool = False):
        super().__init__(n_experts, bounds=bounds)
        self.eta = eta
        self.gradient = gradient
        self.calibrated = calibrated
        check_bool(calibrated, "calibrated")
        check_bool(gradient, "gradient")
        if eta is None:
            if self._bounds is None:
                raise ValueError("eta must be given when bounds is None (the default "
                                 "eta = 1/(2(B-A)^2) needs bounds)")
            A, B = self._bounds
            self._eta = 1.0 / (2.0 * (B - A) ** 2)
        else:
            self._eta = check_positive(eta, "eta")

    def _init_state(self, R, N):
        # gradient=False: cumulative losses L_{t,k}; gradient=True: cumulative regrets R_{t,k}
        self.cum_ = np.zeros((R, N))

    def _weights(self):
        if self.gradient:
            return _softmax(self._eta * self.cum_)     # p ∝ exp(eta R_{t-1})
        return _softmax(-self._eta * self.cum_)        # eq. (29): alpha ∝ exp(-eta L_{t-1})

    def _update(self, zb, y, yhat, p):
        if self.gradient:
            self.cum_ += 2.0 * (yhat - y)[:, None] * (yhat[:, None] - zb)    # r_t (ref. A.1)
        else:
            d = zb - y[:, None]
            self.cum_ += d * d                                               # (zbar - y)^2

    def _run_stream(self, Zt, Y):
        T, R = Y.shape
        out = np.empty((T, R))
        if not self.gradient:
            # eq. (29) for a whole block of steps: L_{t-1} by a cumulative sum started from the
            # current state (np.add.accumulate adds in time order, as the loop's +=)
            neg_eta = -self._eta
            for a in range(0, T, _TIME_BLOCK):
                b = min(T, a + _TIME_BLOCK)
                C = np.empty((b - a + 1,) + self.cum_.shape)
                C[0] = self.cum_
                np.subtract(Zt[a:b], Y[a:b, :, None], out=C[1:])
                np.multiply(C[1:], C[1:], out=C[1:])                          # (zbar - y)^2
                np.add.accumulate(C, axis=0, out=C)                           # L_{t-1}, t = a..b
                W = _softmax(neg_eta * C[:-1])
                out[a:b] = np.add.reduce(W * Zt[a:b], axis=-1)
                self.cum_ = C[-1].copy()
            self.n_steps_ += T
            return out
        # gradient trick: fused loop, the operations of _weights/_aggregate/_update inlined
        if R == 1:
            return self._run_gradient_single(Zt[:, 0, :], Y[:, 0].tolist())[:, None]
        eta, cum = self._eta, self.cum_
        amax, add_red, exp = np.maximum.reduce, np.add.reduce, np.exp
        for t in range(T):
            zb, y = Zt[t], Y[t]
            a = eta * cum
            e = exp(a - amax(a, axis=-1, keepdims=True))
            p = e / add_red(e, axis=-1, keepdims=True)
            yhat = add_red(p * zb, axis=-1)
            out[t] = yhat
            cum += 2.0 * (yhat - y)[:, None] * (yhat[:, None] - zb)          # r_t (ref. A.1)
        self.n_steps_ += T
        return out

    def _run_gradient_single(self, Z, ys):
        """One stream, 1-D state: the loop of ``_run_stream`` with scalars for yhat_t (same numbers)."""
        T = len(ys)
        out = np.empty(T)
        eta, cum = self._eta, self.cum_[0]                 # a view: updated in place
        amax, add_red, exp = np.maximum.reduce, np.add.reduce, np.exp
        for t in range(T):
            z = Z[t]
            a = eta * cum
            e = exp(a - amax(a))
            yhat = add_red(e / add_red(e) * z)
            out[t] = yhat
            cum += 2.0 * (yhat - ys[t]) * (yhat - z)        # r_t (ref. A.1)
        self.n_steps_ += T
        return out

    @property
    def eta_(self):
        """Learning rate the next prediction uses (fixed)."""
        return None if self._R is None else self._eta

    def _params_repr(self):
        return f"eta={self.eta!r}, bounds={self.bounds!r}, gradient={self.gradient!r}"


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
    """opera's calibrated EWA, ``ewaCalib`` (ref. A.2): EWA whose learning rate follows the best member of a grid.

    opera's default ``mixture(model = "EWA")`` (``grid.eta = NULL``, gamma = 2, gradient trick,
    opera >= 1.2.0): a grid of fixed-eta gradient-trick EWA members (:class:`EWA` with
    ``gradient=True``), each linearising at its own prediction; at t = 1 the grid {1} is
    replaced by eta0 = 1 / mean_k |ln w0_k + r_{1,k}| (w0_k = 1/N, the ln term included as
    in opera); the mixture follows the member of least cumulative true square loss (ties
    -> smallest eta); when it is the largest (smallest) eta of the grid, eta*2, 4, 8
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

    Parameters
    ----------
    n_experts : int or None, default=None
        Number N of experts; None: taken from the first ``z``.
    bounds : (float, float) or None, default=(0, 1)
        [A, B] for the truncation (28); None: opera's rule on the raw forecasts.

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

    def __init__(self, n_experts=None, *, bounds=(0, 1)):
        super().__init__(n_experts, bounds=bounds)
        self.state_ = None
        self._grid_cache = None     # (k_lo, k_hi, eta0, ks, etas): derived from state_, not state

    @property
    def calibrated(self):
        """Always True (kept so that code reading ``EWA(...).calibrated`` keeps working)."""
        return True

    # ---- state ------------------------------------------------------------------------
    def _init_state(self, R, N):
        self.state_ = CalibratedEWAState(
            w0=np.full(N, 1.0 / N), eta0=np.ones(R), k_lo=0, k_hi=0,
            Rg=np.zeros((R, 1, N)), CL=np.zeros((R, 1)), RU=np.zeros((R, N)), CLU=np.zeros(R),
            sat=np.full(R, _K_INF, dtype=np.int64), lo=np.zeros(R, dtype=np.int64),
            hi=np.zeros(R, dtype=np.int64), best=np.zeros(R, dtype=np.int64), hist_z=[], hist_y=[])

    def reset(self):
        super().reset()
        self.state_ = None
        self._grid_cache = None
        return self

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
        """One step of fixed-eta gradient-trick EWA for every member (R, G, N)."""
        a = etas[:, :, None] * Rg
        e = np.exp(a - np.maximum.reduce(a, axis=-1, keepdims=True))
        W = e / np.add.reduce(e, axis=-1, keepdims=True)               # p of each member
        pred = np.add.reduce(W * zb[:, None, :], axis=-1)              # (R, G)
        err = pred - y[:, None]
        CL += err * err
        Rg += 2.0 * err[:, :, None] * (pred[:, :, None] - zb[:, None, :])
        return pred

    @staticmethod
    def _uniform_member_step(RU, CLU, zb, y):
        """``_member_step`` of the eta = 0 member, whose weights are exactly 1/N (exp(0) / N): the
        same numbers with fewer operations.  RU (R, N), CLU (R,) are updated in place."""
        pred = np.add.reduce((1.0 / zb.shape[-1]) * zb, axis=-1)     # (R,)
        err = pred - y
        CLU += err * err
        RU += 2.0 * err[:, None] * (pred[:, None] - zb)
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
            if hi >= lo:
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

    def _run_stream(self, Zt, Y):
        # The forecast of step t is the forecast of member `best` (state before the update), which
        # step (c) of the update computes anyway with the same operations: take it from there
        # instead of recomputing the weights (same numbers; ``predict_one`` still uses _weights).
        T, R = Y.shape
        out = np.empty((T, R))
        for t in range(T):
            out[t] = self._update(Zt[t], Y[t], None, None)
            self.n_steps_ += 1
        return out

    def _update(self, zb, y, yhat, p):
        """Steps (a)-(e) of one update; returns the forecast of the member in use before it."""
        st = self.state_
        # (a) saturation of the stored-as-uniform members at this step (state before update)
        st.sat = np.minimum(st.sat, self._saturation_exponent())
        # (b) members of a grid below k_lo that stop being saturated become explicit
        has_virtual = st.lo < st.k_lo
        if has_virtual.any():
            top_virtual = np.minimum(st.hi, st.k_lo - 1)
            need = has_virtual & (top_virtual > st.sat)
            if need.any():
                k_new = int(np.min(np.maximum(st.lo, st.sat + 1)[need]))
                self._extend_global(k_new, st.k_hi)
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
        if self.n_steps_ == 0:
            # t = 1: grid.eta <- 1 / mean|R.w0|, R.w0 = ln w0 + r_1 (ref. A.2 step 4);
            # only member k = 0 exists and its regret row is r_1.
            m = np.mean(np.abs(np.log(st.w0)[None, :] + st.Rg[:, 0, :]), axis=-1)
            safe = np.where(m > 0, m, 1.0)
            st.eta0 = np.where(m > 0, 1.0 / safe, 1.0)
        # (d) best member of each repetition's grid (ties -> smallest eta, as opera's order())
        active = (ks[None, :] >= st.lo[:, None]) & (ks[None, :] <= st.hi[:, None])
        CLm = np.where(active, st.CL, np.inf)
        g = np.argmin(CLm, axis=1)
        best_explicit = ks[g]
        min_explicit = CLm[np.arange(self._R), g]
        has_virtual = st.lo < st.k_lo
        st.best = np.where(has_virtual & (st.CLU <= min_explicit), st.lo, best_explicit)
        # (e) grid extension at the extremities (opera: +3 members, factors gamma^1..3)
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
        return yhat_used

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

    def _params_repr(self):
        return f"bounds={self.bounds!r}"


# ---------------------------------------------------------------------------------------
# Aggregating Algorithm
# ---------------------------------------------------------------------------------------
class AggregatingAlgorithm(_MetaLearner):
    """Vovk's Aggregating Algorithm for the square loss on [A, B] (ref. B; P000 sec. 4).

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
        Number N of experts; None: taken from the first ``z``.
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

    def __init__(self, n_experts=None, *, bounds=(0, 1), eta=None):
        super().__init__(n_experts, bounds=bounds)
        self.eta = eta
        A, B = _check_bounds(bounds, required=True)
        eta_max = 2.0 / (B - A) ** 2
        if eta is None:
            self._eta = eta_max
        else:
            self._eta = check_positive(eta, "eta")
            if self._eta > eta_max * (1 + 1e-12):
                raise ValueError(f"eta must be <= 2/(B-A)^2 = {eta_max!r} (mixability of the "
                                 f"square loss on bounds={bounds!r}), got {eta!r}")

    def _init_state(self, R, N):
        self.cum_loss_ = np.zeros((R, N))      # sum_{s<t} (y_s - zbar_{s,k})^2

    def _weights(self):
        return _softmax(-self._eta * self.cum_loss_)

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
        self.cum_loss_ += d * d

    def _params_repr(self):
        return f"bounds={self.bounds!r}, eta={self.eta!r}"


# ---------------------------------------------------------------------------------------
# opera's second-order rules (gradient trick, ref. A.1)
# ---------------------------------------------------------------------------------------
def _loss_gradient(yhat, y):
    """d/dyhat (yhat - y)^2 = 2 (yhat - y): the slope of opera's linearised square loss (ref. A.1).
    The one place of the factor 2, shared by the per-step rules and their fused loops."""
    return 2.0 * (yhat - y)


def _regret(zb, y, yhat):
    """r_{t,k} = lpred - lexp = 2(yhat-y) yhat - 2(yhat-y) z_k (opera, loss.gradient=TRUE)."""
    g = _loss_gradient(yhat, y)
    return g[:, None] * yhat[:, None] - g[:, None] * zb


class MLPoly(_MetaLearner):
    """ML-Poly as opera's ``MLpol`` implements it (ref. A.1, A.4; Gaillard et al. 2014).

    Polynomial potential of degree 2 with one learning rate per expert, on the linearised
    square loss (gradient trick):

        p_{t,k} ∝ eta_{t,k} (R_{t-1,k})_+   if max_k R_{t-1,k} > 0, else uniform,
        R_{t,k} = R_{t-1,k} + r_{t,k},
        B_t = max(B_{t-1}, max_k r_{t,k}^2),
        eta_{t+1,k} = 1 / (1/eta_{t,k} + r_{t,k}^2 + B_t - B_{t-1}),  eta_{1,k} = e^700, B_0 = 0.

    No prior weights enter MLpol (opera refuses them).

    Parameters
    ----------
    n_experts : int or None, default=None
        Number N of experts; None: taken from the first ``z``.
    bounds : (float, float) or None, default=(0, 1)
        [A, B] for the truncation (28); None: opera's rule on the raw forecasts.

    Attributes
    ----------
    regret_ : ndarray of shape (R, N)
        Cumulative regrets R_{t,k}.
    eta_ : ndarray of shape (R, N)
        Learning rates of the next step.
    B_ : ndarray of shape (R,)
        Largest squared instantaneous regret so far.
    """

    def __init__(self, n_experts=None, *, bounds=(0, 1)):
        super().__init__(n_experts, bounds=bounds)

    def _run_stream(self, Zt, Y):
        # fused loop: _weights, _aggregate, _regret, _update inlined (same operations, same order)
        T, R = Y.shape
        N = self.n_experts_
        out = np.empty((T, R))
        if R == 1:
            return self._run_single(Zt[:, 0, :], Y[:, 0].tolist())[:, None]
        Rg, eta, B = self.regret_, self.eta_, self.B_
        add_red, max_red, maximum, where = np.add.reduce, np.maximum.reduce, np.maximum, np.where
        single = R == 1
        for t in range(T):
            zb, y = Zt[t], Y[t]
            num = eta * maximum(Rg, 0.0)
            s = add_red(num, axis=-1)
            has_pos = max_red(Rg, axis=-1) > 0
            if single:   # the same values as the np.where form below, without the select
                p = num / s[:, None] if has_pos[0] else np.full((1, N), 1.0 / N)
            else:
                safe = where(has_pos, s, 1.0)
                p = where(has_pos[:, None], num / safe[:, None], 1.0 / N)
            yhat = add_red(p * zb, axis=-1)
            out[t] = yhat
            g = _loss_gradient(yhat, y)
            r = g[:, None] * yhat[:, None] - g[:, None] * zb
            Rg += r
            r2 = r * r
            newB = maximum(B, max_red(r2, axis=-1))
            eta = 1.0 / (1.0 / eta + r2 + newB[:, None] - B[:, None])
            B = newB
        self.eta_, self.B_ = eta, B
        self.n_steps_ += T
        return out

    def _run_single(self, Z, ys):
        """One stream, 1-D state, scalar yhat_t and B_t (the same operations, the same numbers)."""
        T, N = len(ys), self.n_experts_
        out = np.empty(T)
        Rg, eta, B = self.regret_[0], self.eta_[0], float(self.B_[0])   # Rg: a view, updated in place
        add_red, max_red, maximum = np.add.reduce, np.maximum.reduce, np.maximum
        uniform = np.full(N, 1.0 / N)
        for t in range(T):
            z = Z[t]
            if max_red(Rg) > 0:
                num = eta * maximum(Rg, 0.0)
                p = num / add_red(num)
            else:
                p = uniform
            yhat = add_red(p * z)
            out[t] = yhat
            g = 2.0 * (yhat - ys[t])
            r = g * yhat - g * z
            Rg += r
            r2 = r * r
            m = max_red(r2)
            newB = m if m > B else B
            eta = 1.0 / (1.0 / eta + r2 + newB - B)
            B = newB
        self.eta_, self.B_ = eta[None, :], np.array([B])
        self.n_steps_ += T
        return out

    def _init_state(self, R, N):
        self.regret_ = np.zeros((R, N))
        self.eta_ = np.full((R, N), _EXP700)
        self.B_ = np.zeros(R)

    def _weights(self):
        R = self.regret_
        pos = np.maximum(R, 0.0)
        num = self.eta_ * pos
        s = np.sum(num, axis=-1)
        has_pos = np.max(R, axis=-1) > 0
        N = R.shape[-1]
        safe = np.where(has_pos, s, 1.0)
        return np.where(has_pos[:, None], num / safe[:, None], 1.0 / N)

    def _update(self, zb, y, yhat, p):
        r = _regret(zb, y, yhat)
        self.regret_ += r
        r2 = r * r
        newB = np.maximum(self.B_, np.max(r2, axis=-1))
        self.eta_ = 1.0 / (1.0 / self.eta_ + r2 + newB[:, None] - self.B_[:, None])
        self.B_ = newB


class MLProd(_MetaLearner):
    """ML-Prod as opera's ``MLprod`` implements it (ref. A.1, A.5; Gaillard et al. 2014).

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
    n_experts : int or None, default=None
        Number N >= 2 of experts; None: taken from the first ``z``.
    bounds : (float, float) or None, default=(0, 1)
        [A, B] for the truncation (28); None: opera's rule on the raw forecasts.

    Attributes
    ----------
    R_ : ndarray of shape (R, N)
        Exponents R_k of the weights.
    L_ : ndarray of shape (R, N)
        1 + cumulative squared regrets.
    maxloss_ : ndarray of shape (R, N)
        Largest |r_{t,k}| so far.
    eta_ : ndarray of shape (R, N)
        Learning rates of the next step.
    """

    _min_experts = 2

    def __init__(self, n_experts=None, *, bounds=(0, 1)):
        super().__init__(n_experts, bounds=bounds)

    def _run_stream(self, Zt, Y):
        # fused loop: _weights, _aggregate, _regret, _update inlined (same operations, same order)
        T, R = Y.shape
        out = np.empty((T, R))
        if R == 1:
            return self._run_single(Zt[:, 0, :], Y[:, 0].tolist())[:, None]
        Rr, L, maxloss, eta, logN = self.R_, self.L_, self.maxloss_, self.eta_, self._logN
        add_red, max_red, exp, log = np.add.reduce, np.maximum.reduce, np.exp, np.log
        with np.errstate(divide="ignore"):
            for t in range(T):
                zb, y = Zt[t], Y[t]
                ew = eta * exp(Rr - max_red(Rr, axis=-1, keepdims=True))
                p = ew / add_red(ew, axis=-1, keepdims=True)
                yhat = add_red(p * zb, axis=-1)
                out[t] = yhat
                g = _loss_gradient(yhat, y)
                r = g[:, None] * yhat[:, None] - g[:, None] * zb
                L += r * r
                maxloss = np.maximum(maxloss, np.abs(r))
                neweta = np.minimum(1.0 / (2.0 * maxloss), np.sqrt(logN / L))
                Rr = neweta / eta * Rr + log(1.0 + neweta * r)
                eta = neweta
        self.R_, self.maxloss_, self.eta_ = Rr, maxloss, eta
        self.n_steps_ += T
        return out

    def _run_single(self, Z, ys):
        """One stream, 1-D state, scalar yhat_t (the same operations, the same numbers)."""
        T = len(ys)
        out = np.empty(T)
        Rr, L, maxloss, eta, logN = self.R_[0], self.L_[0], self.maxloss_[0], self.eta_[0], self._logN
        add_red, max_red, exp, log, sqrt = np.add.reduce, np.maximum.reduce, np.exp, np.log, np.sqrt
        maximum, minimum, absolute = np.maximum, np.minimum, np.abs
        with np.errstate(divide="ignore"):
            for t in range(T):
                z = Z[t]
                ew = eta * exp(Rr - max_red(Rr))
                yhat = add_red(ew / add_red(ew) * z)
                out[t] = yhat
                g = 2.0 * (yhat - ys[t])
                r = g * yhat - g * z
                L += r * r                                   # L_: a view, updated in place
                maxloss = maximum(maxloss, absolute(r))
                neweta = minimum(1.0 / (2.0 * maxloss), sqrt(logN / L))
                Rr = neweta / eta * Rr + log(1.0 + neweta * r)
                eta = neweta
        self.R_, self.maxloss_, self.eta_ = Rr[None, :], maxloss[None, :], eta[None, :]
        self.n_steps_ += T
        return out

    def _init_state(self, R, N):
        w0 = np.full(N, 1.0 / N)
        self._logN = math.log(N)
        self.R_ = np.broadcast_to(np.log(w0), (R, N)).copy()
        self.L_ = np.ones((R, N))
        self.maxloss_ = np.zeros((R, N))
        self.eta_ = np.full((R, N), _EXP700)

    def _weights(self):
        w = np.exp(self.R_ - np.max(self.R_, axis=-1, keepdims=True))
        ew = self.eta_ * w
        return ew / np.sum(ew, axis=-1, keepdims=True)

    def _update(self, zb, y, yhat, p):
        r = _regret(zb, y, yhat)
        self.L_ += r * r
        self.maxloss_ = np.maximum(self.maxloss_, np.abs(r))
        with np.errstate(divide="ignore"):
            inv = 1.0 / (2.0 * self.maxloss_)
        neweta = np.minimum(inv, np.sqrt(self._logN / self.L_))
        self.R_ = neweta / self.eta_ * self.R_ + np.log(1.0 + neweta * r)
        self.eta_ = neweta


class BOA(_MetaLearner):
    """Bernstein Online Aggregation as coded in opera (ref. A.1, A.6; Wintenberger 2017).

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
        Number N of experts (N >= 2 for ``"v120"``); None: taken from the first ``z``.
    version : {"v120", "v122"}, default="v120"
        opera 1.2.0 / 1.2.1 code or opera 1.2.2 code (ref. A.6): two implementations opera
        shipped under one name, kept as an option of one class.
    bounds : (float, float) or None, default=(0, 1)
        [A, B] for the truncation (28); None: opera's rule on the raw forecasts.

    Attributes
    ----------
    Rreg_ : ndarray of shape (R, N)
        Regularised cumulative regrets.
    eta_, V_, Bmax_ : ndarray of shape (R, N)
        (v120) learning rates of the next step, cumulative squared regrets, largest |r| so far.
    S_ : ndarray of shape (R, N)
        (v122) 2.2 times the cumulative squared regrets.
    """

    _VERSIONS = ("v120", "v122")

    def __init__(self, n_experts=None, *, version: str = "v120", bounds=(0, 1)):
        if version not in self._VERSIONS:
            raise ValueError(f"version must be one of {self._VERSIONS}, got {version!r}")
        self.version = version
        self._min_experts = 2 if version == "v120" else 1
        super().__init__(n_experts, bounds=bounds)

    def _run_stream(self, Zt, Y):
        if self.version != "v120":
            return super()._run_stream(Zt, Y)
        # v120 fused loop: _weights, _aggregate, _regret, _update inlined (same operations, same order)
        T, R = Y.shape
        out = np.empty((T, R))
        if R == 1:
            return self._run_single(Zt[:, 0, :], Y[:, 0].tolist())[:, None]
        Rreg, eta, V, Bmax = self.Rreg_, self.eta_, self.V_, self.Bmax_
        log_w0, log_inv_w0 = self._log_w0, self._log_inv_w0
        add_red, max_red, exp, log = np.add.reduce, np.maximum.reduce, np.exp, np.log
        with np.errstate(divide="ignore"):
            for t in range(T):
                zb, y = Zt[t], Y[t]
                a = log(eta) + log_w0 + eta * Rreg
                e = exp(a - max_red(a, axis=-1, keepdims=True))
                p = e / add_red(e, axis=-1, keepdims=True)
                yhat = add_red(p * zb, axis=-1)
                out[t] = yhat
                g = _loss_gradient(yhat, y)
                r = g[:, None] * yhat[:, None] - g[:, None] * zb
                r2 = r * r
                Bmax = np.maximum(Bmax, np.abs(r))
                B2 = np.exp2(np.ceil(np.log2(Bmax)))
                V += r2
                eta = np.minimum(1.0 / B2, np.sqrt(log_inv_w0 / V))
                Rreg += 0.5 * (r - eta * r2 + B2 * (eta * r > 0.5))
        self.eta_, self.Bmax_ = eta, Bmax
        self.n_steps_ += T
        return out

    def _run_single(self, Z, ys):
        """v120, one stream, 1-D state, scalar yhat_t (the same operations, the same numbers)."""
        T = len(ys)
        out = np.empty(T)
        Rreg, eta, V, Bmax = self.Rreg_[0], self.eta_[0], self.V_[0], self.Bmax_[0]   # Rreg, V: views
        log_w0, log_inv_w0 = self._log_w0, self._log_inv_w0
        add_red, max_red, exp, log = np.add.reduce, np.maximum.reduce, np.exp, np.log
        maximum, minimum, absolute, exp2, ceil, log2, sqrt = np.maximum, np.minimum, np.abs, np.exp2, np.ceil, np.log2, np.sqrt
        with np.errstate(divide="ignore"):
            for t in range(T):
                z = Z[t]
                a = log(eta) + log_w0 + eta * Rreg
                e = exp(a - max_red(a))
                yhat = add_red(e / add_red(e) * z)
                out[t] = yhat
                g = 2.0 * (yhat - ys[t])
                r = g * yhat - g * z
                r2 = r * r
                Bmax = maximum(Bmax, absolute(r))
                B2 = exp2(ceil(log2(Bmax)))
                V += r2
                eta = minimum(1.0 / B2, sqrt(log_inv_w0 / V))
                Rreg += 0.5 * (r - eta * r2 + B2 * (eta * r > 0.5))
        self.eta_, self.Bmax_ = eta[None, :], Bmax[None, :]
        self.n_steps_ += T
        return out

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

    def _params_repr(self):
        return f"version={self.version!r}, bounds={self.bounds!r}"
