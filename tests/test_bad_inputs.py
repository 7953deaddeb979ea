"""Every bad input is refused, naming the argument, before any state changes (issue 35).

The probe of issue 35 as a test: every online learner of :func:`omkl_core.registry.learners`
(the 28 exported learners, ``VAWExperts`` and ``Mixture`` included) against every bad input
of :data:`CASES` -- NaN, inf and 1e300 in the input (x, z or phi) and in the label y, complex
values, strings, an empty input, a wrong length, a 2-D point, through ``predict_one``,
``learn_one`` and ``run`` -- and the unusual but valid forms (lists, ints, float32), which give
the numbers of the float64 arrays.

A bad input must raise ``ValueError``/``TypeError`` whose message names the argument (the
input: ``x``/``X``, ``z``/``Z``, ``phi``/``Phi``; the label: ``y``), and the learner's pickled
state must be the one before the call (nothing half-done). ``run`` refuses a stream exactly
when the predict_one/learn_one loop over it would refuse one of its steps, and before it
learns any step of it (the loop learns the steps before the bad one; ``run`` must not).
"""
from __future__ import annotations

import pickle
import re

import numpy as np
import pytest

from omkl_core import checks, registry

LEARNERS = registry.learners()
_INPUT = re.compile(r"(?<![A-Za-z])(x|X|z|Z|phi|Phi)(?![A-Za-z])")
_LABEL = re.compile(r"(?<![A-Za-z])y(?![A-Za-z])")
WARM = 3                                     # steps learned before a probe (the dimension is set)


def _with(a, i, value, dtype=None):
    b = np.array(a, dtype=dtype if dtype is not None else np.asarray(a).dtype)
    b.flat[i] = value
    return b


# name -> (call, what it names): call(model, X, y) with X, y the rows after the warm-up
def _p(f):
    return lambda m, X, y: m.predict_one(f(X[0]))


def _l(fx, fy):
    return lambda m, X, y: m.learn_one(fx(X[0]), fy(float(y[0])))


def _r(fX, fy):
    return lambda m, X, y: m.run(fX(X), fy(y))


_same = (lambda a: a)
CASES = {
    "predict_one x NaN": (_p(lambda x: _with(x, 0, np.nan)), _INPUT),
    "predict_one x inf": (_p(lambda x: _with(x, 0, np.inf)), _INPUT),
    "predict_one x 1e300": (_p(lambda x: _with(x, 0, 1e300)), _INPUT),
    "predict_one x complex": (_p(lambda x: x + 1j), _INPUT),
    "predict_one x strings": (_p(lambda x: np.array(["a"] * x.shape[0])), _INPUT),
    "predict_one x empty": (_p(lambda x: np.empty(0)), _INPUT),
    "predict_one x wrong length": (_p(lambda x: np.append(x, 0.1)), _INPUT),
    "predict_one x 2-D": (_p(lambda x: np.stack([x, x])), _INPUT),
    "learn_one y NaN": (_l(_same, lambda y: float("nan")), _LABEL),
    "learn_one y inf": (_l(_same, lambda y: float("inf")), _LABEL),
    "learn_one y 1e300": (_l(_same, lambda y: 1e300), _LABEL),
    "learn_one y complex": (_l(_same, lambda y: complex(y, 1.0)), _LABEL),
    "learn_one y string": (_l(_same, lambda y: "0.5"), _LABEL),
    "learn_one x 1e300": (_l(lambda x: _with(x, 0, 1e300), _same), _INPUT),
    "learn_one x NaN": (_l(lambda x: _with(x, 0, np.nan), _same), _INPUT),
    "learn_one x complex": (_l(lambda x: x + 1j, _same), _INPUT),
    "learn_one x wrong length": (_l(lambda x: np.append(x, 0.1), _same), _INPUT),
    "learn_one y None": (_l(_same, lambda y: None), _LABEL),
    "run X NaN": (_r(lambda X: _with(X, -1, np.nan), _same), _INPUT),
    "run X 1e300": (_r(lambda X: _with(X, -1, 1e300), _same), _INPUT),
    "run X inf": (_r(lambda X: _with(X, -1, -np.inf), _same), _INPUT),
    "run y NaN": (_r(_same, lambda y: _with(y, -1, np.nan)), _LABEL),
    "run y 1e300": (_r(_same, lambda y: _with(y, -1, 1e300)), _LABEL),
    "run X complex": (_r(lambda X: X + 1j, _same), _INPUT),
    "run y complex": (_r(_same, lambda y: y + 1j), _LABEL),
    "run X strings": (_r(lambda X: np.full(X.shape, "a"), _same), _INPUT),
    "run y strings": (_r(_same, lambda y: np.full(y.shape, "a")), _LABEL),
    "run y wrong length": (_r(_same, lambda y: y[:-1]), _LABEL),
    "run X 1-D": (_r(lambda X: X[:, 0].copy(), _same), _INPUT),
}


