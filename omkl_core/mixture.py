"""``Mixture``: online aggregation of heterogeneous online learners (issue 24).

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
their first update: ``from_river`` abstains until its model has learned one label).  ``None``
has one meaning in the package, written once in :mod:`omkl_core.protocol` ("Abstention"): the
meta-learners need a number for every expert at every step, so an abstaining expert's forecast
is replaced by the fallback f_t of :func:`omkl_core.protocol.abstention_fallback`, the same for
every abstaining expert:

    f_t = (1 / (t - 1)) sum_{s<t} y_s   (the running mean of the labels seen), t > 1;
    f_1 = (A + B) / 2, the midpoint of the meta-learner's ``bounds`` (0.0 if it has none).

It is computed from the past labels only, it is the forecast of the best constant on the past
(an abstaining expert is scored as a neutral forecaster, neither losing a weight it does not
deserve to lose nor dragging the aggregate), and it lies in [A, B] whenever the labels do.
The meta-learner's bound then holds against the experts *as substituted*.  The steps at which
each expert abstained are counted in ``n_abstained_``; ``abstained_`` marks the last step's.
A forecast that is NaN or inf (not ``None``) is an error (``FloatingPointError`` naming the
expert), never passed on.

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

import numpy as np

from .aggregation import BOA
from .base import NonFiniteRun, OnlineLearner, _learned_state, _restore_state
from .pairing import Pairing
from .protocol import abstention_fallback, abstention_fallbacks
from .validation import Check, check_forecast, check_label, check_point, check_vector

__all__ = ["Mixture", "aggregate"]


def _is_river_model(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "river"


def _check_learners(value, name: str = "learners") -> None:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of online learners (objects with predict_one/learn_one), "
                        f"got {type(value).__name__}")
    if len(value) == 0:
        raise ValueError(f"{name} must hold at least one learner, got an empty {type(value).__name__}")
    for i, e in enumerate(value):
        if _is_river_model(e):
            raise TypeError(f"{name}[{i}] is a River model ({type(e).__name__}), which reads dict features: "
                            "wrap it with omkl_core.interop.from_river(model)")
        if not (callable(getattr(e, "predict_one", None)) and callable(getattr(e, "learn_one", None))):
            raise TypeError(f"{name}[{i}] must be an online learner with predict_one(x) and learn_one(x, y), "
                            f"got {type(e).__name__}")
        if getattr(e, "_input_kind", "features") != "features":
            raise TypeError(f"{name}[{i}] ({type(e).__name__}) reads expert forecasts, not features: "
                            "a meta-learner goes in meta=")


def _check_meta(value, name: str = "meta") -> None:
    if not (callable(getattr(value, "predict_one", None)) and callable(getattr(value, "learn_one", None))):
        raise TypeError(f"{name} must be a meta-learner of omkl_core.aggregation (VAWMeta, EWA, CalibratedEWA, "
                        f"AggregatingAlgorithm, MLProd, MLPoly, BOA), got {type(value).__name__}")
    if getattr(value, "_input_kind", None) != "experts":
        raise TypeError(f"{name} must read expert forecasts (a meta-learner of omkl_core.aggregation, "
                        f"_input_kind 'experts'), got {type(value).__name__}")


def _refuses_before_learning(learner) -> bool:
    """Whether ``learner`` is one of omkl's own (``omkl_core``, not an adapter of another library's
    model), wrapping only such learners: those check their input before they change state, so
    after the mixture's own checks their ``learn_one`` does not raise half-way."""
    mod = type(learner).__module__
    if not mod.startswith("omkl_core.") or mod.startswith("omkl_core.interop"):
        return False
    inner = [getattr(learner, a) for a in ("learner_", "scaler_") if hasattr(learner, a)]
    return all(_refuses_before_learning(i) for i in [*inner, *(getattr(learner, "learners_", None) or [])])


def _fresh(obj):
    """A fresh copy of a template: ``obj.clone()`` where it has one, else ``copy.deepcopy``."""
    clone = getattr(obj, "clone", None)
    return clone() if callable(clone) else copy.deepcopy(obj)


