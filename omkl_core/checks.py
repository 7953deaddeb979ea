"""The public conformance checker of online learners: :func:`check_learner`.

River's ``river.checks.check_estimator`` is the model. Each check is a small function
``check_xxx(learner, X, y)`` that raises ``AssertionError`` when the learner breaks one
convention of :class:`omkl_core.base.OnlineLearner`; :func:`yield_checks` lists them and
:func:`check_learner` runs them all, each on a fresh clone of the learner and its own read-only
copy of the test stream (:func:`run_check`), and re-raises the first failure as an
``AssertionError`` that names the check; a failed comparison names the largest difference (its
size, index and both values). When every check passes it returns a :class:`CheckReport`: the
checks that passed, one line each, and those the learner skips with their reasons.

The conventions checked:

* ``run(X, y)`` gives the predictions of the ``predict_one``/``learn_one`` loop, and it
  continues from the current state: ``run(X[:k]); run(X[k:])`` equals ``run(X)``, bit for bit
  (so a progress bar that runs a stream in chunks cannot change a result); ``t_`` counts the
  steps learned;
* ``learn_one`` returns ``None`` and does not modify its input (no learner may write into its
  input: every check's stream is read-only);
* ``predict_one`` changes no state (the same x gives the same value twice, the pickled state
  stays the same);
* a learner pickled mid-stream continues with the same predictions;
* ``reset()`` returns the learner and ``reset()`` / ``clone()`` give a learner that predicts
  as a fresh instance does; two fresh instances (same seed) give the same numbers;
* ``repr`` shows every constructor argument, and rebuilds an equal-parameter learner with
  ``eval`` (every registered learner, the feature maps, plus the learner's own module) when the arguments are plain values;
* every constructor argument has an entry in ``_parameter_constraints``, and each value that
  the entry lists as invalid makes the constructor raise ``ValueError``/``TypeError`` naming
  the argument; NaN in an input or a label raises ``ValueError`` naming it.

Test data: a learner declares what its inputs are in ``input_kind`` -- ``"features"`` (a point
x_t of R^3, |x_t| <= 1, labels in [0, 1]) or ``"experts"`` (the forecasts z_t in [0, 1]^4 of
four experts of different accuracy, labels in [0, 1]) -- its test parameters in the
classmethod ``_unit_test_params()`` (keyword-argument dicts; the checks run on each) and checks
that do not apply in ``_unit_test_skips`` (check name -> reason).

Examples
--------
>>> import numpy as np, omkl_core as ok
>>> from omkl_core.base import OnlineLearner, check_label, check_point
>>> from omkl_core.validation import Real
>>> class RunningMean(OnlineLearner):
...     '''Predicts the mean of the labels seen so far (``prior`` before the first one).'''
...     _parameter_constraints = {"prior": Real()}
...     _unit_test_skips = {"check_pickle_mid_stream": "a class made in a doctest cannot be pickled"}
...     def __init__(self, prior: float = 0.0):
...         self.prior = prior
...         super().__init__()
...     def _reset(self):
...         self.total_ = 0.0
...     def predict_one(self, x):
...         check_point(x)
...         return self.total_ / self.t_ if self.t_ else self.prior
...     def learn_one(self, x, y):
...         check_point(x)
...         self.total_ += check_label(y)
...         self.t_ += 1
>>> report = ok.checks.check_learner(RunningMean())       # raises AssertionError on a failed check
>>> print(str(report).splitlines()[0])
check_learner(RunningMean(prior=0.0)): 11 checks passed, 1 skipped
>>> RunningMean(prior=0.5)
RunningMean(prior=0.5)
"""
from __future__ import annotations

import copy
import pickle
import sys
import types
from dataclasses import dataclass

import numpy as np

from . import features as _features
from . import registry as _registry
from .backend import to_numpy
from .base import OnlineLearner, input_kind_of, marked_abstentions, may_abstain_of, run_alignment_of

__all__ = ["check_learner", "CheckReport", "yield_checks", "run_check", "stream_for"]

#: the plain types whose ``repr`` ``eval`` rebuilds
_PLAIN = (type(None), bool, int, float, str)


