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
"""
from __future__ import annotations

import abc
import contextvars
import copy
import functools
import inspect
import types

import numpy as np

from .validation import check_forecast, check_label, check_matrix, check_point, check_stream, check_vector, validated

#: ``check_point(x, d=None, name="x")`` and ``check_label(y, name="y")`` are the input checks of
#: every learner (a finite point / label, or a ValueError naming the argument)
__all__ = ["Base", "OnlineLearner", "BatchLearner", "NonFiniteRun", "check_point", "check_label"]


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


#: the learner whose ``run`` is running (its stream checked once, not again by a ``super().run``)
_RUNNING = contextvars.ContextVar("omkl_running", default=None)


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
    when NaN is the learner's abstention, ``_may_abstain``); ``value``: the bad forecast when an
    inner learner found it (``out`` then only marks its position)."""
    if getattr(learner, "_may_abstain", False) or not isinstance(out, np.ndarray) or out.dtype.kind not in "fc":
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
        return out

    checked._checks_stream = True
    return checked


class OnlineLearner(Base, abc.ABC):
    """Base of every online learner: ``predict_one(x) -> float``, ``learn_one(x, y) -> None``,
    ``run(X, y)`` (the same loop over a stream, continuing from the current state),
    ``reset() -> self`` and the step counter ``t_`` (steps learned).

    Subclasses implement ``predict_one``, ``learn_one`` and ``_reset`` (create the empty
    learned state) and may override ``run`` with a vectorised pass with the same numbers.

    Test parameters for :func:`omkl_core.checks.check_learner`: ``_unit_test_params()``
    yields keyword-argument dicts; ``_input_kind`` says what ``x`` is ("features": a point of
    R^d; "experts": forecasts z_t in [0, 1]^N of N experts); ``_unit_test_skips`` names
    checks that do not apply, each with the reason.
    """

    _input_kind = "features"
    _unit_test_skips: dict = {}

    def __init_subclass__(cls, **kwargs):
        # every ``run`` -- this one and each override -- refuses what the step loop refuses
        # (NaN/inf, |value| > MAX_MAGNITUDE, complex, strings, an empty or mis-shaped stream)
        # before it changes any state: the checks are the shared layer's, not each override's
        super().__init_subclass__(**kwargs)
        if "run" in cls.__dict__:
            cls.run = _checked_run(cls.__dict__["run"])

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


OnlineLearner.run = _checked_run(OnlineLearner.__dict__["run"])
