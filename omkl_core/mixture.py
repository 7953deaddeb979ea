"""``Mixture``: any online learners as experts, their forecasts combined online by a meta-learner.

Paper 000 (sec. 3, eqs. (28)-(30); sec. 4) aggregates experts that happen to be random-feature
VAW learners, but the meta-learners' regret bounds hold for *any* sequence of expert
forecasts: P000 eq. (30) (EWA, CBL Prop. 3.1), the Aggregating Algorithm's ln N / eta (CBL
Prop. 3.2; ref. B), the linear VAW meta's bound (P000 eqs. (22)-(25), Theorem 2) and opera's
second-order bounds for ML-Poly / ML-Prod / BOA (ref. A.4-A.6) only ask that z_{t,j} be fixed
before y_t is revealed.  :class:`Mixture` therefore takes any online learners as experts --
omkl's learners, River's regressors through :func:`omkl_core.interop.from_river`, or any object
with ``predict_one(x)`` / ``learn_one(x, y)`` on 1-D float arrays -- and aggregates their
forecasts with one meta-learner of :mod:`omkl_core.aggregation`.

The protocol at step t (the order that makes the bounds apply):

1. every expert j forecasts z_{t,j} = f_j(x_t) from its state after steps < t;
2. the meta-learner forecasts yhat_t = meta(z_t) (e.g. <p_t, zbar_t> for EWA/ML-Poly/BOA);
3. y_t is revealed: every expert learns (x_t, y_t), then the meta-learner learns (z_t, y_t).

No expert ever depends on the meta-learner or on another expert, so the whole-stream
forecasts of an expert can be computed by that expert alone: ``run(X, y)`` asks each expert
for its column Z[:, j] = expert.run(X, y) (its own vectorised driver, predict-then-learn, so
z_{t,j} never sees y_t), then runs the meta-learner's batched ``run(Z, y)``; the numbers are
those of the ``predict_one``/``learn_one`` loop (tested; to rounding where an expert's or the
meta-learner's compiled driver differs from its NumPy step, bit for bit otherwise).

Abstention
----------
An expert may have no forecast: ``predict_one`` returns ``None`` (River's regressors before
their first update: ``from_river`` abstains until its model has learned one label; the baselines
of :mod:`omkl_core.baselines` before their first label).  ``None`` has one meaning in the package
(:mod:`omkl_core.protocol`, "Abstention"); inside a mixture an abstaining expert is a **sleeping
expert** (a *specialist*: Freund, Schapire, Singer & Warmuth 1997; the "experts that report their
confidences" of Gaillard, Stoltz & van Erven 2014, section 3, with confidence 0 -- opera's
``awake`` = 0): it is scored at that step as forecasting the mixture's own forecast,

    z_{t,j} := yhat_t = sum_{k awake} p_{t,k} zbar_{t,k} / sum_{k awake} p_{t,k}   (j asleep),

the aggregate of the awake experts under the weights p_t the rule had fixed before step t (so
yhat_t = <p_t, zbar_t> holds with the substituted z_t, and yhat_t is the forecast of the awake
experts alone).  Its square loss at that step then equals the mixture's and its instantaneous
regret r_{t,j} = 2 (yhat_t - y_t)(yhat_t - z_{t,j}) is 0: it gains no credit for the others'
forecasts (nor for the running mean's, as under the fallback of earlier versions, where an expert
that never forecasts got 97.7 % of the weight on a stream where the mean did well) and takes no
blame.  The meta-learner's bound then holds for the *sleeping regret*: against expert j on the
steps at which j forecast (Gaillard et al. 2014, section 3; the bound of the rule is unchanged,
the regrets of j's sleeping steps being 0).  This needs a rule whose forecast is a convex
combination with weights fixed before z_t (``convex_weights``: EWA, CalibratedEWA, ML-Poly,
ML-Prod, BOA, and any rule on N = 1).  When every expert sleeps (e.g. at t = 1 when all of them
abstain) the mixture itself has no forecast: the step gets the fallback f_t of
:func:`omkl_core.protocol.abstention_fallback` for every expert (all regrets 0), and the trace
scores f_t:

    f_t = (1 / (t - 1)) sum_{s<t} y_s   (the running mean of the labels seen), t > 1;
    f_1 = (A + B) / 2, the midpoint of the meta-learner's ``bounds`` (0.0 if it has none).

For the two rules whose forecast is not such a combination -- the Aggregating Algorithm (its
substitution function) and ``VAWMeta`` (z_t enters its matrix S_t) -- no forecast makes the
regret 0, and an abstaining expert's forecast is replaced by f_t (the rule of earlier versions,
the same for every abstaining expert; their bounds hold against the experts *as substituted*).
The steps at which each expert abstained are counted in ``n_abstained_`` (``summary`` reports
them); ``abstained_`` marks the last step's.  A forecast that is NaN or inf (not ``None``) is an
error (``FloatingPointError`` naming the expert), never passed on.

The default
-----------
``Mixture()`` (no arguments) is the default of the library and of ``omkl run --csv F``: its
pool :func:`default_pool` holds the running mean (:class:`omkl_core.baselines.RunningMean`) and
omkl's default learners, each in its own online scalers (features and target, no look-ahead), so
that every expert forecasts in the target's units; its meta-learner :func:`default_meta` works
in the target's units too (no truncation: a scale-free rule), and the bound it carries
(``regret_bound``, evaluated by ``summary``) bounds the mixture's regret against the running mean
and against every expert, in the target's units.  ``benchmarks/bench_river_track.py`` is the
study that chose the rule.

One forecast per expert per step
--------------------------------
``predict_one(x_t)`` asks every expert once and keeps the forecasts z_t until ``learn_one``.
``learn_one(x, y_t)`` then trains the meta-learner on **those** forecasts -- the ones behind the
prediction it emitted, as the bounds assume -- whether or not ``x`` equals the row predicted
on, and the experts learn (x, y_t).  This matters inside River's pipelines: River's
``StandardScaler | to_river(Mixture(...))`` updates the scaler between ``predict_one`` and
``learn_one``, so the row the mixture learns on is scaled by other statistics than the row it
predicted on; the experts are not asked again.  Without a pending ``predict_one`` (a
``learn_one`` alone) the experts forecast x first.  (omkl's :class:`omkl_core.preprocessing.Pipeline`
scales both calls alike.)

:func:`aggregate` gives a fresh mixture's forecasts from the experts' stored forecasts (a
leaderboard that has run each single learner once need not run them again).

Cost: ``predict_one`` asks each expert in turn (N heterogeneous objects, no common array
form; N is small).  ``run`` loops over the experts *outside* the time loop (one whole-stream
call per expert), and the meta-learner's loop is its own (compiled) driver.
"""
from __future__ import annotations