def stream_for(learner, T: int = 25, seed: int = 0):
    """A short test stream (X, y) of the kind ``learner`` reads (``input_kind``)."""
    rng = np.random.default_rng(seed)
    kind = input_kind_of(learner)
    if kind == "experts":                       # N = 4 expert forecasts in [0, 1]
        y = np.clip(0.5 + 0.3 * np.sin(np.arange(T) / 3.0) + 0.05 * rng.standard_normal(T), 0, 1)
        Z = np.clip(y[:, None] + rng.normal(0, [0.05, 0.1, 0.2, 0.3], size=(T, 4)), 0, 1)
        return Z, y
    if kind != "features":
        raise ValueError(f"input_kind must be 'features' or 'experts', got {kind!r}")
    d = 3
    X = rng.uniform(-1, 1, size=(T, d)) / np.sqrt(d)
    y = np.clip(0.5 + 0.4 * np.sin(3 * X[:, 0]) + 0.05 * rng.standard_normal(T), 0, 1)
    return X, y


def _loop(model, X, y):
    """Predict-then-learn with predict_one / learn_one -> the predictions."""
    out = []
    for t in range(X.shape[0]):
        out.append(np.asarray(model.predict_one(X[t]), dtype=np.float64))
        model.learn_one(X[t], float(y[t]))
    return np.stack(out, axis=-1)


def _run(model, X, y):
    """``model.run`` in the protocol's form (NaN where it abstains, as the loop's ``None``)."""
    with marked_abstentions():
        return np.asarray(to_numpy(model.run(X, y)), dtype=np.float64)


def _same_params(a: dict, b: dict) -> bool:
    """Equal parameter dicts: plain values and arrays by value, other objects by type and
    attributes (a clone holds deep copies of them)."""
    if a.keys() != b.keys():
        return False
    for k in a:
        u, v = a[k], b[k]
        if type(u) is not type(v):
            return False
        if isinstance(u, np.ndarray):
            if not np.array_equal(u, v):
                return False
        elif isinstance(u, (*_PLAIN, tuple, list)):
            if repr(u) != repr(v):
                return False
        elif hasattr(u, "__dict__") and not _same_params(vars(u), vars(v)):
            return False
    return True


def _compare(got, want, what: str, *, rtol: float = 0.0, atol: float = 0.0, labels=("got", "expected")):
    """Raise ``AssertionError`` unless ``got`` equals ``want`` (to ``rtol``/``atol``; NaN equals
    NaN), naming how many values differ and the *largest* difference: its size, its index and
    both values (NaN against a number counts as an infinite difference)."""
    a = np.asarray(got, dtype=np.float64)
    b = np.asarray(want, dtype=np.float64)
    if a.shape != b.shape:
        raise AssertionError(f"{what}: {labels[0]} has shape {a.shape}, {labels[1]} {b.shape}")
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(a - b)
        same = (a == b) | (np.isnan(a) & np.isnan(b)) | (diff <= atol + rtol * np.abs(b))
    if bool(np.all(same)):
        return
    size = np.where(same, -1.0, np.where(np.isnan(diff), np.inf, diff))
    i = np.unravel_index(int(np.argmax(size)), size.shape) if size.ndim else ()
    where = f" at index {list(map(int, i))}" if size.ndim else ""
    tol = f" (rtol={rtol:g}, atol={atol:g})" if rtol or atol else ""
    raise AssertionError(f"{what}: {int(np.count_nonzero(~same))} of {same.size} values differ{tol}; the largest "
                         f"difference is {float(size[i]):.6g}{where}: {labels[0]} {float(a[i])!r}, "
                         f"{labels[1]} {float(b[i])!r}")


def _equal(a, b, what: str):
    _compare(a, b, what)


def _readonly(a):
    """A read-only copy of ``a`` (a learner that writes into its input fails the check)."""
    c = np.array(a, dtype=np.float64, copy=True)
    c.flags.writeable = False
    return c


def _state(learner) -> dict:
    """The learner's state as pickling keeps it (``__getstate__``: scratch buffers left out; a
    class that cannot be pickled, e.g. one made in a doctest: as ``copy.deepcopy`` keeps it)."""
    try:
        return vars(pickle.loads(pickle.dumps(learner)))
    except (pickle.PicklingError, AttributeError, TypeError):
        return vars(copy.deepcopy(learner))


