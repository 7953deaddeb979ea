"""River adapters: any online learner of :mod:`omkl_core` as a ``river.base.MiniBatchRegressor``
(:func:`to_river`), and a River regressor as an omkl online learner (:func:`from_river`).

>>> import omkl_core as ok
>>> from omkl_core.interop import to_river
>>> from river import evaluate, metrics, stream
>>> X, y = ok.datasets.ar4(T=200, seed=0)
>>> model = to_river(ok.OnlineRidge(a=1.0))
>>> evaluate.progressive_val_score(stream.iter_array(X, y), model, metrics.MSE())  # doctest: +ELLIPSIS
MSE: ...

Feature rules (River passes each sample as a dict ``{name: value}``; omkl's learners take a
1-D float array of a fixed dimension d):

1. **Order.** The feature order (and so d) is fixed once: by ``features=`` (a sequence of
   names, in the order given) or else by the *sorted* keys of the first sample the adapter
   sees, through ``predict_one`` or ``learn_one`` (or the columns of the first
   ``learn_many`` / ``predict_many`` frame, sorted).  The order in which a dict lists its
   keys never matters.
2. **Missing key.** A known feature absent from a sample counts as ``0.0``.
3. **New key.** A key first seen after the order is fixed is ignored; the adapter warns once
   per such key (``UserWarning`` naming it).  Pass ``features=`` to declare every feature up
   front.
4. Values must be real numbers (``float(value)``); NaN/inf are refused by the learner with a
   ``ValueError`` naming ``x``.

The wrapped ``model`` is kept untouched, as the template: the adapter learns on a deep copy
of it, and ``clone()`` starts again from that template.  ``learn_many`` runs the learner's
vectorised whole-stream driver ``run(X, y)`` where it has one (same numbers as the
``learn_one`` loop, to rounding, continuing from the current state); ``predict_many``
predicts every row with the current state (no learning).

The other direction (issue 24): :func:`from_river` wraps a River regressor as an omkl online
learner on array rows (:class:`RiverLearner`: row x_t becomes ``{"x0": x_t[0], ...}``, or the
names given in ``features=``), e.g. as an expert of :class:`omkl_core.Mixture`; it abstains
(``None``) until its model has learned a label.

Abstention has the one meaning of :mod:`omkl_core.protocol` ("Abstention"): where a number is
needed for a step at which a learner abstains, it is the running mean of the labels seen before
that step (0.0 before any).  :func:`to_river` returns it to River when the wrapped learner
abstains (e.g. ``to_river(from_river(model))`` at its first step; River's ``predict_one`` must
return a number), ``run_online(from_river(model), X, y)`` scores it, and :func:`evaluate_river`
scores it.

Reference rows (issue 16): :data:`RIVER_BASELINES` names River's own online regressors that
the cross-paper notebooks put beside omkl's learners, :func:`river_baseline` builds one, and
:func:`evaluate_river` runs it under the project's protocol (predict then learn over the whole
stream, MSE of every step; a step at which :func:`from_river` abstains -- the first step, and
wherever River returns ``None`` -- is scored by the fallback of :mod:`omkl_core.protocol`: 0.0 at
the first step, as omkl's learners forecast at t = 1, the running mean of the past labels later). ``evaluate_river`` is a plain
module-level function, so a process pool can run the cells side by side.
"""
from __future__ import annotations

import copy
import inspect
import math
import time
import warnings

import numpy as np
import pandas as pd
from river import base

from ..base import Wrapper, check_online_learner, fresh
from ..protocol import abstention_fallback, fill_abstentions, predict_learn
from ..ridge import OnlineRidge
from ..validation import Check, Optional, check_int, check_label, check_matrix, check_point, check_vector

__all__ = ["RiverRegressor", "to_river", "RiverLearner", "from_river", "RIVER_BASELINES", "river_baseline",
           "river_forecasts", "evaluate_river"]


def _learner_repr(model) -> str:
    """``ClassName(p=v, ...)`` from the constructor's stored arguments (stable across copies)."""
    try:
        sig = inspect.signature(type(model).__init__)
    except (TypeError, ValueError):
        return type(model).__name__
    parts = []
    for name, p in sig.parameters.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if hasattr(model, name):
            v = getattr(model, name)
            r = repr(v)
            if " at 0x" in r:           # an object without a value repr: name its type only
                r = type(v).__name__
            parts.append(f"{name}={r}")
    return f"{type(model).__name__}({', '.join(parts)})"