import copy
import math
import types

import numpy as np

from .aggregation import EWA, MLPoly, VAWMeta
from .base import (
    MetaLearner,
    NonFiniteRun,
    Wrapper,
    _learned_state,
    _restore_state,
    check_online_learner,
    fresh,
    input_kind_of,
)
from .baselines import RunningMean
from .mkl import VAW2
from .pairing import Pairing
from .preprocessing import StandardScaler, TargetScaler
from .protocol import abstention_fallback, abstention_fallbacks, predict_learn
from .regret import regret_report
from .ridge import OnlineRidge
from .validation import Check, Checked, check_forecast, check_label, check_point, check_vector

__all__ = ["Mixture", "aggregate", "default_pool", "default_meta", "expert_name"]


# ----------------------------------------------------------------------------- the default
def default_meta():
    """The meta-learner of ``Mixture()`` and ``omkl run --csv F``: ML-Poly on the forecasts in the
    target's units (``MLPoly(bounds=None)``: no truncation; its learning rates are scale-free, so it
    needs no label range), chosen by the study of ``benchmarks/bench_river_track.py``. Its bound:
    ``MLPoly.regret_bound`` (Gaillard, Stoltz & van Erven 2014), against every expert of the pool."""
    return MLPoly(bounds=None)


def default_pool() -> dict:
    """The experts of ``Mixture()`` and ``omkl run --csv F``, by name: the running mean (so the
    meta-learner's bound holds against it), and omkl's two default learners, each behind its own
    online scalers (:mod:`omkl_core.preprocessing`: features standardised by the rows seen, the
    label centred and scaled by the labels seen, forecasts mapped back to the target's units):

    * ``"running mean"``: :class:`omkl_core.baselines.RunningMean`;
    * ``"VAW2"``: ``TargetScaler(StandardScaler(max_norm=1.0) | VAW2(bounds=None))`` -- paper 000's
      multi-kernel learner on rows of norm <= 1 (eq. (34), online) and standardised labels
      (``bounds=None``: it assumes no label range, so ``TargetScaler`` centres and scales the labels
      instead of mapping them into [0, 1]; the study found it better on every stream, VAW2 having no
      intercept; with ``truncate=False``, VAW2's default, ``bounds`` changes nothing else);
    * ``"OnlineRidge"``: ``TargetScaler(StandardScaler() | OnlineRidge(fit_intercept=True))``.
    """
    return {"running mean": RunningMean(),
            "VAW2": TargetScaler(StandardScaler(max_norm=1.0) | VAW2(bounds=None)),
            "OnlineRidge": TargetScaler(StandardScaler() | OnlineRidge(fit_intercept=True))}


def expert_name(learner) -> str:
    """A short name of an expert: the class of the learner inside its wrappers (``TargetScaler``,
    ``Pipeline``), a River model's class for :func:`omkl_core.interop.from_river`, e.g. ``"VAW2"``,
    ``"River KNNRegressor"``, ``"RunningMean"``."""
    seen = 0
    while seen < 8:
        inner = getattr(learner, "learner", None)
        if inner is None or isinstance(inner, (list, tuple, dict)):
            break
        learner, seen = inner, seen + 1
    model = getattr(learner, "model", None)
    if model is not None and type(model).__module__.split(".")[0] == "river":
        return f"River {type(model).__name__}"
    return type(learner).__name__


