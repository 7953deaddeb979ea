"""Shared pieces of the meta-learners: argument checks, truncation (P000 eq. (28)), the
stable softmax / log-sum-exp, and :class:`_MetaLearner` (validation, lazy state, the
predict/learn/run loop of the package's rules), a :class:`omkl_core.base.MetaLearner` (the public
protocol every meta-learner implements).  See the package docstring for the common interface."""
from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from ..base import MetaLearner
from ..compiled import use_numba
from ..validation import (
    MAX_MAGNITUDE,
    Checked,
    Integer,
    Interval,
    Optional,
    check_label,
    check_magnitude,
    check_matrix,
    check_scalar,
    check_vector,
    describe_labels,
)

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
    if np.iscomplexobj(a):              # np.asarray would drop the imaginary part with a ComplexWarning
        raise TypeError(f"{name} must be real, got complex values")
    try:
        return np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a numeric array: {exc}") from None


def _own(a, dtype=np.float64):
    """``a`` as a C-contiguous, writable array of ``dtype`` (no copy when it already is one): the
    form in which the compiled loops (``_kernels``) update a learner's state in place."""
    if a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable:
        return a
    return np.array(a, dtype=dtype, order="C")


def _softmax(a):
    """exp(a) normalised over the last axis, computed stably (max subtracted)."""
    m = np.max(a, axis=-1, keepdims=True)
    e = np.exp(a - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def _logsumexp(a):
    m = np.max(a, axis=-1)
    return m + np.log(np.sum(np.exp(a - m[..., None]), axis=-1))


def _loss_gradient(yhat, y):
    """d/dyhat (yhat - y)^2 = 2 (yhat - y): the slope of opera's linearised square loss (ref. A.1).
    The one place of the factor 2 in the NumPy rules (the compiled kernels of ``_kernels`` carry
    their own copy, tested equal)."""
    return 2.0 * (yhat - y)


def _regret(zb, y, yhat):
    """r_{t,k} = lpred - lexp = 2(yhat-y) yhat - 2(yhat-y) z_k (opera, loss.gradient=TRUE, ref. A.1)."""
    g = _loss_gradient(yhat, y)
    return g[:, None] * yhat[:, None] - g[:, None] * zb


def _stated_inputs(Z, y, predictions):
    """(Z (T, N), y (T,), predictions (T,)) as float arrays, checked, for a rule's ``stated_bounds``."""
    Z = check_matrix(Z, "Z")
    return Z, check_vector(y, "y", length=Z.shape[0]), check_vector(predictions, "predictions", length=Z.shape[0])


# ---------------------------------------------------------------------------------------
# base class
# ---------------------------------------------------------------------------------------
class _MetaLearner(MetaLearner):
    """Shared bookkeeping of the package's rules: validation, lazy state creation, the
    predict/learn/run loop (the protocol and the bound declaration: :class:`omkl_core.base.MetaLearner`).

    Subclasses implement the rule once, in NumPy, on arrays with a leading batch axis of
    length R (no loop over experts or repetitions):
      ``_init_state(R, N)``, ``_weights() -> (R, N)``, ``_update(zb, y, yhat, p)``;
    and optionally ``_aggregate(zb, p) -> (R,)`` (default: ``sum_k p_k zb_k``).
    ``predict_one``/``learn_one`` and ``run`` (on the ``"numpy"`` engine) all go through
    ``_step``.  A rule with a compiled kernel of the same loop (``_kernels.<rule>_stream``)
    names it in ``_run_compiled(Zt, Y, out)``, which ``run`` calls on the ``"numba"`` engine
    (:func:`omkl_core.compiled.use_numba`); the tests compare the two engines.
    """

    _run_compiled = None   # (Zt, Y, out) -> None: the rule's compiled kernel, or None

    # ``convex_weights`` (True when the forecast is the convex combination yhat_t = <p_t, zbar_t> with
    # weights p_t = ``weights_`` fixed before z_t is seen: EWA, CalibratedEWA, ML-Poly, ML-Prod, BOA;
    # then an abstaining expert can sleep, :class:`omkl_core.Mixture`, "Abstention"; tested per rule),
    # ``min_experts``, ``regret_bound`` / ``stated_bounds`` / ``no_bound_reason`` (the bound each rule
    # declares beside its update, issue 41): :class:`omkl_core.base.MetaLearner`'s protocol.
    _parameter_constraints = {
        "n_experts": Optional(Integer(1)),
        "bounds": Optional(Interval()),
    }

    def __init__(self, n_experts=None, *, bounds=None):
        self.bounds = bounds
        self.n_experts = n_experts
        super().__init__()

    def _validate_joint(self):
        _check_n_experts(self.n_experts, self.min_experts)

    def _reset(self):
        self._bounds = _check_bounds(self.bounds)
        # (A, B, clip) of the truncation (28) as the compiled step kernels take it
        self._trunc = (0.0, 0.0, False) if self._bounds is None else (*self._bounds, True)
        self._n_fixed = None if self.n_experts is None else int(self.n_experts)
        self._R = None          # batch size of the current state (None: no state yet)
        self._batched = False   # state created by a batched run (R, T, N)
        self.n_experts_ = None
        self.expert_predictions_ = None
        self._forecast = None   # (t_, z, truncated z, the rule's intermediate, forecast) of predict_one

    # ---- state ------------------------------------------------------------------------
    def _ensure_state(self, R, N, batched):
        if self._R is None:
            if self._n_fixed is not None and N != self._n_fixed:
                raise ValueError(f"z has {N} expert predictions but n_experts={self._n_fixed}")
            if N < self.min_experts:
                raise ValueError(f"{type(self).__name__} needs at least {self.min_experts} "
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
        if not np.abs(v).max() <= MAX_MAGNITUDE:    # one scan; NaN, inf or too large: name the first
            if not np.all(np.isfinite(v)):
                i = int(np.flatnonzero(~np.isfinite(v))[0])
                raise ValueError(f"z contains NaN or inf (first at index {i})")
            check_magnitude(v, "z")
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
        if isinstance(y, float) and A <= y <= B:
            return                                            # one label, inside
        ya = np.asarray(y, dtype=np.float64)
        if ya.size and (ya.min() < A or ya.max() > B):
            self._range_warned = True
            what = describe_labels(ya, self.t_)
            warnings.warn(f"{type(self).__name__}: {what} {'lies' if ya.size == 1 else 'lie'} outside "
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
        self.t_ += 1
        return yhat

    # ---- the compiled step -------------------------------------------------------------
    #: True for a rule with compiled step kernels (``_step_forecast`` / ``_step_learn``, twins of its
    #: whole-stream kernel in ``_kernels``): on the ``"numba"`` engine a single stream's
    #: ``predict_one`` / ``learn_one`` run them, with ``run``'s numbers bit for bit
    _compiled_step = False

    def _step_forecast(self, v):
        """The compiled forecast of one step from the checked z_t ``v`` (N,): ``(yhat_t, zbar_t, aux)``,
        zbar_t the truncated forecasts (eq. (28)), ``aux`` what ``_step_learn`` needs besides (or
        None). The state is unchanged."""
        raise NotImplementedError

    def _step_learn(self, zb, y: float, yhat: float, aux) -> None:
        """The compiled update of one step from ``_step_forecast``'s zbar_t, yhat_t and aux, and y_t."""
        raise NotImplementedError

    # ---- public API -------------------------------------------------------------------
    def predict_one(self, z) -> float:
        """Forecast of y_t from the expert forecasts z_t (shape (N,)); state unchanged."""
        return self._forecast_of(self._check_z_one(z))

    def _forecast_computed(self, z) -> float:
        """:meth:`predict_one` for forecasts z_t a pairing computed itself (the VAW family's expert
        layer: a float64 (N,) array): not scanned (a non-finite z_t gives a non-finite forecast,
        refused as ever); the state for N created as by the first ``predict_one``."""
        self._ensure_state(1, z.shape[0], False)
        return self._forecast_of(z)

    def _forecast_of(self, v) -> float:
        """The forecast of a checked z_t ``v`` (the body of :meth:`predict_one`)."""
        vc = v.copy()                                       # the forecast's own z_t (z may change after)
        compiled = self._compiled_step and use_numba()
        if compiled:
            yhat, zb, p = self._step_forecast(vc)            # the rule's step kernel: run's arithmetic
            value = yhat
        else:
            zb = truncate(vc, self._bounds)[None, :]
            p, yhat = self._predict_step(zb)
            value = float(yhat[0])
        if not math.isfinite(value):
            raise FloatingPointError(f"{type(self).__name__} produced a non-finite forecast {value!r} at step "
                                     f"{self.t_ + 1}: its weights overflowed (z in [{v.min():.3g}, {v.max():.3g}])")
        self.expert_predictions_ = v.copy()
        # reused by learn_one on the same z (recognised by Checked, without a second scan)
        self._forecast = (self.t_, Checked(v), vc, zb, p, yhat, compiled)
        return value

    def learn_one(self, z, y) -> None:
        """Observe y_t after the forecasts z_t (shape (N,)) and update the state."""
        f = self._forecast
        if f is not None and f[0] == self.t_ and f[1].matches(z):   # the z_t predict_one checked
            self._learn_forecast(check_label(y, "y"))       # the forecast's work, not computed again
            return
        v = self._check_z_one(z)
        yv = check_label(y, "y")
        if f is not None and f[0] == self.t_ and np.array_equal(f[2], v):
            self._learn_forecast(yv)
            return
        self._warn_out_of_range(v, yv)
        self._forecast = None
        if self._compiled_step and use_numba():
            yhat, zb, aux = self._step_forecast(v)
            self._step_learn(zb, yv, yhat, aux)
            self.t_ += 1
        else:
            self._step(truncate(v, self._bounds)[None, :], np.array([yv]))
        self.expert_predictions_ = v.copy()

    def _learn_checked(self, z, yv: float) -> None:
        """:meth:`learn_one` for a label ``yv`` already checked (``check_label``), for a pairing that
        checked y_t itself (the VAW family): the forecast's update when z is the z_t of the last
        ``predict_one``, else ``learn_one``."""
        f = self._forecast
        if f is not None and f[0] == self.t_ and f[1].matches(z):
            self._learn_forecast(yv)
        else:
            self.learn_one(z, yv)

    def _learn_forecast(self, yv: float) -> None:
        """The update of :meth:`learn_one` from the forecast of the last ``predict_one`` (same step,
        same z); ``yv`` a checked label."""
        _, _, v, zb, p, yhat, compiled = self._forecast
        self._forecast = None
        self._warn_out_of_range(v, yv)
        if compiled:                                        # the rule's step kernel
            self._step_learn(zb, yv, yhat, p)
        else:
            self._update(zb, np.array([yv]), yhat, p)
        self.t_ += 1
        self.expert_predictions_ = v

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

        Returns the predictions (T, R): the loop of ``_step`` (the NumPy rule, the same code as
        ``predict_one``/``learn_one``), or, on the ``"numba"`` engine, the rule's compiled
        kernel (``_run_compiled``) when it has one.
        """
        T, R = Y.shape
        out = np.empty((T, R))
        if self._run_compiled is not None and use_numba():
            self._run_compiled(Zt, Y, out)
            self.t_ += T
            return out
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