class RiverRegressor(base.MiniBatchRegressor):
    """An omkl online learner as a River regressor on dict features (see the module docstring).

    Parameters
    ----------
    model : object
        An omkl online learner (``predict_one(x) -> float``, ``learn_one(x, y)``), used as the
        template: it is deep-copied, never modified.
    features : sequence of hashable or None, default=None
        The feature names in the order the learner sees them; ``None``: the sorted keys of the
        first sample.

    Attributes
    ----------
    learner_ : object
        The copy of ``model`` that learns.
    features_ : tuple or None
        The feature order in use (None before the first sample when ``features=None``).

    Where the learner abstains (``None``), ``predict_one`` returns the fallback of
    :mod:`omkl_core.protocol`: the mean of the labels learned so far (0.0 before any).
    """

    def __init__(self, model, features=None):
        check_online_learner(model, "model", kind=None)      # the one check of what a wrapper holds
        if isinstance(features, (str, bytes)):
            raise TypeError("features must be a sequence of feature names or None, not a string")
        self.model = model
        self.features = features
        self.learner_ = copy.deepcopy(model)
        self.features_ = None
        self._index: dict = {}
        self._warned: set = set()
        self._label_sum, self._n_labels = 0.0, 0     # for the abstention fallback
        if features is not None:
            self._fix_order(list(features))

    # ---- River conventions ------------------------------------------------------------
    @classmethod
    def _unit_test_params(cls):
        yield {"model": OnlineRidge(a=1.0)}

    @property
    def _is_stochastic(self):
        return False   # omkl learners take an explicit seed inside ``model``; none is drawn here

    def __repr__(self) -> str:
        feats = "" if self.features is None else f", features={tuple(self.features)!r}"
        return f"to_river({_learner_repr(self.model)}{feats})"

    # ---- feature order ------------------------------------------------------------------
    def _fix_order(self, names):
        if len(set(names)) != len(names):
            raise ValueError(f"features must not repeat a name, got {names!r}")
        if not names:
            raise ValueError("features must name at least one feature")
        self.features_ = tuple(names)
        self._index = {k: i for i, k in enumerate(self.features_)}

    def _warn_new(self, keys):
        for k in keys:
            if k not in self._index and k not in self._warned:
                self._warned.add(k)
                warnings.warn(f"feature {k!r} was not in the feature order fixed at the first sample "
                              f"({len(self.features_)} features); it is ignored (pass features= to declare it)",
                              UserWarning, stacklevel=3)

    def _vector(self, x: dict) -> np.ndarray:
        if self.features_ is None:
            try:
                self._fix_order(sorted(x))
            except TypeError:
                raise TypeError("feature names must be sortable; pass features= to fix their order") from None
        v = np.zeros(len(self.features_))
        for k, val in x.items():
            i = self._index.get(k)
            if i is None:
                continue
            try:
                v[i] = float(val)
            except (TypeError, ValueError):
                raise TypeError(f"x[{k!r}] must be a real number, got {type(val).__name__}") from None
        self._warn_new(x)
        return v

    def _matrix(self, X: pd.DataFrame) -> np.ndarray:
        if not isinstance(X, pd.DataFrame):
            raise TypeError(f"X must be a pandas DataFrame, got {type(X).__name__}")
        if self.features_ is None:
            try:
                self._fix_order(sorted(X.columns))
            except TypeError:
                raise TypeError("feature names must be sortable; pass features= to fix their order") from None
        A = np.zeros((len(X), len(self.features_)))
        for k in X.columns:
            i = self._index.get(k)
            if i is not None:
                A[:, i] = X[k].to_numpy(dtype=np.float64)
        self._warn_new(X.columns)
        return A

    # ---- one sample ---------------------------------------------------------------------
    def predict_one(self, x, **kwargs) -> float:
        """Prediction for the dict ``x`` with the current state (nothing is learned); the
        abstention fallback where the learner abstains (class docstring)."""
        p = self.learner_.predict_one(self._vector(x))
        if p is None:
            return abstention_fallback(self._label_sum, self._n_labels)
        return float(p)

    def learn_one(self, x, y, **kwargs) -> None:
        """Reveal ``y`` for the dict ``x``; the learner updates."""
        y = check_label(y, "y")                # a real, finite label (None: TypeError naming y)
        self.learner_.learn_one(self._vector(x), y)
        self._label_sum += y
        self._n_labels += 1

    # ---- mini-batches -------------------------------------------------------------------
    def learn_many(self, X, y, **kwargs) -> None:
        """Predict-then-learn over the rows of ``X`` in order (the vectorised ``run`` if any)."""
        A = self._matrix(X)
        yv = np.asarray(y, dtype=np.float64).reshape(-1)
        if yv.shape[0] != A.shape[0]:
            raise ValueError(f"y has {yv.shape[0]} values but X has {A.shape[0]} rows")
        if A.shape[0] == 0:
            return
        predict_learn(self.learner_, A, yv)               # the one run-or-loop rule (omkl_core.protocol)
        for v in yv.tolist():                           # the sequential sums of learn_one
            self._label_sum += v
        self._n_labels += A.shape[0]

    def predict_many(self, X, **kwargs) -> pd.Series:
        """Predictions for every row of ``X`` with the current state (nothing is learned)."""
        A = self._matrix(X)
        fallback = abstention_fallback(self._label_sum, self._n_labels)
        out = np.array([fallback if (p := self.learner_.predict_one(A[t])) is None else p
                        for t in range(A.shape[0])], dtype=np.float64)
        return pd.Series(out, index=X.index, dtype=np.float64)