class _OnlyExpert(OnlineLearner):
    """The meta-learner of a mixture of N = 1 expert whose meta-learner's rule needs N >= 2 (BOA
    ``"v120"``, ML-Prod: ln N = 0 gives a zero learning rate): the only expert's forecast,
    truncated to ``bounds`` (eq. (28)) -- what every convex-weight rule (EWA, the Aggregating
    Algorithm, ML-Poly, ML-Prod, BOA) gives for one expert, whose weight is 1."""

    _input_kind = "experts"
    _parameter_constraints = {}

    def __init__(self, bounds=None):
        self.bounds = bounds
        super().__init__()

    def _reset(self):
        self.weights_ = np.ones(1)

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
    if N == 1 and int(getattr(meta, "_min_experts", 1)) > 1:
        return _OnlyExpert(getattr(meta, "bounds", None))
    try:
        if "n_experts" in getattr(meta, "get_params", dict)():
            return meta.clone(n_experts=N)
        return _fresh(meta)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"meta {meta!r} cannot aggregate N={N} learners: {exc}") from None


def _first_fallback(meta) -> float:
    """f_1: the midpoint of the meta-learner's ``bounds`` (0.0 when it has none)."""
    bounds = getattr(meta, "bounds", None)
    return 0.0 if bounds is None else 0.5 * (float(bounds[0]) + float(bounds[1]))


def _fallback_sequence(label_sum: float, t0: int, y, first: float) -> np.ndarray:
    """f_t for the T steps of labels y after t0 steps whose labels sum to label_sum:
    :func:`omkl_core.protocol.abstention_fallbacks` (the one abstention rule)."""
    return abstention_fallbacks(y, label_sum=label_sum, n_labels=t0, first=first)