def _named(learners) -> tuple[list, list[str]]:
    """(templates, names) of ``learners`` (a list: names from :func:`expert_name`, repeated names
    numbered; a dict: its keys)."""
    if learners is None:
        learners = default_pool()
    if isinstance(learners, dict):
        return list(learners.values()), [str(k) for k in learners]
    names = [expert_name(e) for e in learners]
    counts: dict = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    seen: dict = {}
    out = []
    for n in names:
        if counts[n] > 1:
            seen[n] = seen.get(n, 0) + 1
            n = f"{n} #{seen[n]}"
        out.append(n)
    return list(learners), out


# ----------------------------------------------------------------------------- checks
def _check_learners(value, name: str = "learners") -> None:
    if value is None:
        return
    if isinstance(value, dict):
        if any(not isinstance(k, str) or not k for k in value):
            raise TypeError(f"{name} as a dict maps names (non-empty strings) to learners, got keys {list(value)!r}")
        items = list(value.values())
        where = [f"{name}[{k!r}]" for k in value]
    elif isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of online learners (objects with predict_one/learn_one), a dict "
                        f"name -> learner, or None (the default pool), got {type(value).__name__}")
    else:
        items = list(value)
        where = [f"{name}[{i}]" for i in range(len(items))]
    if len(items) == 0:
        raise ValueError(f"{name} must hold at least one learner, got an empty {type(value).__name__}")
    for w, e in zip(where, items):
        check_online_learner(e, w, hint="a meta-learner goes in meta=")


def _check_meta(value, name: str = "meta") -> None:
    if value is None:
        return
    if not (callable(getattr(value, "predict_one", None)) and callable(getattr(value, "learn_one", None))
            and not isinstance(value, type)):
        raise TypeError(f"{name} must be a meta-learner (an instance of omkl_core.base.MetaLearner: a rule of "
                        f"omkl_core.aggregation or your own) or None (the default), got {type(value).__name__}")
    if input_kind_of(value) != "experts":
        raise TypeError(f"{name} must read expert forecasts (a meta-learner: input_kind 'experts'), got "
                        f"{type(value).__name__}")


def _refuses_before_learning(learner) -> bool:
    """Whether ``learner`` is one of omkl's own (``omkl_core``, not an adapter of another library's
    model), wrapping only such learners: those check their input before they change state and
    leave themselves as they were when a step fails, so the mixture snapshots them cheaply
    (:class:`_Snapshot`) instead of deep-copying them, and not the last of them to learn."""
    mod = type(learner).__module__
    if not mod.startswith("omkl_core.") or mod.startswith("omkl_core.interop"):
        return False
    inner = [getattr(learner, a) for a in ("learner_", "scaler_") if hasattr(learner, a)]
    return all(_refuses_before_learning(i) for i in [*inner, *(getattr(learner, "learners_", None) or [])])


_PARAMS: dict = {}
_KEPT = (int, float, complex, str, bytes, type(None), np.generic, np.dtype, types.ModuleType, type,
         types.FunctionType, types.BuiltinFunctionType, types.MethodType, Checked)   # a step never changes them
_KEPT_EXACT = frozenset({int, float, bool, str, type(None), np.float64, np.int64, np.bool_, Checked})  # fast path


def _params_of(obj) -> frozenset:
    """The constructor arguments of ``obj``'s class (kept by reference: a step never changes them)."""
    cls = type(obj)
    names = _PARAMS.get(cls)
    if names is None:
        f = getattr(cls, "_param_names", None)
        names = _PARAMS[cls] = frozenset(f() if callable(f) else ())
    return names


class _Snapshot:
    """The state of one of omkl's learners as a step can change it, taken cheaply so that a mixture
    can undo the step of an expert that learned before another failed (atomic steps, issue 52).

    ``copy.deepcopy`` of a learner (:func:`omkl_core.base._learned_state`) costs 30-520 us per
    expert (its memo, ``__reduce_ex__`` of every object; a scaled VAW2 copies its random features
    too): more than the step. Here each object's attribute dict is copied shallowly (what a step
    rebinds) and each writable array's values once (what a step changes in place, e.g. the
    Sherman-Morrison inverse); ``restore`` writes both back into the same objects and arrays (so
    views and shared references stay as they were). omkl's own objects are walked into (their
    constructor arguments are kept as they are), lists, dicts and tuples too; an object of any
    other kind is deep-copied."""

    __slots__ = ("objects", "arrays", "containers", "_seen")

    def __init__(self, learner):
        self.objects: list = []        # (object, its attribute dict as it was)
        self.arrays: list = []         # (array, a copy of its values)
        self.containers: list = []     # (list or dict, a shallow copy)
        self._seen: dict = {}          # id -> the value kept for it (one copy per object, cycles ended)
        self._object(learner)
        self._seen = None

    def _object(self, obj) -> None:
        params = _params_of(obj)
        saved = dict(obj.__dict__)
        value = self._value
        for k, v in obj.__dict__.items():
            if type(v) not in _KEPT_EXACT and k not in params:
                kept = value(v)
                if kept is not v:
                    saved[k] = kept
        self.objects.append((obj, saved))

    def _value(self, v):
        """``v`` as the snapshot keeps it: itself (its values recorded where a step may change them in
        place) or a deep copy (an object the walk does not know)."""
        if isinstance(v, _KEPT):
            return v
        seen = self._seen.get(id(v))
        if seen is not None:
            return seen
        self._seen[id(v)] = v
        kind = type(v)
        if kind is np.ndarray or kind.__module__.startswith("cupy"):
            if kind is not np.ndarray or v.flags.writeable:
                self.arrays.append((v, v.copy()))
            return v
        if kind is tuple:                               # e.g. a forecast cache: (t, Checked x, arrays...)
            kept, changed = [], False
            for i in v:
                if type(i) not in _KEPT_EXACT:
                    k = self._value(i)
                    changed = changed or k is not i
                    i = k
                kept.append(i)
            if changed:
                kept = self._seen[id(v)] = tuple(kept)
                return kept
            return v
        if kind is list:
            saved = [self._value(i) for i in v]
            self.containers.append((v, saved))
            return v
        if kind is dict:
            saved = {k: self._value(i) for k, i in v.items()}
            self.containers.append((v, saved))
            return v
        if kind.__module__.startswith("omkl_core.") and hasattr(v, "__dict__"):
            self._object(v)
            return v
        kept = self._seen[id(v)] = copy.deepcopy(v)
        return kept

    def restore(self) -> None:
        """Every object, container and array as it was when the snapshot was taken."""
        for a, values in self.arrays:
            a[...] = values
        for c, saved in self.containers:
            c.clear()
            (c.extend if type(c) is list else c.update)(saved)
        for obj, saved in self.objects:
            d = obj.__dict__
            d.clear()
            d.update(saved)


