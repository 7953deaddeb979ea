"""Meta-learners that aggregate N expert forecasts (seed paper 000, section 3 and section 4).

Every class here combines the expert predictions ``z_t = (z_{t,1}, ..., z_{t,N})`` of one
time step into one forecast of the label ``y_t``:

======================  ==========================================================  =========
class                   rule                                                        source
======================  ==========================================================  =========
:class:`VAWMeta`        Vovk-Azoury-Warmuth forecaster on ``z_t`` (-> "VAW2")       P000 eqs. (9)-(10), (22)-(23), (28)
:class:`EWA`            exponentially weighted average of truncated forecasts       P000 eqs. (28)-(30); opera ``ewa`` / ``ewaCalib`` (ref. A.2)
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

import numpy as np

from ._validation import check_label, check_magnitude, check_positive, check_scalar

__all__ = [
    "VAWMeta",
    "EWA",
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

    def __init__(self, bounds=None, n_experts=None):
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
        out = np.empty((T, R))
        for t in range(T):
            out[t] = self._step(Zt[t], Y[t])
        self.expert_predictions_ = Zb[:, -1, :].copy() if batched else Zb[0, -1, :].copy()
        return np.ascontiguousarray(out.T) if batched else out[:, 0].copy()

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

    def __init__(self, lam: float = 1.0, bounds=None, ridge: bool = False, n_experts=None,
                 shrink_to: str = "zero"):
        super().__init__(bounds=bounds, n_experts=n_experts)
        self.lam = lam
        self.ridge = ridge
        if shrink_to not in ("zero", "uniform"):
            raise ValueError(f"shrink_to must be 'zero' or 'uniform', got {shrink_to!r}")
        self.shrink_to = shrink_to
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
# EWA: paper eq. (29) and opera's ewa / ewaCalib
# ---------------------------------------------------------------------------------------
class EWA(_MetaLearner):
    """Exponentially weighted average forecaster (P000 eq. (29), bound (30); ref. A.2).

    ``calibrated=False, gradient=False`` (default) -- P000 eq. (29) on the truncated
    forecasts zbar_t (eq. (28)):

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

    ``calibrated=True`` -- opera's default ``mixture(model = "EWA")``, i.e. ``ewaCalib``
    with ``grid.eta = NULL``, gamma = 2, gradient trick (ref. A.2, opera >= 1.2.0): a grid of
    fixed-eta members, each linearising at its own prediction; at t = 1 the grid {1} is
    replaced by eta0 = 1 / mean_k |ln w0_k + r_{1,k}| (w0_k = 1/N, the ln term included as
    in opera); the mixture follows the member of least cumulative true square loss (ties
    -> smallest eta); when it is the largest (smallest) eta of the grid, eta*2, 4, 8
    (eta/2, 4, 8) are added, each run from scratch on all data seen so far.  Here every
    grid value is eta0 * 2^k (k integer) and each member's state is a function of
    (eta0, k, data) only, so members of a global exponent range are kept running and a
    member joins a repetition's grid with exactly the state a re-run from scratch gives;
    R repetitions share that range (each repetition has its own eta0 and its own active
    [k_lo, k_hi]).  When the plain average is the best forecaster, the smallest etas all
    give weights exactly 1/N and tie exactly, opera's ``order()`` picks the smallest, and
    the grid grows by 3 members at *every* step (opera then re-runs 3 members from scratch
    per step, O(T^2)); such members are stored once, as the "uniform" member, which is
    bit-for-bit their state, so a step costs the same however long the grid is.  Quirk kept from opera: if mean |ln w0 + r_1| = 0 (only possible for
    N = 1) opera divides by zero; here eta0 = 1 then.  ``eta`` must be None.
    Attributes: ``eta_`` (the eta the next prediction uses), ``grid_eta_`` (the grid).
    """

    def __init__(self, eta=None, bounds=(0, 1), calibrated: bool = False,
                 gradient: bool = False, n_experts=None):
        super().__init__(bounds=bounds, n_experts=n_experts)
        self.eta = eta
        self.calibrated = calibrated
        self.gradient = gradient
        if not isinstance(calibrated, (bool, np.bool_)):
            raise TypeError(f"calibrated must be a bool, got {type(calibrated).__name__}")
        if not isinstance(gradient, (bool, np.bool_)):
            raise TypeError(f"gradient must be a bool, got {type(gradient).__name__}")
        if calibrated:
            if eta is not None:
                raise ValueError("eta must be None when calibrated=True (the grid is "
                                 "calibrated online, ref. A.2)")
            self._eta = None
        elif eta is None:
            if self._bounds is None:
                raise ValueError("eta must be given when bounds is None (the default "
                                 "eta = 1/(2(B-A)^2) needs bounds)")
            A, B = self._bounds
            self._eta = 1.0 / (2.0 * (B - A) ** 2)
        else:
            self._eta = check_positive(eta, "eta")

    # ---- state ------------------------------------------------------------------------
    def _init_state(self, R, N):
        if not self.calibrated:
            # gradient=False: cumulative losses L_{t,k}; gradient=True: cumulative regrets
            self.cum_ = np.zeros((R, N))
            return
        self._w0 = np.full(N, 1.0 / N)
        self.eta0_ = np.ones(R)                       # grid = eta0 * 2^k ; {1} before t=1
        # explicit members k_lo..k_hi (global over repetitions): regret (no ln w0 term) and
        # cumulative true square loss
        self._k_lo, self._k_hi = 0, 0
        self._Rg = np.zeros((R, 1, N))
        self._CL = np.zeros((R, 1))
        # "uniform" member (weights exactly 1/N at every step) and, per repetition, the
        # largest exponent whose member has had exactly uniform weights at every step so far
        self._RU = np.zeros((R, N))
        self._CLU = np.zeros(R)
        self._sat = np.full(R, _K_INF, dtype=np.int64)
        self._lo = np.zeros(R, dtype=np.int64)        # active grid of each repetition
        self._hi = np.zeros(R, dtype=np.int64)
        self._best = np.zeros(R, dtype=np.int64)      # exponent k of the member in use
        self._hist_z, self._hist_y = [], []

    # ---- calibrated helpers -----------------------------------------------------------
    # Members with k < k_lo are not stored: a repetition only ever holds such a member in its
    # grid when k <= sat (its weights were exactly (1/N, ..., 1/N) at every past step), and
    # then its state *is* the uniform member's state (RU, CLU) bit for bit, which is what a
    # re-run from scratch gives.  When such a member stops being saturated it is made
    # explicit by a re-run (rare: the spread of RU has to double).  This keeps the cost of
    # opera's grid, which grows by 3 members at every step when the smallest etas tie
    # exactly (all of them predicting the plain average), independent of the grid's length.
    def _member_etas(self, k_lo, k_hi):
        ks = np.arange(k_lo, k_hi + 1)
        return self.eta0_[:, None] * np.exp2(ks)[None, :]          # (R, G)

    @staticmethod
    def _member_step(Rg, CL, etas, zb, y):
        """One step of fixed-eta gradient-trick EWA for every member (R, G, N)."""
        W = _softmax(etas[:, :, None] * Rg)                        # p of each member
        pred = np.sum(W * zb[:, None, :], axis=-1)                 # (R, G)
        err = pred - y[:, None]
        CL += err * err
        Rg += 2.0 * err[:, :, None] * (pred[:, :, None] - zb[:, None, :])
        return pred

    def _saturation_exponent(self):
        """Per repetition, the largest k with exp(eta0 2^k RU_k - max) == 1 for every k."""
        a = self.eta0_[:, None] * self._RU
        xmin = np.min(a - np.max(a, axis=-1, keepdims=True), axis=-1)     # <= 0
        out = np.full(xmin.shape, _K_INF, dtype=np.int64)
        nz = xmin < 0
        if np.any(nz):
            xm = xmin[nz]
            k = np.floor(np.log2(2.0 ** -54 / -xm)).astype(np.int64)
            for _ in range(4):   # exact adjustment: exp(x 2^k) == 1 and exp(x 2^(k+1)) != 1
                up = np.exp(np.ldexp(xm, k + 1)) == 1.0
                k = np.where(up, k + 1, k)
                down = np.exp(np.ldexp(xm, k)) != 1.0
                k = np.where(down, k - 1, k)
            out[nz] = k
        return out

    def _extend_global(self, k_lo_new, k_hi_new):
        """Add explicit members, each re-run from scratch on the stored history."""
        R, N = self._R, self.n_experts_

        def rerun(lo, hi):
            """States (Rg, CL) of members k = lo..hi replayed on the stored history."""
            Rg, CL = np.zeros((R, max(hi - lo + 1, 0), N)), np.zeros((R, max(hi - lo + 1, 0)))
            if hi >= lo:
                etas = self._member_etas(lo, hi)
                for zs, ys in zip(self._hist_z, self._hist_y):
                    self._member_step(Rg, CL, etas, zs, ys)
            return Rg, CL

        (R_lo, C_lo), (R_hi, C_hi) = rerun(k_lo_new, self._k_lo - 1), rerun(self._k_hi + 1, k_hi_new)
        self._Rg = np.concatenate([R_lo, self._Rg, R_hi], axis=1)
        self._CL = np.concatenate([C_lo, self._CL, C_hi], axis=1)
        self._k_lo, self._k_hi = min(self._k_lo, k_lo_new), max(self._k_hi, k_hi_new)

    def _state_of_best(self):
        virtual = self._best < self._k_lo
        g = np.clip(self._best - self._k_lo, 0, self._k_hi - self._k_lo)
        Rb = np.take_along_axis(self._Rg, g[:, None, None], axis=1)[:, 0, :]
        return np.where(virtual[:, None], self._RU, Rb)

    def _calibrated_weights(self):
        eta = self.eta0_ * np.exp2(self._best.astype(np.float64))
        return _softmax(eta[:, None] * self._state_of_best())

    def _calibrated_update(self, zb, y):
        # (a) saturation of the stored-as-uniform members at this step (state before update)
        self._sat = np.minimum(self._sat, self._saturation_exponent())
        # (b) members of a grid below k_lo that stop being saturated become explicit
        has_virtual = self._lo < self._k_lo
        if np.any(has_virtual):
            top_virtual = np.minimum(self._hi, self._k_lo - 1)
            need = has_virtual & (top_virtual > self._sat)
            if np.any(need):
                k_new = int(np.min(np.maximum(self._lo, self._sat + 1)[need]))
                self._extend_global(k_new, self._k_hi)
        # (c) one step of every explicit member and of the uniform member
        self._hist_z.append(zb.copy())
        self._hist_y.append(y.copy())
        etas = self._member_etas(self._k_lo, self._k_hi)
        self._member_step(self._Rg, self._CL, etas, zb, y)
        RU, CLU = self._RU[:, None, :], self._CLU[:, None]
        self._member_step(RU, CLU, np.zeros((self._R, 1)), zb, y)
        if self.n_steps_ == 0:
            # t = 1: grid.eta <- 1 / mean|R.w0|, R.w0 = ln w0 + r_1 (ref. A.2 step 4);
            # only member k = 0 exists and its regret row is r_1.
            m = np.mean(np.abs(np.log(self._w0)[None, :] + self._Rg[:, 0, :]), axis=-1)
            safe = np.where(m > 0, m, 1.0)
            self.eta0_ = np.where(m > 0, 1.0 / safe, 1.0)
        # (d) best member of each repetition's grid (ties -> smallest eta, as opera's order())
        ks = np.arange(self._k_lo, self._k_hi + 1)
        active = (ks[None, :] >= self._lo[:, None]) & (ks[None, :] <= self._hi[:, None])
        CLm = np.where(active, self._CL, np.inf)
        g = np.argmin(CLm, axis=1)
        best_explicit = ks[g]
        min_explicit = CLm[np.arange(self._R), g]
        has_virtual = self._lo < self._k_lo
        self._best = np.where(has_virtual & (self._CLU <= min_explicit), self._lo, best_explicit)
        # (e) grid extension at the extremities (opera: +3 members, factors gamma^1..3)
        up = self._best == self._hi
        down = self._best == self._lo
        new_hi = np.where(up, self._hi + 3, self._hi)
        new_lo = np.where(down, self._lo - 3, self._lo)
        if new_hi.max() > self._k_hi:
            self._extend_global(self._k_lo, int(new_hi.max()))
        # new members below k_lo that were not saturated at every step need explicit states
        need_lo = np.maximum(new_lo, self._sat + 1)
        below = need_lo < self._k_lo
        if np.any(below):
            self._extend_global(int(np.min(need_lo[below])), self._k_hi)
        self._hi, self._lo = new_hi, new_lo

    # ---- rule -------------------------------------------------------------------------
    def _weights(self):
        if self.calibrated:
            return self._calibrated_weights()
        if self.gradient:
            return _softmax(self._eta * self.cum_)     # p ∝ exp(eta R_{t-1})
        return _softmax(-self._eta * self.cum_)        # eq. (29): alpha ∝ exp(-eta L_{t-1})

    def _update(self, zb, y, yhat, p):
        if self.calibrated:
            self._calibrated_update(zb, y)
        elif self.gradient:
            self.cum_ += 2.0 * (yhat - y)[:, None] * (yhat[:, None] - zb)    # r_t (ref. A.1)
        else:
            d = zb - y[:, None]
            self.cum_ += d * d                                               # (zbar - y)^2

    @property
    def eta_(self):
        """Learning rate the next prediction uses ((R,) array for batched runs)."""
        if self._R is None:
            return None
        if not self.calibrated:
            return self._eta
        eta = self.eta0_ * np.exp2(self._best.astype(np.float64))
        return eta.copy() if self._batched else float(eta[0])

    @property
    def grid_eta_(self):
        """The calibrated grid of each repetition (list of arrays), None if not calibrated."""
        if self._R is None or not self.calibrated:
            return None
        grids = [self.eta0_[r] * np.exp2(np.arange(self._lo[r], self._hi[r] + 1))
                 for r in range(self._R)]
        return grids if self._batched else grids[0]

    def _params_repr(self):
        return (f"eta={self.eta!r}, bounds={self.bounds!r}, calibrated={self.calibrated!r}, "
                f"gradient={self.gradient!r}")


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
    """

    def __init__(self, bounds=(0, 1), eta=None, n_experts=None):
        super().__init__(bounds=bounds, n_experts=n_experts)
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
def _regret(zb, y, yhat):
    """r_{t,k} = lpred - lexp = 2(yhat-y) yhat - 2(yhat-y) z_k (opera, loss.gradient=TRUE)."""
    g = 2.0 * (yhat - y)
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
    """

    def __init__(self, bounds=(0, 1), n_experts=None):
        super().__init__(bounds=bounds, n_experts=n_experts)

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
    ln w0 is wiped out at t = 1 by the ratio e^{-700}.  opera 1.2.0 computes exp(R) with
    ``truncate1`` (clipped to [e^-700, e^700]) instead of subtracting max R; the two agree
    unless all R_k < -700.  Needs N >= 2 (ln N = 0 makes opera's eta zero and its weights NaN).
    """

    _min_experts = 2

    def __init__(self, bounds=(0, 1), n_experts=None):
        super().__init__(bounds=bounds, n_experts=n_experts)

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
    """

    _VERSIONS = ("v120", "v122")

    def __init__(self, version: str = "v120", bounds=(0, 1), n_experts=None):
        if version not in self._VERSIONS:
            raise ValueError(f"version must be one of {self._VERSIONS}, got {version!r}")
        self.version = version
        self._min_experts = 2 if version == "v120" else 1
        super().__init__(bounds=bounds, n_experts=n_experts)

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