def _warm(cls):
    """A learner of ``cls`` (its first test parameters) after WARM steps, and the next rows."""
    model = cls(**next(iter(cls._unit_test_params())))
    X, y = checks.stream_for(model, T=WARM + 6)
    for t in range(WARM):
        model.predict_one(X[t])
        model.learn_one(X[t], float(y[t]))
    return model, X[WARM:].copy(), y[WARM:].copy()


_WARMED: dict = {}


def _fresh(cls):
    if cls not in _WARMED:
        model, X, y = _warm(cls)
        _WARMED[cls] = (pickle.dumps(model), X, y)
    blob, X, y = _WARMED[cls]
    return pickle.loads(blob), X.copy(), y.copy()


def probe(cls, case: str) -> str | None:
    """None when ``case`` is refused as it must be, else what went wrong."""
    call, names = CASES[case]
    model, X, y = _fresh(cls)
    before = pickle.dumps(model)
    try:
        out = call(model, X, y)
    except (ValueError, TypeError) as exc:
        if not names.search(str(exc)):
            return f"refused naming no argument: {type(exc).__name__}: {exc}"
        if pickle.dumps(model) != before:
            return f"refused ({exc}) but the state changed"
        return None
    except Exception as exc:  # noqa: BLE001
        return f"failed with {type(exc).__name__}: {exc}"
    return f"accepted (returned {np.asarray(out).ravel()[:3]!r})"


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_bad_input_is_refused_naming_it_with_the_state_kept(name, case):
    problem = probe(LEARNERS[name], case)
    assert problem is None, f"{name}: {case}: {problem}"


#: a value written into x_t between predict_one and learn_one
CHANGED = {"NaN": np.nan, "inf": -np.inf, "1e300": 1e300}


@pytest.mark.parametrize("bad", list(CHANGED))
@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_an_input_changed_after_predict_one_is_refused_by_learn_one_with_the_state_kept(name, bad):
    """Issue 44: ``learn_one`` may recognise the x_t its ``predict_one`` checked instead of checking
    it again (:class:`omkl_core.validation.Checked`: by its values, not by the object). An input
    changed in place between the two calls is therefore checked again: refused naming it, the state
    the one ``predict_one`` left."""
    model, X, y = _fresh(LEARNERS[name])
    x = X[0].copy()
    model.predict_one(x)
    before = pickle.dumps(model)
    x.flat[0] = CHANGED[bad]
    with pytest.raises((ValueError, TypeError)) as info:
        model.learn_one(x, float(y[0]))
    assert _INPUT.search(str(info.value)), f"{name}: refused naming no input: {info.value}"
    assert pickle.dumps(model) == before, f"{name}: refused ({info.value}) but the state changed"


# the unusual but valid forms: the numbers of the float64 arrays
def _predict_after(model, x, y, t=None):
    model.learn_one(x, y)
    return np.asarray(model.predict_one(np.asarray(x, dtype=np.float64)), dtype=np.float64)


VALID = {
    "predict_one x list": lambda m, X, y: (m.predict_one(X[0].tolist()), m.predict_one(X[0])),
    "predict_one x float32": lambda m, X, y: (m.predict_one(X[0].astype(np.float32)),
                                              m.predict_one(X[0].astype(np.float32).astype(np.float64))),
    "predict_one x ints": lambda m, X, y: (m.predict_one(np.sign(X[0]).astype(int)),
                                           m.predict_one(np.sign(X[0]).astype(np.float64))),
    "learn_one y int": lambda m, X, y: (_predict_after(m, X[0], 1), _predict_after(_fresh(type(m))[0], X[0], 1.0)),
    "run lists": lambda m, X, y: (m.run(X.tolist(), y.tolist()), _fresh(type(m))[0].run(X, y)),
}


@pytest.mark.parametrize("case", list(VALID))
@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_lists_ints_and_float32_give_the_numbers_of_float64_arrays(name, case):
    model, X, y = _fresh(LEARNERS[name])
    got, want = VALID[case](model, X, y)
    np.testing.assert_array_equal(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64))


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_run_on_an_empty_stream_returns_nothing_and_keeps_the_state(name):
    """The loop over no steps learns nothing: ``run`` on an empty stream returns no predictions
    (or refuses, naming X) and leaves the state as it was."""
    model, X, y = _fresh(LEARNERS[name])
    before = pickle.dumps(model)
    try:
        out = model.run(X[:0], y[:0])
    except ValueError as exc:
        assert _INPUT.search(str(exc)), f"{exc!r} names no argument"
    else:
        assert np.asarray(out).shape[-1] == 0
    assert pickle.dumps(model) == before, "run on an empty stream changed the state"


