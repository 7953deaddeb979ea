"""The base classes of every learner: parameters, repr, clone, constraints, reset.

River's ``river.base.Base`` and scikit-learn's ``BaseEstimator`` are the models:

* the hyper-parameters are the arguments of ``__init__``, which only stores them (under
  the same names) and ends with ``super().__init__()``; ``get_params()`` reads them back
  from the signature, ``repr`` shows every one of them (``eval(repr(m))`` rebuilds an
  equal-parameter learner when the parameters are plain values) and ``clone(**new)``
  builds a fresh learner from them;
* each class declares one table ``_parameter_constraints`` (argument name -> a
  :class:`~omkl_core.validation.Constraint`), merged along the class hierarchy and checked
  in one place, :meth:`Base._validate_params`, run by ``reset()`` (so also at construction);
  constraints that tie two arguments together go in ``_validate_joint``;
* learned state lives in attributes ending in ``_``; ``reset()`` forgets it and returns
  ``self``; conversions of the parameters (e.g. a default learning rate computed from
  ``bounds``) happen there, not in ``__init__``.

:class:`OnlineLearner` (``predict_one`` / ``learn_one`` / ``run``, step counter ``t_``) is the
base of every online learner; :class:`BatchLearner` (``fit`` / ``predict``) of paper 004's
models. :func:`omkl_core.checks.check_learner` checks a learner against these conventions.

The extension protocol (issue 40)
---------------------------------
What a learner, a wrapper and a meta-learner implement is public; River's ``river.base``
(``Estimator``, ``Wrapper``, ``Ensemble``) is the model.  Nothing here needs a private name.

**A learner** (anything :func:`omkl_core.run_online`, :class:`omkl_core.Mixture`, the scalers
and the adapters accept; it need not derive from :class:`OnlineLearner`):

* ``predict_one(x) -> float | None`` -- the forecast of y_t from x_t (a 1-D float array) with
  the state after the steps learned so far; ``None``: it abstains (:mod:`omkl_core.protocol`,
  "Abstention");
* ``learn_one(x, y) -> None`` -- learn the labelled step (x_t, y_t);
* optionally ``run(X, y) -> predictions`` -- predict-then-learn over a whole stream, continuing
  from the current state, with the numbers of the ``predict_one`` / ``learn_one`` loop (a
  vectorised driver); :func:`omkl_core.protocol.predict_learn` is the one rule that calls it
  or loops;

and three class attributes, each with a default, so a learner that sets none of them works:

=================  ===========  ==========================================================================
attribute          default      meaning
=================  ===========  ==========================================================================
``input_kind``     "features"   what x is: "features" (a point of R^d) or "experts" (the forecasts
                                z_t = (z_{t,1}, ..., z_{t,N}) of N experts: a meta-learner)
``may_abstain``    False        True: the learner may abstain (``None``); inside the protocol
                                (:func:`omkl_core.protocol.predict_learn`, :func:`marked_abstentions`)
                                its ``run`` marks an abstention by NaN (the array form of ``None``), and
                                the ``run`` a user calls returns the fallback f_t there instead ("What
                                ``run`` returns" below); for any other learner a NaN or inf forecast
                                of ``run`` is an error
``run_alignment``  1            ``run`` over consecutive pieces of a stream whose lengths are multiples
                                of it gives the numbers of one ``run`` bit for bit (a block driver:
                                the VAW family's 32); :func:`omkl_core.run_online`'s progress chunks and
                                the command line's blocks are cut to multiples of it
=================  ===========  ==========================================================================

**What ``run`` returns** where a learner abstains, the one rule for every learner: the number
:func:`omkl_core.run_online` scores there, the fallback f_t of :mod:`omkl_core.protocol` (the
running mean of the labels of this call before step t; 0.0 at its first step).  So
``RunningMean().run(X, y)`` is ``[0.0, y_1, (y_1 + y_2) / 2, ...]``, equal to
``run_online(RunningMean(), X, y).predictions``, and ``np.mean((model.run(X, y) - y) ** 2)`` is
never NaN.  Which steps abstained: ``run_online(...).abstained``.  The protocol's own calls
(:func:`omkl_core.protocol.predict_learn`, and any code inside :func:`marked_abstentions`) get the
NaN-marked form, so a wrapper or a :class:`~omkl_core.Mixture` still sees where an expert abstained.

Read them with :func:`input_kind_of`, :func:`may_abstain_of` and :func:`run_alignment_of` (any
object: the default where it declares nothing).  The names of earlier versions (``_input_kind``,
``_may_abstain``, ``_run_alignment``) are still honoured for one release (a class outside
``omkl_core`` that sets one gets a ``DeprecationWarning``) and still readable.

**A wrapper** (:class:`Wrapper`: :class:`omkl_core.preprocessing.Pipeline`,
:class:`~omkl_core.preprocessing.TargetScaler`, :class:`omkl_core.Mixture`, the River adapter
:class:`omkl_core.interop.river.RiverLearner`) holds one learner (or several) as templates, learns on
fresh copies (:func:`fresh`), checks what it is given in one place (:func:`check_online_learner`:
a learner, not a class, not a River model that reads dict features) and forwards ``may_abstain``,
``run_alignment`` and the label range (``label_range``, read by :func:`label_bounds`) from what it
wraps, once, in the base.

**A meta-learner** (:class:`MetaLearner`) is a learner with ``input_kind = "experts"``: x is z_t.
It declares, beside its update, ``convex_weights`` (its forecast is ``<weights_, zbar_t>`` with
``weights_`` fixed before z_t: a :class:`~omkl_core.Mixture`'s sleeping experts need it),
``min_experts``, and the bound it carries: ``regret_bound`` (a
:class:`~omkl_core.bounds.aggregation.RuleBound`: paper, theorem or equation, statement, symbols,
assumptions) and ``stated_bounds(Z, y, predictions)`` evaluating it on a run, or
``no_bound_reason`` (why it carries none).  :mod:`omkl_core.regret` (``omkl run --regret``),
``Mixture.summary``, the registry and the command line read these declarations: a new rule needs
its own file and one export line (:func:`omkl_core.registry.register`).
"""
from __future__ import annotations

