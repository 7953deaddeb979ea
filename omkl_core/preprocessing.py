"""Online scaling as learners: a feature scaler and a target scaler.

The papers' learners assume a normalised stream: paper 000 scales the labels to [0, 1]
(eq. (33)) and the inputs to ||x_t|| <= 1 (eq. (34)), with *whole-stream* statistics
(:func:`omkl_core.datasets.normalise_stream`), and chooses its kernel bandwidths (section 4)
and its truncation bounds (eq. (28), [A, B] = [0, 1]) for that range.  On a user's raw stream
those statistics are not known in advance.  The two wrappers here supply them **online**, from
what the protocol has revealed so far and nothing later (River's ``StandardScaler``,
``TargetStandardScaler`` and ``|`` are the model):

* :class:`StandardScaler` -- a feature transformer.  Row x_t becomes
  ``(x_t - m_t) / s_t`` per column, m_t and s_t the mean and (population) standard deviation of
  x_1 .. x_t (Welford's recurrences): x_t is revealed before y_t is predicted, so using it is no
  look-ahead; a column whose rows so far are all equal maps to 0.  With ``max_norm=r`` the
  standardised row is then divided by the largest standardised row norm seen so far and
  multiplied by r, so ||x_t|| <= r at every step: the online form of eq. (34) (which divides by
  the largest row norm of the whole stream).  ``scaler | learner`` builds a :class:`Pipeline`.
* :class:`Pipeline` -- ``Pipeline(scaler, learner)``: the learner sees the scaled rows.  Its
  ``predict_one(x_t)`` and ``learn_one(x_t, y_t)`` transform x_t with the *same* statistics
  (those of x_1 .. x_t; ``learn_one`` commits x_t to them afterwards), so the learner learns on
  exactly the row it predicted on.  (River's pipeline updates its scaler *before* transforming
  in ``learn_one``, so there a learner predicts on one row and learns on another:
  :class:`omkl_core.Mixture` is written to cope with that, see its docstring.)
* :class:`TargetScaler` -- ``TargetScaler(learner)``: the learner learns the scaled label
  u_t = m + (y_t - c_t) / s_t and its forecast p_t is mapped back, yhat_t = c_{t-1} +
  s_{t-1} (p_t - m), so predictions are in the target's units.  c_t, s_t are statistics of
  y_1 .. y_t (y_t is revealed when the learner learns it; the forecast of step t uses those
  of y_1 .. y_{t-1}):

  - ``method="minmax"``: the online form of eq. (33): c_t = (lo_t + hi_t) / 2 and
    s_t = (hi_t - lo_t) / (B - A), lo_t / hi_t the smallest / largest label so far, m = (A + B) / 2,
    so every label the learner learns lies in [A, B] -- the range paper 000's truncation
    (eq. (28)) and its meta-learners' bounds (eq. (30), CBL Prop. 3.1-3.2) assume;
  - ``method="standard"``: c_t, s_t the running mean and standard deviation (River's
    ``TargetStandardScaler``), m = 0: the label is centred, so a learner without an intercept
    (``OnlineRidge(fit_intercept=False)``, paper 002 eq. (2)) does not lose to the mean;
  - ``method="auto"`` (default): ``"minmax"`` into the learner's label bounds [A, B] when it
    declares them (``bounds``: the VAW family, ``Mixture``'s meta-learner), else ``"standard"``.

  Before the first label the map is the identity (c = m, s = 1); while every label so far is
  equal, s = 0: the learner learns u = m and the forecast is that label, c (a scale of 1 would be
  one *unit of the target*, meaningless for a target of size 1e-4 or 1e6 -- issue 42).  The
  bounds [A, B] must be an interval float64 can map every accepted label range into: B - A finite
  and at least 2 MAX_MAGNITUDE / float64 max (~1.1e-208), else a ValueError naming ``bounds``.

What these wrappers change and what they do not: the wrapped learner is the paper's learner
with the paper's class defaults; the wrapper supplies the normalisation the paper assumes
(normalised labels, eq. (33); ||x|| <= 1, eq. (34)) from the past of the stream instead of the
whole stream.  The papers' regret bounds hold for the *scaled* stream only while the scale stays
fixed; the statistics settle as the stream goes on, and a label outside the range seen so far
widens the min-max range (the learner's earlier labels were on a slightly different scale).

Examples
--------
>>> import numpy as np, omkl_core as ok
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(50.0, 10.0, size=(400, 3)); y = 1000.0 + 20.0 * X[:, 0] + rng.normal(0, 5, 400)
>>> model = ok.TargetScaler(ok.StandardScaler(max_norm=1.0) | ok.VAW2(m=10))
>>> trace = ok.run_online(model, X, y)
>>> bool(trace.mse < np.mean((y - y.mean()) ** 2))      # raw units, beats the best constant
True
"""
from __future__ import annotations