def test_noisy_kernel_ogd_refuses_a_negative_label_bound():
    """``y_max`` bounds |y_t| (paper 001 Lemma 2's gradient bound): a negative one is refused."""
    from omkl_core.noisy import NoisyKernelOGD
    params = next(iter(NoisyKernelOGD._unit_test_params()))
    with pytest.raises(ValueError, match="y_max"):
        NoisyKernelOGD(**{**params, "y_max": -1.0})


def test_river_adapter_refuses_a_missing_label_naming_y():
    pytest.importorskip("river")
    import omkl_core as ok
    from omkl_core.interop import to_river
    model = to_river(ok.OnlineRidge())
    model.learn_one({"a": 0.5}, 0.25)
    before = pickle.dumps(model.learner_)
    for bad in (None, "0.5", complex(0.5, 1.0), float("nan"), 1e300):
        with pytest.raises((TypeError, ValueError), match=r"^y\b"):
            model.learn_one({"a": 1.0}, bad)
    assert pickle.dumps(model.learner_) == before


@pytest.mark.filterwarnings("ignore:.*not normalised")
def test_a_stream_is_scanned_once_at_the_boundary_it_enters_and_a_bad_one_is_still_refused(monkeypatch):
    """``TargetScaler(Pipeline(StandardScaler(), VAW2))``: the outer ``run`` scans X whole (finite, magnitude)
    and the wrappers below it do not scan the same X again (formerly 4 more scans of it on the way down);
    the scaled features and the expert forecasts are new streams, scanned at their own boundary. A NaN is
    still refused by name, with the learner's state untouched."""
    import omkl_core as ok
    from omkl_core import validation

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(120, 3)), rng.normal(size=120)
    scanned = []
    real = validation.check_magnitude
    monkeypatch.setattr(validation, "check_magnitude", lambda A, *a, **k: (scanned.append(A), real(A, *a, **k))[1])
    model = ok.TargetScaler(ok.Pipeline(ok.StandardScaler(), ok.VAW2(m=4, dictionary=[["gaussian"], [1.0]])))
    model.run(X, y)
    assert sum(a is X for a in scanned) == 1, "X is scanned once, at the outer run"
    assert sum(getattr(a, "shape", None) == X.shape for a in scanned) == 2, "X, then the scaled features once"
    Xbad = X.copy()
    Xbad[7, 1] = np.nan
    fresh = ok.TargetScaler(ok.Pipeline(ok.StandardScaler(), ok.VAW2(m=4, dictionary=[["gaussian"], [1.0]])))
    with pytest.raises(ValueError, match=r"X contains NaN or inf"):
        fresh.run(Xbad, y)
    assert fresh.t_ == 0


@pytest.mark.parametrize("bad, message", [
    (np.array([0.1, np.nan, 0.2, np.inf]), r"^x contains NaN or inf \(first at index 1\)$"),
    (np.array([0.1, 0.2, -np.inf]), r"^x contains NaN or inf \(first at index 2\)$"),
    (np.array([0.1, 3e100, -5e100]), r"^x\[2\] = -5e\+100 is too large"),
])
def test_point_check_names_the_first_bad_entry_after_its_one_scan(bad, message):
    """Issue 54: ``check_point`` / ``check_vector`` pass a finite float64 vector after one scan
    (|x|.max() <= MAX_MAGNITUDE, false for NaN) and word an error by the full scans as before: the
    first NaN or inf by its index, else the largest entry by its index; a list is converted first."""
    from omkl_core.validation import check_point, check_vector
    with pytest.raises(ValueError, match=message):
        check_point(bad, name="x")
    with pytest.raises(ValueError, match=message):
        check_vector(list(bad), "x")
    ok = np.array([0.1, -1e100, 0.0])
    assert check_point(ok, name="x") is ok


@pytest.mark.parametrize("bad, error, message", [
    (float("nan"), ValueError, r"^y must be finite, got nan$"),
    (np.float64(-np.inf), ValueError, r"^y must be finite, got np.float64\(-inf\)$"),
    (2e100, ValueError, r"^y = 2e\+100 is too large"),
    (True, TypeError, r"^y must be a real number, got bool$"),
    ("0.5", TypeError, r"^y must be a real number, got str$"),
    (10 ** 400, ValueError, r"is too large for a float64$"),
])
def test_label_check_refuses_what_it_refused_before_its_float_fast_path(bad, error, message):
    """Issue 54: ``check_label`` takes a float (or NumPy float) on a fast path (isinstance float,
    math.isfinite, |y| <= MAX_MAGNITUDE) and refuses the same labels with the same words as before."""
    from omkl_core.validation import check_label
    with pytest.raises(error, match=message):
        check_label(bad, "y")
    assert check_label(np.float64(0.25), "y") == 0.25 and type(check_label(np.float64(0.25), "y")) is float