import abc
import contextlib
import contextvars
import copy
import functools
import inspect
import math
import types
import warnings

import numpy as np

from .bounds.aggregation import RuleBound, no_bound_row
from .validation import check_forecast, check_label, check_matrix, check_point, check_stream, check_vector, validated

#: ``check_point(x, d=None, name="x")`` and ``check_label(y, name="y")`` are the input checks of
#: every learner (a finite point / label, or a ValueError naming the argument)
__all__ = ["abstention_fallbacks", "Base", "OnlineLearner", "BatchLearner", "Wrapper", "MetaLearner", "NonFiniteRun", "check_point",
           "check_label", "input_kind_of", "may_abstain_of", "run_alignment_of", "label_bounds", "fresh",
           "check_online_learner", "marked_abstentions"]


class Base:
    """Parameters from the ``__init__`` signature, ``repr``, ``clone`` and the constraint table."""

    #: argument name -> Constraint (merged with the tables of the base classes)
    _parameter_constraints: dict = {}

    @classmethod
    def _param_names(cls) -> list[str]:
        sig = inspect.signature(cls.__init__)
        return [n for n, p in sig.parameters.items()
                if n != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    @classmethod
    def _constraints(cls) -> dict:
        """The class's constraint table merged along its hierarchy (the subclass wins)."""
        table: dict = {}
        for klass in reversed(cls.__mro__):
            table.update(klass.__dict__.get("_parameter_constraints", {}))
        names = set(cls._param_names())
        return {k: v for k, v in table.items() if k in names}

    def _get_params(self) -> dict:
        """The constructor arguments, as stored (``{name: value}`` in signature order)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def get_params(self, deep: bool = True) -> dict:
        """The constructor arguments (what ``__init__`` stored); ``deep`` (scikit-learn's
        convention) adds ``name__sub`` entries for arguments that are themselves :class:`Base`."""
        params = dict(self._get_params())
        if deep:
            for name, value in list(params.items()):
                if isinstance(value, Base):
                    params.update({f"{name}__{k}": v for k, v in value.get_params().items()})
        return params

    def clone(self, **new_params):
        """A fresh, unfitted learner with the same parameters (deep-copied), some replaced."""
        params = self._get_params()
        unknown = set(new_params) - set(params)
        if unknown:
            raise TypeError(f"{type(self).__name__}.clone() got unknown parameter(s) {sorted(unknown)}; "
                            f"known: {', '.join(params)}")
        params = copy.deepcopy(params)
        params.update(new_params)
        return type(self)(**params)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._get_params().items())
        return f"{type(self).__name__}({args})"

    def _validate_params(self) -> None:
        """Check every constructor argument against the class's constraint table (the one place)."""
        for name, constraint in self._constraints().items():
            constraint(getattr(self, name), name)
        self._validate_joint()

    def _validate_joint(self) -> None:
        """Constraints tying arguments together (e.g. ``eta`` needs ``bounds``); none by default."""


# ------------------------------------------------------------------------------ the protocol's attributes
#: (public name, the private name of earlier versions, default) of each protocol attribute
_PROTOCOL = (("input_kind", "_input_kind", "features"), ("may_abstain", "_may_abstain", False),
             ("run_alignment", "_run_alignment", 1), ("convex_weights", "_convex_weights", False),
             ("min_experts", "_min_experts", 1))
_MISSING = object()


def _declared(model, name: str, legacy: str, default):
    value = getattr(model, name, _MISSING)
    if value is _MISSING:                       # a learner written for an earlier version
        value = getattr(model, legacy, default)
    return value


def input_kind_of(model) -> str:
    """What ``model`` reads as x: ``"features"`` (a point of R^d; the default) or ``"experts"`` (the
    forecasts z_t of N experts: a meta-learner). ``model`` may be a learner or its class."""
    return str(_declared(model, "input_kind", "_input_kind", "features"))


def may_abstain_of(model) -> bool:
    """Whether NaN in ``model.run``'s output is an abstention (``may_abstain``; default False: then a
    NaN or inf forecast is an error)."""
    return bool(_declared(model, "may_abstain", "_may_abstain", False))


def run_alignment_of(model) -> int:
    """``model``'s ``run_alignment`` (default 1): ``run`` over pieces whose lengths are multiples of it
    gives the numbers of one ``run`` bit for bit."""
    return int(_declared(model, "run_alignment", "_run_alignment", 1))


def label_bounds(learner):
    """The label range [A, B] ``learner`` assumes, or None: its ``label_range`` when its class declares
    one (a :class:`Wrapper`: :class:`omkl_core.Mixture` its meta-learner's ``bounds``;
    :class:`~omkl_core.preprocessing.Pipeline` its learner's; :class:`~omkl_core.preprocessing.TargetScaler`
    None, it takes labels in the target's units), else its ``bounds`` parameter (the VAW family,
    eq. (28); a meta-learner), else None."""
    if hasattr(type(learner), "label_range"):
        b = learner.label_range
    else:
        b = getattr(learner, "bounds", None)
    if b is None:
        return None
    A, B = float(b[0]), float(b[1])
    return (A, B) if math.isfinite(A) and math.isfinite(B) and A < B else None


def fresh(template):
    """A fresh copy of a learner template: ``template.clone()`` where it has one (an omkl learner: the
    same parameters, no learned state), else ``copy.deepcopy`` (the one copy rule of every wrapper)."""
    clone = getattr(template, "clone", None)
    return clone() if callable(clone) else copy.deepcopy(template)


def _is_river_model(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "river"


def check_online_learner(value, name: str, *, kind: str | None = "features", hint: str = "") -> None:
    """``value`` is a learner a wrapper can hold, or a TypeError naming ``name``: an instance (not a
    class) with ``predict_one`` and ``learn_one``, not a River model (River's read dict features: wrap
    them with :func:`omkl_core.interop.from_river`), reading ``kind`` (None: either kind; ``hint`` is
    added to the error of the wrong kind)."""
    if isinstance(value, type):
        raise TypeError(f"{name} must be a learner instance, got the class {value.__name__} "
                        f"(call it: {value.__name__}())")
    if _is_river_model(value):
        raise TypeError(f"{name} is a River model ({type(value).__name__}), which reads dict features: "
                        "wrap it with omkl_core.interop.from_river(model)")
    if not (callable(getattr(value, "predict_one", None)) and callable(getattr(value, "learn_one", None))):
        raise TypeError(f"{name} must be an online learner with predict_one(x) and learn_one(x, y), "
                        f"got {type(value).__name__}")
    if kind is not None and input_kind_of(value) != kind:
        what = "expert forecasts, not features" if kind == "features" else "features, not expert forecasts"
        raise TypeError(f"{name} ({type(value).__name__}) reads {what}{': ' + hint if hint else ''}")


#: the learner whose ``run`` is running (its stream checked once, not again by a ``super().run``)
_RUNNING = contextvars.ContextVar("omkl_running", default=None)

#: True inside :func:`marked_abstentions`: a ``run`` returns NaN where it abstains (the protocol's form)
_MARKED = contextvars.ContextVar("omkl_marked_abstentions", default=False)


@contextlib.contextmanager
def marked_abstentions():
    """Inside this block, the ``run`` of a learner that may abstain returns NaN at its abstentions
    (the array form of ``None`` that :func:`omkl_core.protocol.predict_learn` reads); outside it,
    the fallback f_t (module docstring, "What ``run`` returns")."""
    token = _MARKED.set(True)
    try:
        yield
    finally:
        _MARKED.reset(token)


def abstention_fallbacks(y, *, label_sum: float = 0.0, n_labels: int = 0, first: float = 0.0) -> np.ndarray:
    """f_t for the T steps of labels ``y`` that follow ``n_labels`` labels summing to ``label_sum``:
    the running mean of the past labels (``first`` before any), by the sequential sums of a
    per-step loop (the same numbers as :func:`omkl_core.protocol.abstention_fallback` step by step)."""
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    sums = np.cumsum(np.concatenate([[label_sum], y[:-1]]))       # sum_{s<t} y_s
    counts = n_labels + np.arange(y.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        f = sums / counts
    return np.where(counts > 0, f, float(first))


def _filled(out, y):
    """``out`` with NaN (an abstention) replaced by f_t: the running mean of ``y`` before step t
    (0.0 at the first step), along the last (time) axis."""
    if not isinstance(out, np.ndarray) or out.dtype.kind not in "fc" or not np.isnan(out).any():
        return out
    return np.where(np.isnan(out), abstention_fallbacks(np.asarray(y, dtype=np.float64).reshape(-1)), out)


class NonFiniteRun(FloatingPointError):
    """A vectorised ``run`` whose forecasts came out NaN or inf: the inputs were too large for the
    learner's float64 arithmetic. Raised with the learner's state as it was before the call."""


def _learned_state(learner, skip=()):
    """A deep copy of everything but the constructor arguments (the state a step or a run may
    change) and the attributes named in ``skip`` (kept as they are on restore), and the attributes' order."""
    names = getattr(learner, "_param_names", None)     # a learner of the protocol, not a Base: all of it is state
    params = set(names()) if callable(names) else set()
    state = {k: v for k, v in vars(learner).items() if k not in params and k not in skip}
    # kept by reference: the constructor arguments (state may refer to them; a step or a run never
    # changes them) and the array namespace (a module)
    memo = {id(v): v for k, v in vars(learner).items() if k in params or isinstance(v, types.ModuleType)}
    return copy.deepcopy(state, memo), list(vars(learner))


def _restore_state(learner, saved: dict, order: list[str]) -> None:
    """The state of :func:`_learned_state` back in place, the attributes in their former ``order``."""
    now = dict(vars(learner))
    learner.__dict__.clear()
    learner.__dict__.update({k: saved[k] if k in saved else now[k] for k in order if k in saved or k in now})


def _largest(a) -> str:
    """``"largest |entry| 1.2e+12"`` of an array-like (not of a stream of blocks: it is spent)."""
    if not (hasattr(a, "shape") or isinstance(a, (list, tuple))):
        return "a stream of blocks"
    try:
        v = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError):
        return "not an array"
    return f"largest |entry| {float(np.max(np.abs(v))):.3g}" if v.size else "empty"


def _non_finite(learner, out, X, y, name: str, t0, value=None, where_found=None) -> NonFiniteRun | None:
    """The error for forecasts ``out`` of a run that hold NaN/inf (None when they are finite, or
    when NaN is the learner's abstention, ``may_abstain``); ``value``: the bad forecast when an
    inner learner found it (``out`` then only marks its position)."""
    if may_abstain_of(learner) or not isinstance(out, np.ndarray) or out.dtype.kind not in "fc":
        return None
    bad = ~np.isfinite(out)
    if not bad.any():
        return None
    where = np.argwhere(bad)[0]
    index = int(where[-1])                              # the time axis is the last one of every run's output
    value = float(out[tuple(where)]) if value is None else value
    step = f" of step {int(t0) + index + 1}" if isinstance(t0, (int, np.integer)) else ""
    where_found = where_found or type(learner).__name__
    found = "" if where_found == type(learner).__name__ else f", found in its {where_found}.run"
    error = NonFiniteRun(
        f"{type(learner).__name__}.run: the forecast{step} is {value!r} (a non-finite forecast{found}: float64 "
        f"overflow or loss of precision in the learner's arithmetic): its inputs {name} ({_largest(X)}) and y "
        f"({_largest(y)}) are too large for it; the learner's state is as it was before this call; rescale them "
        "(omkl_core.datasets.normalise_stream, StandardScaler() | learner, TargetScaler(learner); "
        "omkl run --scale online)")
    error.index, error.value, error.where = index, value, where_found
    return error


def _checked_run(run):
    """Wrap a learner's ``run(X, y, ...)``: check the whole stream with the step loop's checks
    (:func:`~omkl_core.validation.check_stream`, the input named as ``run``'s first argument)
    before the learner's own code touches its state; and make the call atomic (DESIGN, Faults):
    when it raises, or its forecasts come out NaN/inf (:class:`NonFiniteRun`, naming the inputs and
    their size -- never a silent NaN), the learner's state is restored to what it was before."""
    if getattr(run, "_checks_stream", False):
        return run
    name = list(inspect.signature(run).parameters)[1]

    @functools.wraps(run)
    def checked(self, X, y, *args, **kwargs):
        if _RUNNING.get() is self:                    # a super().run of the same learner
            return run(self, X, y, *args, **kwargs)
        check_stream(X, y, name)
        saved, order = _learned_state(self)
        t0 = getattr(self, "t_", None)
        token = _RUNNING.set(self)
        try:
            with validated(X, y):                     # checked whole once: inner runs skip the scans
                out = run(self, X, y, *args, **kwargs)
        except NonFiniteRun as inner:                 # an inner learner's (same stream): named by this call
            _restore_state(self, saved, order)
            at = np.full(inner.index + 1, np.nan)
            raise _non_finite(self, at, X, y, name, t0, inner.value, inner.where) from None
        except BaseException:
            _restore_state(self, saved, order)
            raise
        finally:
            _RUNNING.reset(token)
        error = _non_finite(self, out, X, y, name, t0)
        if error is not None:
            _restore_state(self, saved, order)
            raise error
        if not _MARKED.get() and may_abstain_of(self):  # a user's call: the fallback, not NaN (module docstring)
            out = _filled(out, y)
        return out

    checked._checks_stream = True
    return checked


class OnlineLearner(Base, abc.ABC):
    """Base of every online learner: ``predict_one(x) -> float``, ``learn_one(x, y) -> None``,
    ``run(X, y)`` (the same loop over a stream, continuing from the current state),
    ``reset() -> self`` and the step counter ``t_`` (steps learned).

    Subclasses implement ``predict_one``, ``learn_one`` and ``_reset`` (create the empty
    learned state) and may override ``run`` with a vectorised pass with the same numbers.

    The protocol attributes (module docstring, "The extension protocol"): ``input_kind`` says
    what ``x`` is ("features": a point of R^d; "experts": forecasts z_t of N experts),
    ``may_abstain`` whether NaN in ``run``'s output is an abstention, ``run_alignment`` the piece
    length ``run`` is bit for bit over.

    Test parameters for :func:`omkl_core.checks.check_learner`: ``_unit_test_params()``
    yields keyword-argument dicts; ``_unit_test_skips`` names checks that do not apply, each
    with the reason.
    """

    #: what x is: "features" (a point of R^d) or "experts" (the forecasts z_t of N experts)
    input_kind = "features"
    #: True: the learner may abstain (``None`` of ``predict_one``; NaN in ``run`` inside the protocol)
    may_abstain = False
    #: ``run`` over pieces whose lengths are multiples of this is one ``run`` bit for bit
    run_alignment = 1
    _unit_test_skips: dict = {}

    def __init_subclass__(cls, **kwargs):
        # every ``run`` -- this one and each override -- refuses what the step loop refuses
        # (NaN/inf, |value| > MAX_MAGNITUDE, complex, strings, an empty or mis-shaped stream)
        # before it changes any state: the checks are the shared layer's, not each override's
        super().__init_subclass__(**kwargs)
        if "run" in cls.__dict__:
            cls.run = _checked_run(cls.__dict__["run"])
        _alias_protocol(cls)
        if isinstance(cls.__dict__.get("regret_bound"), dict):   # a bound declared as plain fields
            cls.regret_bound = RuleBound(**cls.__dict__["regret_bound"])

    def __init__(self):
        self.reset()

    @classmethod
    def _unit_test_params(cls):
        """Keyword arguments to test the learner with (default: the defaults)."""
        yield {}

    def reset(self):
        """Forget everything learned (the hyper-parameters are kept and re-checked); returns self."""
        self._validate_params()
        self.t_ = 0
        self._forecast = None   # what predict_one computed for learn_one to reuse (learners that keep it)
        self._reset()
        return self

    def _reset(self) -> None:
        """Create the empty learned state (after ``t_ = 0``)."""

    @abc.abstractmethod
    def predict_one(self, x) -> float:
        """The forecast of y for x, from the state after the steps learned so far."""

    @abc.abstractmethod
    def learn_one(self, x, y) -> None:
        """Learn one labelled example (returns None)."""

    def run(self, X, y):
        """Predict-then-learn over the stream (X, y), continuing from the current state.

        Every ``run`` (this one and a subclass's vectorised override) first checks the whole
        stream as the step loop checks each step (NaN/inf, values larger than
        ``validation.MAX_MAGNITUDE``, complex values, strings, an empty stream, a label per
        row): a stream the loop would refuse at some step is refused before any step is learned."""
        X = check_matrix(X, "X")
        y = check_vector(y, "y", length=X.shape[0])
        out = np.empty(X.shape[0])
        for t in range(X.shape[0]):
            p = check_forecast(self.predict_one(X[t]), f"the forecast of {type(self).__name__} at step {self.t_ + 1}")
            out[t] = np.nan if p is None else p       # NaN: an abstention (omkl_core.protocol)
            self.learn_one(X[t], float(y[t]))
        return out



class BatchLearner(Base, abc.ABC):
    """Base of the batch (``fit`` / ``predict``) models of paper 004: the same parameter,
    repr, clone and constraint machinery; the constructor checks its arguments."""

    def __init__(self):
        self._validate_params()

    @abc.abstractmethod
    def fit(self, X, y):
        """Fit on the whole sample (returns self)."""

    @abc.abstractmethod
    def predict(self, X):
        """Predictions for the rows of X."""


def _alias_protocol(cls) -> None:
    """The protocol attributes under both names for one release: a class that declares the public
    name gets the private name of earlier versions as an alias (old readers keep working); one that
    declares only the private name (a learner written for an earlier version) gets the public name,
    with a ``DeprecationWarning`` when it is defined outside ``omkl_core``."""
    for name, legacy, _default in _PROTOCOL:
        if name in cls.__dict__:
            setattr(cls, legacy, cls.__dict__[name])
        elif legacy in cls.__dict__:
            setattr(cls, name, cls.__dict__[legacy])
            if not cls.__module__.startswith("omkl_core"):
                warnings.warn(f"{cls.__name__}.{legacy} is deprecated: declare {name} (omkl_core.base, "
                              "'The extension protocol'); the old name is read until the next release",
                              DeprecationWarning, stacklevel=3)


OnlineLearner.run = _checked_run(OnlineLearner.__dict__["run"])
_alias_protocol(OnlineLearner)


class Wrapper(OnlineLearner):
    """Base of the learners that hold other learners (River's ``base.Wrapper``): the templates are
    given to ``__init__`` and never modified, the wrapper learns on fresh copies (:func:`fresh`,
    in ``_reset``), and the protocol of what it wraps is forwarded here, once:

    * ``may_abstain``: True when a wrapped learner may abstain (NaN passes through ``run``);
    * ``run_alignment``: the least common multiple of the wrapped learners' (a piece of that
      length is a piece of each);
    * ``label_range``: the label range [A, B] the wrapped learner assumes (:func:`label_bounds`).

    A subclass names its templates in ``_wrapped()`` (default: ``[self.learner]``), checks them with
    :func:`check_online_learner` (its constraint table) and overrides what it changes (a
    :class:`~omkl_core.preprocessing.TargetScaler` takes labels in the target's units:
    ``label_range = None``; a :class:`~omkl_core.Mixture` never abstains itself).
    """

    def _wrapped(self) -> list:
        """The templates of the wrapped learners (the constructor's arguments)."""
        return [self.learner]

    @property
    def may_abstain(self) -> bool:
        """True when a wrapped learner may abstain (its NaN passes through ``run``)."""
        return any(may_abstain_of(e) for e in self._wrapped())

    @property
    def run_alignment(self) -> int:
        """The lcm of the wrapped learners' ``run_alignment``."""
        return math.lcm(*(run_alignment_of(e) for e in self._wrapped()))

    @property
    def label_range(self):
        """The label range the wrapped learner assumes (:func:`label_bounds`; None with several)."""
        inner = self._wrapped()
        return label_bounds(inner[0]) if len(inner) == 1 else None


class MetaLearner(OnlineLearner):
    """Base of a meta-learner: ``x`` is the vector z_t of N experts' forecasts (``input_kind =
    "experts"``) -- the public protocol :class:`omkl_core.Mixture`, :mod:`omkl_core.regret`, the
    registry and the command line read (module docstring, "The extension protocol").

    A rule implements ``predict_one(z)`` / ``learn_one(z, y)`` (and ``_reset``; optionally a
    vectorised ``run(Z, y)``), exposes ``weights_`` (the weights the next forecast uses, (N,); None
    before N is known) and declares, beside its update:

    * ``convex_weights`` -- True when its forecast is ``<weights_, zbar_t>`` with ``weights_`` fixed before
      z_t is seen (an abstaining expert of a Mixture can then sleep);
    * ``min_experts`` -- the least N it runs with (a Mixture of fewer uses the only expert);
    * its bound: ``regret_bound`` (a :class:`~omkl_core.bounds.aggregation.RuleBound`: paper, theorem
      or equation, statement, symbols, assumptions; a dict of those fields is turned into one) and
      ``stated_bounds(Z, y, predictions, *, expert_layer=None)`` evaluating it on a run (rows
      :class:`~omkl_core.bounds.aggregation.BoundCheck`); or, when it carries none,
      ``no_bound_reason`` (the default ``stated_bounds`` returns one row saying why).

    Optional conventions: ``bounds`` = (A, B) truncates the forecasts (P000 eq. (28)) and fixes a
    Mixture's first fallback; an ``n_experts`` parameter is set to N by a Mixture.  The rules of
    :mod:`omkl_core.aggregation` derive from it.
    """

    input_kind = "experts"
    #: yhat_t = <weights_, zbar_t> with weights_ fixed before z_t (sleeping experts need it)
    convex_weights = False
    #: the least number of experts the rule runs with
    min_experts = 1
    #: the regret bound the rule carries (a RuleBound), or None
    regret_bound = None
    #: why the rule carries no bound (the row of the default ``stated_bounds``)
    no_bound_reason = "no bound is stated for this rule in papers 000-004 or beside it"

    @property
    def weights_(self):
        """The weights the next forecast uses ((N,)); None for a rule that keeps none."""
        return None

    def stated_bounds(self, Z, y, predictions, *, expert_layer=None) -> list:
        """This rule's stated bound evaluated on a run (``Z`` the forecasts as given to the rule, ``y``
        the labels, ``predictions`` the rule's forecasts; ``expert_layer`` the VAW family's
        :meth:`bound_constants`, where it has one). The default evaluates nothing: one row with
        ``no_bound_reason``, or naming the declared ``regret_bound`` a subclass does not evaluate."""
        rb = self.regret_bound
        if rb is not None:
            return [no_bound_row("-", f"{type(self).__name__}: {rb.name} ({rb.cite()}) is declared but not "
                                 "evaluated on a run (the rule has no stated_bounds)")]
        return [no_bound_row("-", f"{type(self).__name__}: {self.no_bound_reason}")]