import math

import numpy as np

from .base import Base, Wrapper, check_online_learner, fresh, label_bounds
from .mkl import VAW2
from .protocol import predict_learn
from .ridge import OnlineRidge
from .validation import (
    MAX_MAGNITUDE,
    Check,
    Interval,
    Optional,
    Options,
    Positive,
    check_label,
    check_matrix,
    check_point,
    check_vector,
)

__all__ = ["StandardScaler", "Pipeline", "TargetScaler", "label_bounds"]


def _check_learner(value, name: str) -> None:
    check_online_learner(value, name, hint="scale the experts' labels instead (wrap the Mixture, not its "
                                           "meta-learner)")


def _check_scaler(value, name: str) -> None:
    if not isinstance(value, StandardScaler):
        raise TypeError(f"{name} must be an omkl_core.preprocessing.StandardScaler, got {type(value).__name__}")


# ------------------------------------------------------------------------------ features
class StandardScaler(Base):
    """Online per-column standardisation of the features, no look-ahead (a transformer).

    Row x_t (1-based step t) becomes z_t = (x_t - m_t) / s_t, m_t and s_t the mean and the
    population standard deviation of x_1 .. x_t per column, by Welford's recurrences
    (n <- n + 1; delta = x - m; m <- m + delta / n; M2 <- M2 + delta (x - m); s^2 = M2 / n):
    the rows revealed when y_t is predicted.  A column with s_t = 0 maps to 0, so the first row
    is all zeros.  The same numbers as :func:`omkl_core.datasets.standardise_online` (to rounding).

    ``transform_one(x)`` uses the statistics *including* x (tentatively, nothing is stored);
    ``learn_one(x)`` commits x.  A :class:`Pipeline` transforms x_t once for the prediction and
    once for the learning step, with the same statistics, and commits x_t last.

    Parameters
    ----------
    with_std : bool, default=True
        Divide by s_t (False: centre only).
    max_norm : float or None, default=None
        r > 0: divide the standardised row by the largest standardised row norm seen so far
        (this row's included) and multiply by r, so that ||z_t|| <= r -- the online form of
        paper 000 eq. (34) (r = 1), which the paper's kernel bandwidths assume (section 4).
        None: the standardised row as it is (||z_t|| ~ sqrt(d)).

    Attributes
    ----------
    n_ : int
        Rows committed.
    mean_ : ndarray of shape (d,) or None
        m of the committed rows.
    m2_ : ndarray of shape (d,) or None
        Welford's sum of squared deviations of the committed rows (s^2 = m2_ / n_).
    max_row_norm_ : float
        Largest standardised row norm committed (``max_norm`` only; 0.0 before).

    Examples
    --------
    >>> import numpy as np, omkl_core as ok
    >>> sc = ok.StandardScaler()
    >>> for x in ([1.0, 10.0], [3.0, 10.0]):
    ...     z = sc.transform_one(np.array(x)); sc.learn_one(np.array(x))
    >>> z.tolist()                                     # row 2: mean 2, sd 1; constant column -> 0
    [1.0, 0.0]
    """

    _parameter_constraints = {
        "with_std": Check(lambda v, n: _check_bool(v, n), invalid=["yes", 1]),
        "max_norm": Optional(Positive()),
    }

    def __init__(self, *, with_std: bool = True, max_norm=None):
        self.with_std = with_std
        self.max_norm = max_norm
        self.reset()

    def reset(self):
        """Forget the statistics (the parameters are kept and re-checked); returns self."""
        self._validate_params()
        self.n_ = 0
        self.mean_ = None
        self.m2_ = None
        self.max_row_norm_ = 0.0
        return self

    def __or__(self, learner):
        """``scaler | learner`` -> :class:`Pipeline` (River's ``|``)."""
        return Pipeline(self, learner)

    def _updated(self, x):
        """(n, mean, m2) with x committed (Welford), from the committed state; nothing is stored."""
        n = self.n_ + 1
        if self.mean_ is None:
            return n, x.copy(), np.zeros_like(x)
        delta = x - self.mean_
        mean = self.mean_ + delta / n
        return n, mean, self.m2_ + delta * (x - mean)

    def _standardised(self, x, n, mean, m2):
        z = x - mean
        if self.with_std:
            sd = np.sqrt(np.maximum(m2, 0.0) / n)
            z = np.where(sd > 0, z / np.where(sd > 0, sd, 1.0), 0.0)
        return z

    def _check(self, x):
        return check_point(x, None if self.mean_ is None else self.mean_.shape[0], "x")

    def transform_one(self, x) -> np.ndarray:
        """z_t for row x_t, from the statistics of the committed rows and x_t (nothing stored)."""
        x = self._check(x)
        n, mean, m2 = self._updated(x)
        z = self._standardised(x, n, mean, m2)
        if self.max_norm is not None:
            big = max(self.max_row_norm_, float(np.sqrt(z @ z)))
            z = z * (float(self.max_norm) / big) if big > 0 else z
        return z

    def learn_one(self, x) -> None:
        """Commit row x_t to the statistics."""
        x = self._check(x)
        n, mean, m2 = self._updated(x)
        if self.max_norm is not None:
            z = self._standardised(x, n, mean, m2)
            self.max_row_norm_ = max(self.max_row_norm_, float(np.sqrt(z @ z)))
        self.n_, self.mean_, self.m2_ = n, mean, m2

    def learn_transform_one(self, x) -> np.ndarray:
        """``transform_one(x)`` then ``learn_one(x)`` (one pass)."""
        z = self.transform_one(x)
        self.learn_one(x)
        return z

    def transform_many(self, X) -> np.ndarray:
        """The rows of X transformed in turn, each committed after it is transformed (the
        transform a :class:`Pipeline`'s ``run`` feeds its learner; the state moves on)."""
        X = check_matrix(X, "X")
        if self.mean_ is not None and X.shape[1] != self.mean_.shape[0]:
            raise ValueError(f"X has {X.shape[1]} columns but the scaler has seen rows of dimension "
                             f"{self.mean_.shape[0]}")
        return np.stack([self.learn_transform_one(X[t]) for t in range(X.shape[0])]) if X.shape[0] else X.copy()


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {value!r}")