def _state_difference(a, b, path: str = "", _seen=None) -> str | None:
    """The first attribute (a path such as ``meta_._forecast[3]``) whose value differs between
    two states; values compared as values (arrays by content, NaN equal to NaN; objects by their
    attributes, or by their pickled bytes when they have none, e.g. a random Generator), not by
    identity."""
    seen = set() if _seen is None else _seen
    if (id(a), id(b)) in seen:                      # a cycle: compared already
        return None
    seen.add((id(a), id(b)))
    here = path or "state"
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        ok = (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape
              and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        return None if ok else here
    if type(a) is not type(b):
        return here
    if isinstance(a, dict):
        if a.keys() != b.keys():
            return f"{path}{{{', '.join(sorted(map(str, a.keys() ^ b.keys())))}}}"
        for k in a:
            d = _state_difference(a[k], b[k], f"{path}.{k}" if path else str(k), seen)
            if d:
                return d
        return None
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return here
        for i, (u, v) in enumerate(zip(a, b)):
            d = _state_difference(u, v, f"{path}[{i}]", seen)
            if d:
                return d
        return None
    if isinstance(a, float) and a != a and b != b:
        return None
    if isinstance(a, types.ModuleType) or isinstance(a, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return None if a is b else here             # a namespace (numpy, cupy) or a function: the same one
    if isinstance(a, (*_PLAIN, complex, np.generic, type)):
        return None if a == b else here
    if hasattr(a, "__dict__"):
        return _state_difference(vars(a), vars(b), path, seen)
    try:
        return None if pickle.dumps(a) == pickle.dumps(b) else here
    except Exception:  # noqa: BLE001  (not picklable: compared by ==)
        return None if a == b else here


# --------------------------------------------------------------------------- the checks
def check_run_equals_loop(learner, X, y):
    """``run(X, y)`` gives the predictions of the predict_one/learn_one loop (to 1e-9)."""
    loop = _loop(learner.clone(), X, y)
    vec = _run(learner, X, y)
    _compare(vec, loop, "run(X, y) differs from the predict_one/learn_one loop", rtol=1e-9, atol=1e-12,
             labels=("run", "loop"))


def check_run_continues_from_state(learner, X, y):
    """``run(X[:k]); run(X[k:])`` equals ``run(X)`` and ``t_`` counts every step: bit for bit
    when k is a multiple of the learner's ``run_alignment`` (default 1: any k; a block driver
    declares its block length), to 1e-9 at k = T // 2 otherwise."""
    T = X.shape[0]
    align = run_alignment_of(learner)
    whole = _run(learner.clone(), X, y)
    splits = [k for k in {T // 2, (T // 2) // align * align} if 0 < k < T]
    for k in sorted(splits):
        model = learner.clone()
        first = _run(model, X[:k], y[:k])
        assert model.t_ == k, f"t_ = {model.t_} after run on {k} steps"
        second = _run(model, X[k:], y[k:])
        assert model.t_ == T, f"t_ = {model.t_} after two runs on {T} steps in all"
        both = np.concatenate([first, second], axis=-1)
        if k % align == 0:
            _equal(both, whole, f"run(X[:{k}]); run(X[{k}:]) differs from run(X)")
        else:
            _compare(both, whole, f"run(X[:{k}]); run(X[{k}:]) differs from run(X)", rtol=1e-9, atol=1e-12,
                     labels=("two runs", "one run"))


def check_learn_one(learner, X, y):
    """``learn_one`` returns None, does not modify its input and counts the step in ``t_``."""
    for t in range(6):
        x = _readonly(X[t])
        before = x.copy()
        learner.predict_one(x)
        assert learner.learn_one(x, float(y[t])) is None, "learn_one returned a value"
        _equal(x, before, "learn_one modified its input x")
        assert learner.t_ == t + 1, f"t_ = {learner.t_} after {t + 1} learn_one calls"


def check_predict_one_keeps_state(learner, X, y):
    """``predict_one`` changes no state: on the same x it gives the same value again, and the
    pickled learner after the second call is the one after the first (a learner may cache what
    the first call computed for ``learn_one``, e.g. the node OMKL-GF draws for round t)."""
    _loop(learner, X[:5], y[:5])
    x = X[5]
    first = learner.predict_one(x)
    state = _state(learner)
    second = learner.predict_one(x)
    _compare(second, first, "predict_one(x) called twice gives two values", labels=("second", "first"))
    changed = _state_difference(_state(learner), state)
    assert changed is None, f"predict_one(x) changed the learner's state: {changed} differs after a second call"


def check_pickle_mid_stream(learner, X, y):
    """A learner pickled after 8 steps continues with the same predictions."""
    _loop(learner, X[:8], y[:8])
    twin = pickle.loads(pickle.dumps(learner))
    _equal(_loop(twin, X[8:], y[8:]), _loop(learner, X[8:], y[8:]), "the unpickled learner predicts differently")


def check_reset_equals_fresh(learner, X, y):
    """``reset()`` returns the learner, which then predicts as a fresh instance does."""
    fresh = learner.clone()
    _loop(learner, X[::-1].copy(), y[::-1].copy())           # learn something else first
    assert learner.reset() is learner, "reset() must return self"
    assert learner.t_ == 0, f"t_ = {learner.t_} after reset()"
    _equal(_loop(learner, X, y), _loop(fresh, X, y), "a reset learner differs from a fresh one")


def check_clone_equals_fresh(learner, X, y):
    """``clone()`` of a learner that has learned gives a fresh learner with equal parameters."""
    fresh = learner.clone()
    _loop(learner, X, y)
    twin = learner.clone()
    assert type(twin) is type(learner), "clone() changed the type"
    assert _same_params(twin.get_params(), learner.get_params()), "clone() changed the parameters"
    _equal(_loop(twin, X, y), _loop(fresh, X, y), "a clone of a used learner differs from a fresh one")


def check_deterministic(learner, X, y):
    """Two fresh instances (same seed) give the same, finite predictions (NaN, i.e. ``None``, only
    where a learner that declares ``may_abstain`` abstains)."""
    a = _loop(learner.clone(), X, y)
    b = _loop(learner, X, y)
    ok = np.isfinite(a) | (np.isnan(a) if may_abstain_of(learner) else False)
    assert np.all(ok), "non-finite predictions"
    _equal(a, b, "two fresh instances with the same parameters predict differently")


def check_repr(learner, X, y):
    """``repr`` shows every constructor argument and, for plain values, rebuilds the learner."""
    text = repr(learner)
    params = learner.get_params(deep=False)     # the constructor's own arguments (a nested learner shows its own)
    for name in params:
        assert f"{name}=" in text, f"repr {text!r} does not show the parameter {name}"
    plain = all(isinstance(v, _PLAIN) or (isinstance(v, tuple) and all(isinstance(e, _PLAIN) for e in v))
                for v in params.values())
    if plain:
        namespace = {**vars(sys.modules[type(learner).__module__]),
                     **{name: getattr(_features, name) for name in _features.__all__}, **_registry.learners(),
                     type(learner).__name__: type(learner)}
        twin = eval(text, namespace)  # noqa: S307  (the repr of plain values)
        assert type(twin) is type(learner) and twin.get_params(deep=False) == params, \
            f"eval(repr(learner)) = {twin!r} has other parameters"


def check_every_parameter_constrained(learner, X, y):
    """Every constructor argument has an entry in the ``_parameter_constraints`` tables."""
    missing = sorted(set(learner.get_params(deep=False)) - set(learner._constraints()))
    assert not missing, f"constructor arguments without a _parameter_constraints entry: {missing}"


def check_bad_parameters_are_named(learner, X, y):
    """Each value that a constraint lists as invalid is refused, naming the argument."""
    for name, constraint in learner._constraints().items():
        for bad in constraint.invalid():
            try:
                learner.clone(**{name: bad})
            except (ValueError, TypeError) as exc:
                assert name in str(exc), f"{name}={bad!r} raised {exc!r}, which does not name {name}"
            else:
                raise AssertionError(f"{name}={bad!r} was accepted")


def check_rejects_nan(learner, X, y):
    """NaN in an input or a label raises ValueError naming the argument (the state is kept)."""
    learner.predict_one(X[0])
    learner.learn_one(X[0], float(y[0]))
    bad = X[1].copy()
    bad[0] = np.nan
    for call in (lambda: learner.predict_one(bad), lambda: learner.learn_one(X[1], float("nan"))):
        try:
            call()
        except ValueError as exc:
            assert any(f"{n}" in str(exc) for n in ("x", "z", "phi", "y")), f"{exc!r} names no argument"
        else:
            raise AssertionError("NaN in an input or a label was accepted")


def yield_checks(learner):
    """The checks that apply to ``learner`` (those named in ``_unit_test_skips`` are left out)."""
    skips = getattr(learner, "_unit_test_skips", {})
    for check in (check_run_equals_loop, check_run_continues_from_state, check_learn_one,
                  check_predict_one_keeps_state, check_pickle_mid_stream, check_reset_equals_fresh, check_clone_equals_fresh,
                  check_deterministic, check_repr, check_every_parameter_constrained,
                  check_bad_parameters_are_named, check_rejects_nan):
        if check.__name__ not in skips:
            yield check


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check_learner` checked: the checks that passed (name, what it checks) and those
    the learner skips (name, its reason). Its text (``str`` / ``repr``) is a short report."""

    learner: str                  # repr of the learner checked
    passed: tuple                 # ((check name, its docstring's first sentence), ...)
    skipped: tuple = ()           # ((check name, reason), ...)

    def __str__(self) -> str:
        lines = [f"check_learner({self.learner}): {len(self.passed)} checks passed"
                 + (f", {len(self.skipped)} skipped" if self.skipped else "")]
        lines += [f"  passed  {what}  ({name})" for name, what in self.passed]
        lines += [f"  skipped {name}: {why}" for name, why in self.skipped]
        return "\n".join(lines)

    __repr__ = __str__


#: What each check establishes, in a few words (the report's lines; the docstrings say it in full).
_WHAT = {
    "check_run_equals_loop": "run(X, y) gives the numbers of the predict_one/learn_one loop",
    "check_run_continues_from_state": "run(X[:k]); run(X[k:]) equals run(X), and t_ counts the steps",
    "check_learn_one": "learn_one returns None, leaves its input unchanged and counts the step",
    "check_predict_one_keeps_state": "predict_one changes no state",
    "check_pickle_mid_stream": "a learner pickled mid-stream continues with the same numbers",
    "check_reset_equals_fresh": "reset() returns the learner, which then predicts as a fresh one",
    "check_clone_equals_fresh": "clone() gives a fresh learner with equal parameters",
    "check_deterministic": "two fresh instances give the same finite numbers",
    "check_repr": "repr shows every argument and rebuilds the learner",
    "check_every_parameter_constrained": "every constructor argument is constrained",
    "check_bad_parameters_are_named": "invalid arguments are refused with their name",
    "check_rejects_nan": "NaN in x or y is refused with its name",
}


def _what(check) -> str:
    if check.__name__ in _WHAT:
        return _WHAT[check.__name__]
    doc = " ".join((check.__doc__ or check.__name__).split())
    return doc.split(". ")[0].rstrip(".")


def check_learner(learner) -> CheckReport:
    """Run every check on fresh clones of ``learner``; raise ``AssertionError`` naming the first
    failed check, else return a :class:`CheckReport` saying what passed (and what the learner
    skips, with its reasons). ``learner`` is an :class:`~omkl_core.base.OnlineLearner` (it is not
    modified)."""
    if not isinstance(learner, OnlineLearner):
        raise TypeError(f"learner must be an omkl_core.base.OnlineLearner, got {type(learner).__name__}")
    X, y = stream_for(learner)
    passed = []
    for check in yield_checks(learner):
        try:
            run_check(check, learner, X, y)
        except Exception as exc:  # noqa: BLE001  (any failure is reported as the check's)
            raise AssertionError(f"{check.__name__} failed for {learner!r}: {exc}") from exc
        passed.append((check.__name__, _what(check)))
    skips = getattr(learner, "_unit_test_skips", {})
    name = repr(learner)
    return CheckReport(name if len(name) <= 100 else type(learner).__name__ + "(...)", tuple(passed),
                       tuple((k, " ".join(str(v).split())) for k, v in skips.items()))


def run_check(check, learner, X, y) -> None:
    """Run one check on a fresh clone of ``learner`` and its own read-only copy of the stream
    (X, y): no check sees what another check's learner did to its input, and a learner that
    writes into its input fails the check it does it in (NumPy refuses the write)."""
    check(learner.clone(), _readonly(X), _readonly(y))