def to_river(model, *, features=None) -> RiverRegressor:
    """Wrap an omkl online learner as a River regressor (``river.base.MiniBatchRegressor``).

    Parameters
    ----------
    model : object
        Any online learner exported by :mod:`omkl_core` (``predict_one`` / ``learn_one``).
    features : sequence of hashable or None, default=None
        Fixed feature order; None: the sorted keys of the first sample.  Missing keys count as
        0.0; keys first seen later are ignored with one warning each.

    Returns
    -------
    RiverRegressor
    """
    return RiverRegressor(model, features=features)


# ------------------------------------------------------------------ River's regressors as omkl learners
def _check_river_model(model, name: str = "model") -> None:
    if not isinstance(model, base.Regressor):
        raise TypeError(f"{name} must be a River regressor (river.base.Regressor, e.g. "
                        f"river.neighbors.KNNRegressor()), got {type(model).__name__}")


def _check_features(features, name: str = "features") -> None:
    if isinstance(features, (str, bytes)) or not isinstance(features, (list, tuple)):
        raise TypeError(f"{name} must be a sequence of feature names or None, got {type(features).__name__}")
    if len(features) == 0 or len(set(features)) != len(features):
        raise ValueError(f"{name} must name at least one feature, each once, got {features!r}")


class RiverLearner(Wrapper):
    """A River regressor as an omkl online learner on array rows (:func:`from_river`).

    Row x_t (a 1-D float array of dimension d) is passed to River as the dict
    ``{features[i]: x_t[i]}`` (default names ``"x0"``, ``"x1"``, ...).

    **Abstention.** ``predict_one`` returns ``None`` (abstains) until the River model has
    learned one label, and whenever River itself returns ``None``: before its first update a
    River regressor returns ``None`` or a default such as 0.0 (``KNNRegressor``,
    ``LinearRegression``), which is not a forecast. :class:`omkl_core.Mixture` replaces an
    abstention by its documented fallback (the abstaining expert sleeps); ``run`` returns there the
    fallback f_t every learner's ``run`` returns (:mod:`omkl_core.base`, "What ``run`` returns": 0.0
    at the first step; ``may_abstain = True`` tells a mixture that it may abstain).  River targets are used as
    given: scale them as the other experts' (e.g. labels in [0, 1], P000 eq. (33)) and put
    River's ``preprocessing.StandardScaler() | model`` in front of distance-based models.

    Parameters
    ----------
    model : river.base.Regressor
        The template: the learner learns on ``model.clone()`` (River's fresh copy with the same
        parameters), so ``model`` is never modified.
    features : sequence of hashable or None, default=None
        The names of x's d entries, in order; None: ``"x0"`` ... ``"x{d-1}"``.

    Attributes
    ----------
    model_ : river.base.Regressor
        The River model that learns.
    d_ : int or None
        The input dimension (fixed by the first row).
    """

    #: it abstains until its model has learned a label (``None``; :mod:`omkl_core.base`, "What ``run`` returns")
    may_abstain = True
    _parameter_constraints = {
        "model": Check(_check_river_model, invalid=[None, 3, "knn"]),
        "features": Optional(Check(_check_features, invalid=["x0", [], ["a", "a"], 3])),
    }

    @classmethod
    def _unit_test_params(cls):
        from river import linear_model  # noqa: PLC0415

        yield {"model": linear_model.LinearRegression()}

    def __init__(self, model, *, features=None):
        self.model = model
        self.features = features
        super().__init__()

    def _wrapped(self) -> list:
        return []                # a River model: no omkl protocol to forward (it abstains: may_abstain)

    def _reset(self):
        self.model_ = fresh(self.model)                  # River's clone(): same parameters, nothing learned
        self.d_ = None
        self._names = None if self.features is None else tuple(self.features)

    def _dict(self, x) -> dict:
        x = check_point(x, self.d_, "x")
        if self.d_ is None:
            if self._names is not None and len(self._names) != x.shape[0]:
                raise ValueError(f"x has dimension {x.shape[0]} but features names {len(self._names)}")
            self.d_ = x.shape[0]
            if self._names is None:
                self._names = tuple(f"x{i}" for i in range(self.d_))
        return dict(zip(self._names, x.tolist()))

    def predict_one(self, x):
        """River's forecast for the row x (float), or None: abstains (see the class docstring)."""
        xd = self._dict(x)
        if self.t_ == 0:
            return None
        p = self.model_.predict_one(xd)
        if p is None:
            return None
        p = float(p)
        if not math.isfinite(p):
            raise FloatingPointError(f"{type(self.model_).__name__} forecast {p!r} at step {self.t_ + 1}")
        return p

    def learn_one(self, x, y) -> None:
        """River's ``learn_one`` on the row x as a dict and the label y."""
        xd = self._dict(x)
        self.model_.learn_one(xd, check_label(y, "y"))
        self.t_ += 1

    def run(self, X, y):
        """Predict-then-learn over (X, y) from the current state; where it abstained, the fallback
        f_t of :mod:`omkl_core.protocol` (the rule of every ``run``, :mod:`omkl_core.base`)."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        out = np.empty(X.shape[0])
        for t in range(X.shape[0]):
            p = self.predict_one(X[t])
            out[t] = np.nan if p is None else p
            self.learn_one(X[t], float(y[t]))
        return out


def from_river(model, *, features=None) -> RiverLearner:
    """A River regressor as an omkl online learner on array rows (:class:`RiverLearner`):
    ``predict_one(x)`` / ``learn_one(x, y)`` / ``run(X, y)`` on 1-D float arrays, River's dict
    features built as ``{"x0": x[0], ...}`` (or ``features`` names); abstains (None) until it
    has learned a label.  E.g. ``from_river(preprocessing.StandardScaler() | neighbors.KNNRegressor())``
    as an expert of :class:`omkl_core.Mixture`."""
    return RiverLearner(model, features=features)


# ------------------------------------------------------------------ River's regressors as reference rows
#: River's online regressors used as reference rows, by label -> stochastic? (a stochastic one
#: takes ``seed``; the others ignore it). River's defaults otherwise.
RIVER_BASELINES = {
    "River StandardScaler | LinearRegression": False,
    "River LinearRegression": False,
    "River BayesianLinearRegression": False,
    "River KNNRegressor(5)": True,
    "River HoeffdingAdaptiveTree": True,
    "River ARF(10)": True,
    "River AMF(10)": True,
}


def river_baseline(name: str, seed: int = 0):
    """A fresh River regressor ``name`` (a key of :data:`RIVER_BASELINES`) with ``seed``.

    ``KNNRegressor(n_neighbors=5)``'s default search engine is SWINN with ``seed=None`` (two runs
    of the default differ); here it is that default engine with only its seed set. The trees and
    forests (``HoeffdingAdaptiveTreeRegressor``, ``ARFRegressor(n_models=10)``,
    ``AMFRegressor(n_estimators=10)``) take ``seed``; the linear models are deterministic.
    """
    from river import compose, forest, linear_model, neighbors, preprocessing, tree  # noqa: PLC0415
    from river import utils as river_utils  # noqa: PLC0415

    if name not in RIVER_BASELINES:
        raise ValueError(f"name must be one of {', '.join(map(repr, RIVER_BASELINES))}; got {name!r}")
    seed = check_int(seed, "seed", minimum=0)
    if name == "River StandardScaler | LinearRegression":
        return compose.Pipeline(preprocessing.StandardScaler(), linear_model.LinearRegression())
    if name == "River LinearRegression":
        return linear_model.LinearRegression()
    if name == "River BayesianLinearRegression":
        return linear_model.BayesianLinearRegression()
    if name == "River KNNRegressor(5)":
        return neighbors.KNNRegressor(n_neighbors=5, engine=neighbors.SWINN(
            dist_func=river_utils.math._euclidean_distance, seed=seed))
    if name == "River HoeffdingAdaptiveTree":
        return tree.HoeffdingAdaptiveTreeRegressor(seed=seed)
    if name == "River ARF(10)":
        return forest.ARFRegressor(n_models=10, seed=seed)
    return forest.AMFRegressor(n_estimators=10, seed=seed)


def river_forecasts(name: str, X, y, seed: int = 0) -> dict:
    """Predict then learn River's regressor ``name`` over the stream (X, y): its forecasts, for a
    reference row and for a mixture of stored forecasts (:func:`omkl_core.mixture.aggregate`).

    At step t the model predicts ``predict_one({"x0": x_t0, ...})``, then learns
    ``learn_one(x_t, y_t)``. Returns ``predictions`` (T,) (River's forecast; at the steps at
    which :func:`from_river` abstains the fallback of :mod:`omkl_core.protocol`: 0.0 at the first
    step, the running mean of the past labels where River returns ``None``),
    ``abstained`` (T,) bool -- the steps at which :func:`from_river` abstains: the first step
    (no label learned yet) and every ``None`` -- ``n_none`` (the ``None`` count), ``seconds``
    and ``cpu_seconds`` (wall-clock and CPU time of this thread for the loop). River's warnings
    are silenced inside the loop.
    """
    X = check_matrix(X, "X")
    y = check_vector(y, "y", length=X.shape[0])
    model = river_baseline(name, seed)
    preds = np.empty(len(y))
    abstained = np.zeros(len(y), dtype=bool)
    names = [f"x{i}" for i in range(X.shape[1])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0, c0 = time.perf_counter(), time.thread_time()
        for t in range(len(y)):
            x = dict(zip(names, X[t].tolist()))
            p = model.predict_one(x)
            if p is None:
                abstained[t] = True
                p = np.nan
            preds[t] = p
            model.learn_one(x, float(y[t]))
        seconds, cpu_seconds = time.perf_counter() - t0, time.thread_time() - c0
    if not np.all(np.isfinite(preds[~abstained])):
        raise FloatingPointError(f"{name} produced a non-finite prediction at step "
                                 f"{int(np.flatnonzero(~np.isfinite(preds) & ~abstained)[0])}")
    n_none = int(abstained.sum())
    abstained[:1] = True                       # from_river: no forecast before the first label
    preds = fill_abstentions(preds, y, abstained)   # the one abstention rule (protocol)
    return {"predictions": preds, "abstained": abstained, "n_none": n_none, "seconds": float(seconds),
            "cpu_seconds": float(cpu_seconds)}


def evaluate_river(name: str, X, y, seed: int = 0) -> dict:
    """Predict then learn River's regressor ``name`` over the stream (X, y); one result row.

    At step t the model predicts ``predict_one({"x0": x_t0, ...})`` (an abstention scored by the
    fallback of :mod:`omkl_core.protocol`; the ``None`` count in ``abstained``), then learns
    ``learn_one(x_t, y_t)`` (:func:`river_forecasts`). Returns
    ``label, seed, T, mse`` (mean of the squared errors over all T steps), ``mse_after_first`` (over
    steps 2..T; NaN when T = 1), ``first_share`` (the first step's share of the summed squared error;
    :func:`omkl_core.protocol.first_step_note` says it in one line), ``seconds`` and ``cpu_seconds``
    (wall-clock and CPU time of this thread for the loop), ``abstained``.
    """
    y = check_vector(y, "y")
    r = river_forecasts(name, X, y, seed)
    losses = (r["predictions"] - y) ** 2
    total = float(np.sum(losses))
    return {"label": name, "seed": seed, "T": int(len(y)), "mse": float(np.mean(losses)),
            "mse_after_first": float(np.mean(losses[1:])) if len(y) > 1 else math.nan,
            "first_share": float(losses[0]) / total if total > 0 else 0.0,
            "seconds": r["seconds"], "cpu_seconds": r["cpu_seconds"], "abstained": r["n_none"]}