class Pipeline(Wrapper):
    """A learner on rows scaled online by a scaler (scaler | learner): each row scaled with what the rows
    before it showed, then given to the learner.

    ``Pipeline(scaler, learner)`` (also ``scaler | learner``): ``learner`` on the rows scaled
    online by ``scaler`` (:class:`StandardScaler`; module docstring).

    At step t, ``predict_one(x_t)`` gives ``learner.predict_one(z_t)`` with z_t the row scaled by
    the statistics of x_1 .. x_t; ``learn_one(x_t, y_t)`` gives ``learner.learn_one(z_t, y_t)``
    with the same z_t, then commits x_t to the scaler.  ``run(X, y)`` scales the rows in turn, then
    calls the learner's own (vectorised) ``run`` on them: the numbers of the loop.

    Parameters
    ----------
    scaler : StandardScaler
        The template of the feature scaler (cloned; never modified).
    learner : online learner
        The template of the learner (cloned; never modified): any omkl learner on features, a
        :class:`omkl_core.Mixture`, a River model through :func:`omkl_core.interop.from_river`.

    Attributes
    ----------
    scaler_ : StandardScaler
        The scaler that learns.
    learner_ : online learner
        The learner that learns.
    """

    _parameter_constraints = {
        "scaler": Check(_check_scaler, invalid=[None, "standard", 3]),
        "learner": Check(_check_learner, invalid=[None, "VAW2", 3]),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"scaler": StandardScaler(), "learner": OnlineRidge(a=1.0, fit_intercept=True)}
        yield {"scaler": StandardScaler(max_norm=1.0), "learner": VAW2(m=6, seed=3)}

    def __init__(self, scaler, learner):
        self.scaler = scaler
        self.learner = learner
        super().__init__()

    def _reset(self):
        self.scaler_ = self.scaler.clone()
        self.learner_ = fresh(self.learner)

    def __or__(self, other):
        raise TypeError("a Pipeline already ends in a learner; put scalers first: StandardScaler() | learner")

    def predict_one(self, x):
        """The learner's forecast for the scaled row (None where it abstains)."""
        return self.learner_.predict_one(self.scaler_.transform_one(x))

    def learn_one(self, x, y) -> None:
        """The learner learns (z_t, y_t), z_t scaled as for the prediction; then x_t is committed."""
        y = check_label(y, "y")
        z = self.scaler_.transform_one(x)
        self.learner_.learn_one(z, y)
        self.scaler_.learn_one(x)
        self.t_ += 1

    def run(self, X, y):
        """Predict-then-learn over (X, y) from the current state: the rows scaled in turn, then the
        learner's ``run`` on them."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        Z = self.scaler_.transform_many(X)
        preds = predict_learn(self.learner_, Z, y, step0=self.t_)[0]
        self.t_ += X.shape[0]
        return preds


# ------------------------------------------------------------------------------ target
class TargetScaler(Wrapper):
    """A learner that learns the label scaled online and forecasts in the target's units (its forecasts
    mapped back).

    ``TargetScaler(learner)``: ``learner`` learns the label scaled online; its forecasts are
    mapped back to the target's units (module docstring).

    The learner learns u_t = m + (y_t - c_t) / s_t, (c_t, s_t) statistics of y_1 .. y_t (y_t is
    revealed when it is learned); the forecast of step t is yhat_t = c_{t-1} + s_{t-1} (p_t - m),
    p_t the learner's forecast, from the labels before y_t: no look-ahead.  ``"minmax"`` is the
    online form of paper 000 eq. (33) into the learner's label bounds [A, B] (every label it
    learns lies in [A, B], as eq. (28) and the meta-learners' bounds assume); ``"standard"``
    centres and standardises (River's ``TargetStandardScaler``).

    Parameters
    ----------
    learner : online learner
        The template (cloned; never modified): any online learner on features, a
        :class:`Pipeline`, a :class:`omkl_core.Mixture`, a River model through
        :func:`omkl_core.interop.from_river`.
    method : {"auto", "minmax", "standard"}, default="auto"
        ``"auto"``: ``"minmax"`` into the learner's label bounds when it declares them
        (:func:`label_bounds`), else ``"standard"``.
    bounds : (float, float) or None, default=None
        [A, B] of ``"minmax"``; None: the learner's label bounds, (0, 1) when it declares none.

    Attributes
    ----------
    learner_ : online learner
        The learner that learns (on the scaled labels).
    method_ : str
        The method in use (``"minmax"`` or ``"standard"``).
    n_ : int
        Labels learned.
    center_, scale_ : float
        c_t and s_t after the labels learned (the next forecast's map).
    """

    _parameter_constraints = {
        "learner": Check(_check_learner, invalid=[None, "VAW2", 3]),
        "method": Options("auto", "minmax", "standard"),
        "bounds": Optional(Check(lambda v, n: _check_interval(v, n), invalid=[(1.0, 0.0), "ab"])),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"learner": OnlineRidge(a=1.0)}
        yield {"learner": Pipeline(StandardScaler(max_norm=1.0), VAW2(m=6, seed=3))}
        yield {"learner": OnlineRidge(a=1.0), "method": "minmax", "bounds": (-1.0, 1.0)}

    def __init__(self, learner, *, method: str = "auto", bounds=None):
        self.learner = learner
        self.method = method
        self.bounds = bounds
        super().__init__()

    #: labels in the target's units: no range assumed (``may_abstain`` and ``run_alignment``: the
    #: learner's, forwarded by :class:`~omkl_core.base.Wrapper`)
    label_range = None

    def _reset(self):
        self.learner_ = fresh(self.learner)
        inner = label_bounds(self.learner)
        if self.method == "auto":
            self.method_ = "minmax" if (inner is not None or self.bounds is not None) else "standard"
        else:
            self.method_ = self.method
        A, B = (float(self.bounds[0]), float(self.bounds[1])) if self.bounds is not None else (inner or (0.0, 1.0))
        if self.method_ == "minmax":
            _check_mappable(A, B, "bounds" if self.bounds is not None else "the learner's label bounds")
        self._A, self._B = A, B
        self._mid = 0.5 * A + 0.5 * B if self.method_ == "minmax" else 0.0
        self.n_ = 0
        self._mean, self._m2 = 0.0, 0.0
        self._lo, self._hi = math.inf, -math.inf
        self.center_, self.scale_ = self._mid, 1.0

    # ---- the label statistics ----------------------------------------------------------
    def _stats_with(self, y):
        """(n, mean, m2, lo, hi) with label y added (nothing stored)."""
        n = self.n_ + 1
        delta = y - self._mean
        mean = self._mean + delta / n
        return n, mean, self._m2 + delta * (y - mean), min(self._lo, y), max(self._hi, y)

    def _map(self, n, mean, m2, lo, hi):
        """(c, s) of the labels summarised by the statistics; s = 0 while they are all equal (the
        forecast is then the label seen: no scale exists yet, and 1 would be a unit of the target)."""
        if self.method_ == "minmax":
            width = hi - lo
            return 0.5 * (lo + hi), (width / (self._B - self._A) if width > 0 else 0.0)
        sd = math.sqrt(max(m2, 0.0) / n)
        return mean, (sd if sd > 0 else 0.0)

    def _scaled_label(self, y):
        """(u_t, the statistics with y_t): u_t = m + (y_t - c_t) / s_t (u_t = m while every label is
        equal, s_t = 0), nothing stored."""
        stats = self._stats_with(y)
        c, s = self._map(*stats)
        u = self._mid + (y - c) / s if s > 0 else self._mid
        if self.method_ == "minmax":                 # in [A, B] exactly (rounding only)
            u = min(max(u, self._A), self._B)
        return u, (*stats, c, s)

    def _commit(self, state):
        self.n_, self._mean, self._m2, self._lo, self._hi, self.center_, self.scale_ = state

    def _unscale(self, p):
        return self.center_ + self.scale_ * (p - self._mid)

    # ---- the protocol ------------------------------------------------------------------
    def predict_one(self, x):
        """yhat_t = c_{t-1} + s_{t-1} (p_t - m) in the target's units (None where the learner abstains)."""
        p = self.learner_.predict_one(x)
        return None if p is None else float(self._unscale(float(p)))

    def learn_one(self, x, y) -> None:
        """The learner learns (x_t, u_t), u_t = m + (y_t - c_t) / s_t."""
        y = check_label(y, "y")
        x = check_point(x, name="x")
        u, state = self._scaled_label(y)
        self.learner_.learn_one(x, u)                      # may refuse x: the label is committed after
        self._commit(state)
        self.t_ += 1

    def run(self, X, y):
        """Predict-then-learn over (X, y) from the current state: the scaled labels and the maps of
        every step in turn, then the learner's ``run`` on the scaled labels, mapped back."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        T = X.shape[0]
        U, C, S = np.empty(T), np.empty(T), np.empty(T)
        for t in range(T):
            C[t], S[t] = self.center_, self.scale_        # the map of the forecast of step t
            U[t], state = self._scaled_label(float(y[t]))
            self._commit(state)
        P = predict_learn(self.learner_, X, U, step0=self.t_)[0]
        self.t_ += T
        return C + S * (P - self._mid)


def _check_interval(value, name):
    Interval()(value, name)
    _check_mappable(float(value[0]), float(value[1]), name)


#: The narrowest [A, B] the min-max map accepts: every label range float64 holds for a stream
#: (labels up to MAX_MAGNITUDE in size, so widths up to twice that) maps to a finite scale.
_MIN_WIDTH = 2.0 * MAX_MAGNITUDE / np.finfo(np.float64).max


def _check_mappable(A: float, B: float, name: str) -> None:
    """[A, B] usable by the min-max map in float64, or a ValueError naming ``name``."""
    width = B - A
    if not math.isfinite(width):
        raise ValueError(f"{name} = ({A!r}, {B!r}): its width B - A overflows float64; choose a narrower "
                         "interval such as (0, 1)")
    if width < _MIN_WIDTH:
        raise ValueError(f"{name} = ({A!r}, {B!r}): the interval is too narrow for float64 (B - A = {width:.3g} "
                         f"< {_MIN_WIDTH:.3g}: labels up to {MAX_MAGNITUDE:g} in size would map to an infinite "
                         "scale); choose a wider interval such as (0, 1)")