class _Copied:
    """The undo of an expert outside omkl's own learners: a deep copy of its learned state."""

    __slots__ = ("learner", "saved")

    def __init__(self, learner):
        self.learner, self.saved = learner, _learned_state(learner)

    def restore(self) -> None:
        _restore_state(self.learner, *self.saved)


def _named_error(exc: BaseException, label: str) -> BaseException:
    """``exc`` with ``label`` (which expert) in front of its message: the same type where it can be
    rebuilt from one message, else ``exc`` with a note."""
    msg = f"{label}: {exc}" if str(exc) else f"{label}: {type(exc).__name__}"
    try:
        named = type(exc)(msg)
    except Exception:                                 # noqa: BLE001 - a type that takes other arguments
        named = None
    if named is None or type(named) is not type(exc) or str(named) != msg:
        exc.add_note(msg)
        return exc
    return named


class _OnlyExpert(MetaLearner):
    """The meta-learner of a mixture of N = 1 expert whose meta-learner's rule needs N >= 2 (BOA
    ``"v120"``, ML-Prod: ln N = 0 gives a zero learning rate): the only expert's forecast,
    truncated to ``bounds`` (eq. (28)) -- what every convex-weight rule (EWA, the Aggregating
    Algorithm, ML-Poly, ML-Prod, BOA) gives for one expert, whose weight is 1."""

    convex_weights = True
    no_bound_reason = "the only expert's forecast (N = 1): its regret against that expert is 0"
    _parameter_constraints = {}

    def __init__(self, bounds=None):
        self.bounds = bounds
        super().__init__()

    def _reset(self):
        self._weights = np.ones(1)

    @property
    def weights_(self):
        return self._weights

    def predict_one(self, z):
        z = float(check_vector(z, "z", length=1)[0])
        return z if self.bounds is None else min(max(z, float(self.bounds[0])), float(self.bounds[1]))

    def learn_one(self, z, y):
        check_vector(z, "z", length=1)
        check_label(y, "y")
        self.t_ += 1


def _fresh_meta(meta, N: int):
    """A fresh meta-learner for N experts (``n_experts=N`` where the template left N open); for
    N = 1 and a rule that needs N >= 2, :class:`_OnlyExpert` with the template's ``bounds``."""
    if meta is None:
        meta = default_meta()
    if N == 1 and int(getattr(meta, "min_experts", 1)) > 1:
        return _OnlyExpert(getattr(meta, "bounds", None))
    try:
        if "n_experts" in getattr(meta, "get_params", dict)():
            return meta.clone(n_experts=N)
        return fresh(meta)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"meta {meta!r} cannot aggregate N={N} learners: {exc}") from None


def first_fallback(meta) -> float:
    """f_1: the midpoint of the meta-learner's ``bounds`` (0.0 when it has none): the forecast that
    stands in for an abstaining expert before any label was seen."""
    bounds = getattr(meta, "bounds", None)
    return 0.0 if bounds is None else 0.5 * (float(bounds[0]) + float(bounds[1]))


def _fallback_sequence(label_sum: float, t0: int, y, first: float) -> np.ndarray:
    """f_t for the T steps of labels y after t0 steps whose labels sum to label_sum:
    :func:`omkl_core.protocol.abstention_fallbacks` (the one abstention rule)."""
    return abstention_fallbacks(y, label_sum=label_sum, n_labels=t0, first=first)