def aggregate(Z, y, *, meta=BOA(), abstained=None):  # noqa: B008  (a template, cloned)
    """The forecasts of ``Mixture(learners, meta=meta).run(X, y)`` (fresh) from the experts'
    forecasts ``Z`` (T, N) made alone, predict-then-learn over (X, y), and the labels ``y`` (T,).

    Valid because no expert depends on the meta-learner or on another expert (module
    docstring): a leaderboard that has run every single learner once can aggregate their stored
    forecasts without running the experts again.  ``abstained`` (T, N) bool marks the
    abstentions (their entries of Z are ignored and replaced by the fallback f_t); without it
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
    if A.any():
        Z = np.where(A, _fallback_sequence(0.0, 0, y, _first_fallback(meta_))[:, None], Z)
    return np.asarray(meta_.run(Z, y), dtype=np.float64)


class Mixture(Pairing):
    """Online aggregation of any online learners by a meta-learner (issue 24; P000 sec. 3).

    At step t every expert forecasts z_{t,j} from x_t, the meta-learner forecasts
    yhat_t = meta(z_t); then every expert learns (x_t, y_t) and the meta-learner learns
    (z_t, y_t) (module docstring): the pairing of :class:`omkl_core.pairing.Pairing`, shared
    with the VAW family (whose experts are the batched VAW layer; ``meta`` may be a Table 2
    row's meta-learner, :func:`omkl_core.mkl.make_meta`).  The meta-learner's regret bound against the best expert
    holds for any experts: e.g. with ``meta=EWA()`` on labels in [A, B] (P000 eq. (30), CBL
    Prop. 3.1)

        sum_t (yhat_t - y_t)^2 - min_j sum_t (zbar_{t,j} - y_t)^2 <= ln N / eta = 2 (B - A)^2 ln N,

    zbar the forecasts truncated to [A, B] (eq. (28)), and with ``meta=AggregatingAlgorithm()``
    (B - A)^2 ln N / 2 (CBL Prop. 3.2) -- ``omkl_core.bounds.ewa_bound`` / ``aa_bound``,
    tested in ``tests/test_mixture.py``.

    Parameters
    ----------
    learners : list of online learners
        The N >= 1 experts: objects with ``predict_one(x) -> float | None`` and
        ``learn_one(x, y)`` on 1-D float arrays (omkl's learners; River's regressors through
        :func:`omkl_core.interop.from_river`).  Used as templates: the mixture learns on fresh
        copies (``clone()`` where an expert has one, else ``copy.deepcopy``), so the objects
        passed are never modified.
    meta : meta-learner, default=BOA()
        A meta-learner of :mod:`omkl_core.aggregation` (``VAWMeta``, ``EWA``, ``CalibratedEWA``,
        ``AggregatingAlgorithm``, ``MLProd``, ``MLPoly``, ``BOA``), used as a template (cloned,
        with ``n_experts=N`` where it left N open).  Its ``bounds`` truncate the forecasts
        (eq. (28)) and fix the fallback of the first step; ``bounds=(0, 1)`` (the default of
        all but VAWMeta) suits labels normalised as in P000 eq. (33).

    Attributes
    ----------
    learners_ : list
        The experts that learn (copies of ``learners``).
    meta_ : meta-learner
        The meta-learner that learns (a clone of ``meta``).
    weights_ : ndarray of shape (N,)
        The meta weights the next prediction uses (``meta_.weights_``).
    expert_predictions_ : ndarray of shape (N,) or None
        z of the last step as the meta-learner saw it (abstentions replaced by the fallback).
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
    """

    _parameter_constraints = {
        "learners": Check(_check_learners, invalid=[[], (), "ridge", 3, [object()], [None]]),
        "meta": Check(_check_meta, invalid=[None, "BOA", 3]),
    }

    @classmethod
    def _unit_test_params(cls):
        from .aggregation import EWA, VAWMeta  # noqa: PLC0415
        from .linear import OnlineRidge  # noqa: PLC0415
        from .mkl import VAW2  # noqa: PLC0415

        yield {"learners": [OnlineRidge(a=1.0, fit_intercept=True, solver="sherman-morrison"), VAW2(m=6, seed=3)]}
        yield {"learners": [OnlineRidge(a=1.0), OnlineRidge(a=10.0, fit_intercept=True)], "meta": EWA()}
        yield {"learners": [OnlineRidge(a=1.0, fit_intercept=True, solver="sherman-morrison")], "meta": VAWMeta()}

    def __init__(self, learners, *, meta=BOA()):  # noqa: B008  (a template, never modified: cloned in reset)
        self.learners = learners
        self.meta = meta
        super().__init__()

    @property
    def _label_bounds(self):
        """The label range the mixture assumes: its meta-learner's ``bounds`` (eq. (28))."""
        return getattr(self.meta, "bounds", None)

    @property
    def _run_alignment(self) -> int:
        """``run`` pieces whose lengths are multiples of this are bit for bit one run (the lcm of
        the experts' ``_run_alignment``)."""
        return math.lcm(*(int(getattr(e, "_run_alignment", 1)) for e in self.learners))

    def _validate_joint(self):
        N = len(self.learners)
        fixed = getattr(self.meta, "n_experts", None)
        if fixed is not None and fixed != N:
            raise ValueError(f"meta has n_experts={fixed} but learners holds N={N} experts")

    def _make_meta(self):
        return _fresh_meta(self.meta, len(self.learners))

    def _reset(self):
        super()._reset()         # meta_, expert_predictions_ and the cached forecasts of a step
        N = len(self.learners)
        self.learners_ = [_fresh(e) for e in self.learners]
        self._trusted = [_refuses_before_learning(e) for e in self.learners_]
        self._learn_order = sorted(range(N), key=lambda j: self._trusted[j])   # experts are independent
        self._undo = []
        self._first_fallback = _first_fallback(self.meta_)
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
    def _expert_forecast(self, j, x):
        """z_{t,j} (float) or None (abstains); NaN/inf is an error."""
        z = check_forecast(self.learners_[j].predict_one(x),
                           f"learners[{j}] ({type(self.learners_[j]).__name__}) forecast at step {self.t_ + 1}")
        if z is None:
            return None
        if not math.isfinite(z):
            raise FloatingPointError(f"learners[{j}] ({type(self.learners_[j]).__name__}) forecast {z!r} at step "
                                     f"{self.t_ + 1} (None is how an expert abstains; NaN/inf is not)")
        return z

    def _predict_experts(self, x):
        """(z_t, abstained) from the experts' states after steps < t (the pairing caches them
        until learn_one)."""
        raw = [self._expert_forecast(j, x) for j in range(len(self.learners_))]
        abstained = np.array([r is None for r in raw])
        z = np.array([self._fallback() if r is None else r for r in raw], dtype=np.float64)
        return z, abstained

    def learn_one(self, x, y) -> None:
        """Reveal y_t: every expert learns (x, y_t), then the meta-learner (z_t, y_t), z_t the
        forecasts of the last ``predict_one`` since the previous ``learn_one`` even where x differs
        from the row predicted on (module docstring: "One forecast per expert per step"), else
        the experts' forecasts of x."""
        # atomic (DESIGN, Faults): an expert that raises leaves every expert, the meta-learner and t_
        # as before the step. The mixture's own state and the meta-learner are copied (small); of the
        # experts only those outside omkl's own learners (:func:`_refuses_before_learning`), which
        # learn first, each copied before it learns: omkl's learners refuse bad input before they
        # change state, and x and y are checked here before any expert learns.
        saved, order = _learned_state(self, skip=("learners_",))
        self._undo = []
        try:
            last = self._last
            if last is not None:
                xc = check_point(x, name="x")
                if last[0].shape == xc.shape:          # z_t behind the prediction emitted: kept for this x
                    self._last = (xc.copy(), last[1], last[2])
            super().learn_one(x, y)
        except BaseException:
            for e, (s, o) in reversed(self._undo):
                _restore_state(e, s, o)
            self._undo = []
            _restore_state(self, saved, order)
            raise
        self._undo = []

    def _learn_experts(self, x, y, abstained):
        trusted = self._trusted
        for j in self._learn_order:                    # the experts that may raise first, each copied
            e = self.learners_[j]
            if not trusted[j]:
                self._undo.append((e, _learned_state(e)))
            e.learn_one(x, y)

    def _finish_step(self, z, abstained, y):
        self.label_sum_ += y
        self.n_abstained_ += abstained
        self.abstained_ = abstained
        super()._finish_step(z, abstained, y)

    # ---- whole stream -----------------------------------------------------------------
    def _expert_column(self, j, X, y):
        """(z_{.,j}, abstained) of expert j over the stream, from its own predict-then-learn pass:
        its ``run`` where it has one (NaN marks an abstention only for an expert that declares
        ``_may_abstain``), else its predict_one/learn_one loop."""
        e = self.learners_[j]
        run = getattr(e, "run", None)
        if callable(run):
            try:
                z = np.asarray(run(X, y))
            except NonFiniteRun as exc:                 # named by the expert's place in the mixture
                raise FloatingPointError(f"learners[{j}] ({type(e).__name__}) forecast {exc.value!r} at step "
                                         f"{self.t_ + 1 + exc.index}: {exc}") from None
            except TypeError as exc:
                raise TypeError(f"learners[{j}] ({type(e).__name__}): {exc}") from None
            if z.dtype.kind not in "fiu":               # no "0.3" -> 0.3, no True -> 1.0
                raise TypeError(f"learners[{j}] ({type(e).__name__}) forecast {z.reshape(-1)[:1].tolist()} "
                                f"(dtype {z.dtype}) in its run, which is not a real number (a forecast is a "
                                "float, or NaN to abstain in a run)")
            z = z.astype(np.float64).reshape(-1)
            bad = ~np.isfinite(z)
            if bad.any() and not getattr(e, "_may_abstain", False):
                raise FloatingPointError(f"learners[{j}] ({type(e).__name__}) forecast {z[bad][0]!r} at step "
                                         f"{self.t_ + 1 + int(np.flatnonzero(bad)[0])}")
            return z, bad
        T = X.shape[0]
        z, bad = np.empty(T), np.zeros(T, dtype=bool)
        for t in range(T):
            r = check_forecast(e.predict_one(X[t]), f"learners[{j}] ({type(e).__name__}) forecast at step {self.t_ + 1 + t}")
            if r is None:
                bad[t] = True
                z[t] = np.nan
            else:
                z[t] = float(r)
                if not math.isfinite(z[t]):
                    raise FloatingPointError(f"learners[{j}] ({type(e).__name__}) forecast {z[t]!r} at step "
                                             f"{self.t_ + 1 + t}")
            e.learn_one(X[t], float(y[t]))
        return z, bad

    def _expert_stream(self, X, y):
        """Z (T, N) of the experts' forecasts (abstentions replaced by f_t) and the mask (T, N)."""
        cols = [self._expert_column(j, X, y) for j in range(len(self.learners_))]   # over experts, not t
        Z = np.stack([c[0] for c in cols], axis=1)
        A = np.stack([c[1] for c in cols], axis=1)
        if A.any():
            Z = np.where(A, self._fallbacks(y)[:, None], Z)
        return Z, A

    def _finish_run(self, Z, A, y):
        self.label_sum_ = float(np.cumsum(np.concatenate([[self.label_sum_], y]))[-1])
        self.n_abstained_ += A.sum(axis=0)
        self.abstained_ = A[-1].copy()
        super()._finish_run(Z, A, y)

    def summary(self, X, y, *, shifts: int = 5):
        """opera's ``summary()`` of a mixture: a fresh copy of this mixture run on (X, y), its mean
        square loss beside the oracles in hindsight (best expert / convex / linear / 1..``shifts``-shift
        paths) and the bound its meta-learner has in papers 000-004, evaluated on the run
        (:func:`omkl_core.regret.regret_report`; print it for the table). This mixture is not modified."""
        from .regret import regret_report  # noqa: PLC0415  (regret imports this module)

        return regret_report(self, X, y, shifts=shifts)