# ----------------------------------------------------------------------------- sleeping experts
def _sleeping_step(meta_, z, abstained, fallback: float):
    """z_t as the meta-learner sees it (module docstring, "Abstention"): an abstaining expert's
    entry becomes the aggregate of the awake experts under the rule's weights p_t (a rule with
    ``convex_weights``), or f_t (every expert asleep, or a rule without convex weights)."""
    if not abstained.any():
        return z
    if abstained.all() or not getattr(meta_, "convex_weights", False):
        return np.where(abstained, float(fallback), z)
    p = np.asarray(meta_.weights_, dtype=np.float64)
    bounds = getattr(meta_, "bounds", None)
    zb = z if bounds is None else np.clip(z, float(bounds[0]), float(bounds[1]))   # eq. (28)
    awake = ~abstained
    pa = p[awake]
    total = float(np.sum(pa))
    yhat = float(pa @ zb[awake]) / total if total > 0.0 else float(np.mean(zb[awake]))
    return np.where(abstained, yhat, z)


def _sleeping_stream(meta_, Z, A, y, fallbacks):
    """(Z as ``meta_`` saw it, its forecasts) over a stream with abstentions A: the steps up to the
    last abstention one by one (:func:`_sleeping_step` needs the weights of each step), the rest by
    the rule's ``run`` (continuing from the state; the same numbers, to the rounding of a compiled
    driver)."""
    rows = np.flatnonzero(A.any(axis=1))
    if rows.size == 0:
        return Z, np.asarray(meta_.run(Z, y), dtype=np.float64)
    if not getattr(meta_, "convex_weights", False):
        Zs = np.where(A, fallbacks[:, None], Z)
        return Zs, np.asarray(meta_.run(Zs, y), dtype=np.float64)
    T = Z.shape[0]
    last = int(rows[-1]) + 1
    Zs = np.array(Z, dtype=np.float64, copy=True)
    preds = np.empty(T)
    for t in range(last):
        Zs[t] = _sleeping_step(meta_, Zs[t], A[t], fallbacks[t])
        preds[t] = meta_.predict_one(Zs[t])
        meta_.learn_one(Zs[t], float(y[t]))
    if last < T:
        preds[last:] = np.asarray(meta_.run(Zs[last:], y[last:]), dtype=np.float64)
    return Zs, preds


def aggregate(Z, y, *, meta=None, abstained=None):
    """The forecasts of ``Mixture(learners, meta=meta).run(X, y)`` (fresh) from the experts' forecasts
    ``Z`` (T, N) made alone, predict-then-learn over (X, y), and the labels ``y`` (T,); ``meta=None``:
    :func:`default_meta`.

    Valid because no expert depends on the meta-learner or on another expert (module
    docstring): a leaderboard that has run every single learner once can aggregate their stored
    forecasts without running the experts again.  ``abstained`` (T, N) bool marks the
    abstentions (their entries of Z are ignored: sleeping experts, module docstring); without it
    every entry of Z must be finite.  The same numbers as the mixture, bit for bit (tested).
    """
    y = check_vector(y, "y")
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2 or Z.shape[0] != y.shape[0] or Z.shape[1] == 0:
        raise ValueError(f"Z must have shape (T, N) = ({y.shape[0]}, N >= 1), got {Z.shape}")
    _check_meta(meta)
    A = np.zeros(Z.shape, dtype=bool) if abstained is None else np.asarray(abstained, dtype=bool)
    if A.shape != Z.shape:
        raise ValueError(f"abstained must have the shape of Z {Z.shape}, got {A.shape}")
    if not np.all(np.isfinite(Z[~A])):
        raise ValueError("Z contains NaN or inf outside the abstentions (mark them in abstained)")
    meta_ = _fresh_meta(meta, Z.shape[1])
    Z = np.where(A, 0.0, Z)
    fallbacks = _fallback_sequence(0.0, 0, y, first_fallback(meta_))
    return _sleeping_stream(meta_, Z, A, y, fallbacks)[1]


class Mixture(Wrapper, Pairing):
    """Any online learners as experts, their forecasts combined at every step by a meta-learner, whose
    regret bound then holds against each of them (paper 000, section 3).

    Online aggregation of any online learners by a meta-learner (issues 24, 41; P000 sec. 3).

    At step t every expert forecasts z_{t,j} from x_t, the meta-learner forecasts
    yhat_t = meta(z_t); then every expert learns (x_t, y_t) and the meta-learner learns
    (z_t, y_t) (module docstring): the pairing of :class:`omkl_core.pairing.Pairing`, shared
    with the VAW family (whose experts are the batched VAW layer; ``meta`` may be a Table 2
    row's meta-learner, :func:`omkl_core.mkl.make_meta`).  The meta-learner's regret bound against
    every expert holds for any experts, and each rule carries its own (``regret_bound``, evaluated on
    a run by :meth:`summary`): e.g. the default ML-Poly (Gaillard, Stoltz & van Erven 2014; no label
    range assumed), ``meta=EWA()`` on labels in [A, B] (P000 eq. (30), CBL Prop. 3.1)

        sum_t (yhat_t - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2 <= ln N / eta = 2 (B - A)^2 ln N,

    zbar the forecasts truncated to [A, B] (eq. (28)), and ``meta=AggregatingAlgorithm()``
    (B - A)^2 ln N / 2 (CBL Prop. 3.2) -- tested in ``tests/test_mixture.py``.

    Parameters
    ----------
    learners : list or dict of online learners, or None, default=None
        The N >= 1 experts: objects with ``predict_one(x) -> float | None`` and
        ``learn_one(x, y)`` on 1-D float arrays (omkl's learners; River's regressors through
        :func:`omkl_core.interop.from_river`); a dict names them (``{"ridge": OnlineRidge(), ...}``),
        a list is named by :func:`expert_name`.  None: :func:`default_pool` (the running mean and
        omkl's default learners, each in its online scalers: a learner for a raw stream).  Used as
        templates: the mixture learns on fresh copies (``clone()`` where an expert has one, else
        ``copy.deepcopy``), so the objects passed are never modified.
    meta : meta-learner or None, default=None
        A meta-learner of :mod:`omkl_core.aggregation` (``VAWMeta``, ``EWA``, ``CalibratedEWA``,
        ``AggregatingAlgorithm``, ``MLProd``, ``MLPoly``, ``BOA``), used as a template (cloned,
        with ``n_experts=N`` where it left N open); None: :func:`default_meta` (ML-Poly in the
        target's units).  Its ``bounds`` truncate the forecasts (eq. (28)) and fix the fallback of
        the first step; ``bounds=(0, 1)`` (the class default of all but VAWMeta) suits labels
        normalised as in P000 eq. (33).

    Attributes
    ----------
    learners_ : list
        The experts that learn (copies of ``learners``).
    expert_names_ : list of str
        Their names (the dict's keys, or :func:`expert_name`).
    meta_ : meta-learner
        The meta-learner that learns (a clone of ``meta``).
    weights_ : ndarray of shape (N,)
        The meta weights the next prediction uses (``meta_.weights_``).
    expert_predictions_ : ndarray of shape (N,) or None
        z of the last step as the meta-learner saw it (abstentions substituted, module docstring).
    abstained_ : ndarray of shape (N,), bool, or None
        Which experts abstained at the last step.
    n_abstained_ : ndarray of shape (N,), int
        Steps at which each expert abstained.
    label_sum_ : float
        Sum of the labels learned (the fallback's running mean is ``label_sum_ / t_``).

    Examples
    --------
    >>> import omkl_core as ok
    >>> X, y = ok.datasets.ar4(T=300, seed=0)
    >>> mix = ok.Mixture([ok.OnlineRidge(fit_intercept=True), ok.VAW2(m=10)], meta=ok.MLPoly())
    >>> trace = ok.run_online(mix, X, y)
    >>> mix.weights_.shape, bool(trace.mse < y.var())
    ((2,), True)
    >>> ok.Mixture().expert_names_                       # the default pool, for a raw stream
    ['running mean', 'VAW2', 'OnlineRidge']
    """

    _parameter_constraints = {
        "learners": Check(_check_learners, invalid=[[], (), {}, "ridge", 3, [object()], [None]]),
        "meta": Check(_check_meta, invalid=["BOA", 3]),
    }

    @classmethod
    def _unit_test_params(cls):
        yield {"learners": [OnlineRidge(a=1.0, fit_intercept=True, solver="sherman-morrison"), VAW2(m=6, seed=3)]}
        yield {"learners": [OnlineRidge(a=1.0), OnlineRidge(a=10.0, fit_intercept=True)], "meta": EWA()}
        yield {"learners": [OnlineRidge(a=1.0, fit_intercept=True, solver="sherman-morrison")], "meta": VAWMeta()}
        yield {}

    def __init__(self, learners=None, *, meta=None):
        self.learners = learners
        self.meta = meta
        super().__init__()

    #: the mixture never abstains: a step at which every expert does gets the fallback f_t
    #: (``run_alignment``: the lcm of the experts', forwarded by :class:`~omkl_core.base.Wrapper`)
    may_abstain = False

    def _templates(self) -> tuple[list, list[str]]:
        return _named(self.learners)

    def _wrapped(self) -> list:
        return self._templates()[0]

    @property
    def _meta_template(self):
        return default_meta() if self.meta is None else self.meta

    @property
    def label_range(self):
        """The label range the mixture assumes: its meta-learner's ``bounds`` (eq. (28))."""
        return getattr(self._meta_template, "bounds", None)

    def _validate_joint(self):
        N = len(self._templates()[0])
        fixed = getattr(self._meta_template, "n_experts", None)
        if fixed is not None and fixed != N:
            raise ValueError(f"meta has n_experts={fixed} but learners holds N={N} experts")

    def _make_meta(self):
        return _fresh_meta(self._meta_template, len(self._templates()[0]))

    def _reset(self):
        super()._reset()         # meta_, expert_predictions_ and the cached forecasts of a step
        templates, names = self._templates()
        N = len(templates)
        self.learners_ = [fresh(e) for e in templates]
        self.expert_names_ = names
        self._trusted = [_refuses_before_learning(e) for e in self.learners_]
        self._meta_trusted = _refuses_before_learning(self.meta_)
        self._experts_check = all(self._trusted)    # every expert checks x_t and y_t itself, first thing
        self._plan_undo(sized=False)
        self._undo = []
        self._first_fallback = first_fallback(self.meta_)
        self.label_sum_ = 0.0
        self.abstained_ = None
        self.n_abstained_ = np.zeros(N, dtype=np.int64)

    # ---- the fallback for abstaining experts ----------------------------------------
    def _fallback(self) -> float:
        """f_t: the running mean of the labels learned, the midpoint of ``bounds`` before any."""
        return abstention_fallback(self.label_sum_, self.t_, self._first_fallback)

    def _fallbacks(self, y) -> np.ndarray:
        """f_t for the T steps of a run over labels y (continuing from the state): the same
        sequential sums as the per-step loop, so the same numbers bit for bit."""
        return _fallback_sequence(self.label_sum_, self.t_, y, self._first_fallback)

    # ---- one step ---------------------------------------------------------------------
    def _point(self, x):
        """x_t as the experts get it: checked here (``check_point``) unless every expert is one of omkl's
        learners and x_t a 1-D float64 array: those check it themselves before anything else (the same
        check, naming x), so the first of them refuses bad values before any state changes."""
        if getattr(self, "_experts_check", False) and type(x) is np.ndarray and x.dtype == np.float64 \
                and x.ndim == 1:
            return x
        return check_point(x, name="x")

    def _label(self, y, pending: bool) -> float:
        """y_t as a float: checked here (``check_label``) unless every expert is one of omkl's learners,
        y_t a float and the step's forecasts made (``pending``): then the first thing to happen is the
        first expert's learn_one, which checks y_t (naming y) before any state changes."""
        if pending and getattr(self, "_experts_check", False) and type(y) in (float, np.float64):
            return float(y)
        return check_label(y, "y")

    def _checked_forecast(self, j, z):
        """Expert j's forecast ``z`` = z_{t,j} as a float, or None (abstains); NaN/inf or not a number is
        an error naming the expert."""
        if type(z) is float and math.isfinite(z):     # what omkl's learners return: nothing to convert
            return z
        z = check_forecast(z, f"learners[{j}] ({type(self.learners_[j]).__name__}) forecast at step {self.t_ + 1}")
        if z is None:
            return None
        if not math.isfinite(z):
            raise FloatingPointError(f"learners[{j}] ({self.expert_names_[j]}) forecast {z!r} at step "
                                     f"{self.t_ + 1} (None is how an expert abstains; NaN/inf is not)")
        return z

    def _predict_experts(self, x):
        """(z_t, (abstained, any abstained)) from the experts' states after steps < t, the sleeping
        experts' entries substituted (module docstring; the pairing caches them until learn_one)."""
        raw = []
        for j, e in enumerate(self.learners_):         # in turn: an expert that fails stops the step
            z = e.predict_one(x)
            raw.append(z if type(z) is float and math.isfinite(z) else self._checked_forecast(j, z))
        if None not in raw:
            return np.array(raw, dtype=np.float64), (np.zeros(len(raw), dtype=bool), False)
        abstained = np.array([r is None for r in raw])
        z = np.array([0.0 if r is None else r for r in raw], dtype=np.float64)
        return _sleeping_step(self.meta_, z, abstained, self._fallback()), (abstained, True)

    def learn_one(self, x, y) -> None:
        """Reveal y_t: every expert learns (x, y_t), then the meta-learner (z_t, y_t), z_t the
        forecasts of the last ``predict_one`` since the previous ``learn_one`` even where x differs
        from the row predicted on (module docstring: "One forecast per expert per step"), else
        the experts' forecasts of x."""
        # atomic (DESIGN, Faults): an expert that raises leaves every expert, the meta-learner and t_
        # as before the step. The experts outside omkl's own learners (:func:`_refuses_before_learning`)
        # learn first, each deep-copied before it learns; omkl's own learn after them, each but the
        # last (which is atomic by itself) snapshotted cheaply before it learns (:class:`_Snapshot`:
        # one of them may still fail for a reason the up-front checks do not cover, e.g. an overflow
        # of OnlineRidge(clip=...)'s unclipped forecast, after others learned); the failure is named
        # by the expert. The meta-learner is copied only when it is not one of omkl's. Of the
        # mixture's own state only the step's cached forecasts can change before the last thing
        # that may raise (the meta-learner's learn_one); the counters change after it.
        last, meta = self._last, self.meta_
        meta_saved = None if getattr(self, "_meta_trusted", False) else _learned_state(meta)
        self._undo = []
        try:
            if last is not None and not last[0].matches(x):   # another x than the one predicted on
                xc = check_point(x, name="x")
                if last[0].shape == xc.shape:          # z_t behind the prediction emitted: kept for this x
                    self._last = (Checked(xc), last[1], last[2])
            super().learn_one(x, y)
        except BaseException:
            for undo in reversed(self._undo):
                undo.restore()
            self._undo = []
            self._last = last
            if meta_saved is not None:
                _restore_state(meta, *meta_saved)
            raise
        self._undo = []

    def _expert_label(self, j: int) -> str:
        return f"learners[{j}] ({self.expert_names_[j]})"

    def _plan_undo(self, sized: bool) -> None:
        """The order in which the experts learn and how each one's step is undone should a later one
        (or the meta-learner) fail. The experts are independent, so any order gives the same numbers:
        those outside omkl's own first (each deep-copied before it learns: it may fail half-way), then
        omkl's own, each snapshotted (:class:`_Snapshot`) but the last, which leaves itself as it was
        when it raises -- the last too when the meta-learner is not omkl's (it may raise after every
        expert learned). ``sized``: omkl's own ordered by the bytes of their state (known after the
        first step), the largest last, so that its state is never copied (a scaled VAW2's 3.5 MB)."""
        trusted, N = self._trusted, len(self.learners_)
        size = [0] * N
        if sized:
            size = [sum(int(a.nbytes) for a, _ in _Snapshot(e).arrays) if trusted[j] else 0
                    for j, e in enumerate(self.learners_)]
        self._learn_order = sorted(range(N), key=lambda j: (trusted[j], size[j]))
        last = self._learn_order[-1] if self._learn_order and getattr(self, "_meta_trusted", False) else None
        self._undo_kind = [None if j == last else (_Snapshot if trusted[j] else _Copied) for j in range(N)]
        self._undo_sized = sized

    def _learn_experts(self, x, y, aux):
        if not getattr(self, "_undo_sized", False) and (self.t_ > 0 or not hasattr(self, "_undo_kind")):
            self._plan_undo(sized=self.t_ > 0)       # once, after the first step (or a mixture pickled before)
        undo_kind, undo = self._undo_kind, self._undo
        first = self._learn_order[0]
        for j in self._learn_order:                    # the experts outside omkl's first, each copied
            e = self.learners_[j]
            kind = undo_kind[j]
            if kind is not None:
                undo.append(kind(e))
            try:
                e.learn_one(x, y)
            except Exception as exc:
                if j == first and self._experts_check and isinstance(exc, (ValueError, TypeError)):
                    raise                              # x_t or y_t refused: the mixture's own check (_point, _label)
                raise _named_error(exc, f"{self._expert_label(j)} learn_one at step {self.t_ + 1}") from None

    def _finish_step(self, z, aux, y):
        abstained, any_abstained = aux
        self.label_sum_ += y
        if any_abstained:
            self.n_abstained_ += abstained
        self.abstained_ = abstained
        super()._finish_step(z, aux, y)

    # ---- whole stream -----------------------------------------------------------------
    def _expert_column(self, j, X, y):
        """(z_{.,j}, abstained) of expert j over the stream, from its own predict-then-learn pass
        (:func:`omkl_core.protocol.predict_learn`: its ``run`` where it has one -- NaN marks an
        abstention only for an expert that declares ``may_abstain`` -- else its predict_one/learn_one
        loop); a non-finite forecast that is not an abstention is an error naming the expert."""
        e = self.learners_[j]
        label = f"learners[{j}] ({type(e).__name__})"
        try:
            z, abstained = predict_learn(e, X, y, name=f"{label} forecast", step0=self.t_)
        except NonFiniteRun as exc:                     # named by the expert's place in the mixture
            raise FloatingPointError(f"{label} forecast {exc.value!r} at step {self.t_ + 1 + exc.index}: "
                                     f"{exc}") from None
        except TypeError as exc:
            if str(exc).startswith(label):
                raise
            raise TypeError(f"{label}: {exc}") from None
        z = z.reshape(-1)
        bad = ~np.isfinite(z) & ~abstained.reshape(-1)
        if bad.any():
            t = int(np.flatnonzero(bad)[0])
            raise FloatingPointError(f"learners[{j}] ({self.expert_names_[j]}) forecast {z[t]!r} at step "
                                     f"{self.t_ + 1 + t}")
        return z, abstained.reshape(-1)

    def _expert_stream(self, X, y):
        """Z (T, N) of the experts' forecasts (0.0 at the abstentions, substituted by
        :meth:`_meta_stream`) and the abstention mask (T, N)."""
        cols = [self._expert_column(j, X, y) for j in range(len(self.learners_))]   # over experts, not t
        A = np.stack([c[1] for c in cols], axis=1)
        Z = np.where(A, 0.0, np.stack([c[0] for c in cols], axis=1))
        return Z, A

    def _meta_stream(self, Z, y, A):
        """The sleeping experts substituted step by step where any abstains, the rule's ``run`` after
        the last abstention (:func:`_sleeping_stream`)."""
        return _sleeping_stream(self.meta_, Z, A, y, self._fallbacks(y))

    def _finish_run(self, Z, A, y):
        self.label_sum_ = float(np.cumsum(np.concatenate([[self.label_sum_], y]))[-1])
        self.n_abstained_ += A.sum(axis=0)
        self.abstained_ = A[-1].copy()
        super()._finish_run(Z, A, y)

    def summary(self, X, y, *, shifts: int = 5):
        """opera's ``summary()`` of a mixture: a fresh copy of this mixture run on (X, y), its mean
        square loss beside each expert's (by name; the steps each abstained) and the oracles in
        hindsight (best expert / convex / linear / 1..``shifts``-shift paths), its regret against each
        in the target's units, and the bound its meta-learner carries (``regret_bound``) evaluated
        on the run, with a verdict (:func:`omkl_core.regret.regret_report`; print it for the text).
        This mixture is not modified."""
        return regret_report(self, X, y, shifts=shifts)
