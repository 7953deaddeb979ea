"""Conformance of the batch (fit/predict) models, discovered from ``omkl_core.PAPER004_EXPORTS``.

Every exported class with ``fit`` and ``predict`` must: give bit-identical results when fitted
twice; survive a pickling round trip (same predictions); leave its inputs unchanged; keep its
constructor keyword-only and store the arguments as given; and reject NaN in X, NaN in y, a
wrong y length and a changed feature count at predict with a ValueError naming the argument.
A new fit/predict export without an entry in ``CASES`` fails ``test_every_batch_model_has_a_case``.
"""
from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest

import omkl_core as ok

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp


def _regression(n=40, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return X, X[:, 0] - 0.5 * X[:, 1] + 0.1 * rng.standard_normal(n)


def _classification(n=40, d=4, seed=0):
    X, y = _regression(n, d, seed)
    return X, np.where(y > 0, 1.0, -1.0)


def _pm1_dictionary(n=40, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.choice([-1.0, 1.0], size=(n, d))
    return X, X[:, 0] * np.where(rng.random(n) < 0.85, 1.0, -1.0)


# name -> (constructor kwargs, data factory)
CASES = {
    "AdaBoost": ({"n_rounds": 8}, _classification),
    "AdaBoost(columns)": ({"n_rounds": 8, "weak_learner": "columns"}, _pm1_dictionary),
    "GradientBoosting": ({"n_rounds": 8}, _regression),
    "GradientBoosting(logistic)": ({"n_rounds": 8, "loss": "logistic", "learning_rate": 0.5}, _classification),
    "GradientBoosting(columns)": ({"n_rounds": 8, "weak_learner": "columns"}, _regression),
    "Lasso": ({"lam": 0.5}, _regression),
    "ConstrainedLasso": ({"A": 0.8}, _regression),
    "BestSubset": ({"penalty": 0.01, "max_size": 2}, _regression),
}


def _batch_models():
    out = []
    for name in ok.PAPER004_EXPORTS:
        obj = getattr(ok, name)
        if inspect.isclass(obj) and callable(getattr(obj, "fit", None)) and callable(getattr(obj, "predict", None)):
            out.append(name)
    return out


def _make(case):
    kwargs, data = CASES[case]
    return getattr(ok, case.split("(")[0])(**kwargs), data()


def test_every_batch_model_has_a_case():
    models = _batch_models()
    assert models, "PAPER004_EXPORTS lists no fit/predict model"
    covered = {c.split("(")[0] for c in CASES}
    missing = sorted(set(models) - covered)
    assert not missing, f"batch models without a conformance case: {missing}"


@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_deterministic(case):
    m1, (X, y) = _make(case)
    m2, _ = _make(case)
    np.testing.assert_array_equal(m1.fit(X, y).predict(X), m2.fit(X, y).predict(X))
    assert np.all(np.isfinite(m1.predict(X)))


@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_pickle_round_trip(case):
    m, (X, y) = _make(case)
    m.fit(X, y)
    m2 = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(m2.predict(X), m.predict(X))
    fresh = pickle.loads(pickle.dumps(_make(case)[0]))                # unfitted too
    np.testing.assert_array_equal(fresh.fit(X, y).predict(X), m.predict(X))


@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_fit_does_not_mutate_inputs(case):
    m, (X, y) = _make(case)
    X0, y0 = X.copy(), y.copy()
    m.fit(X, y)
    m.predict(X)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_keyword_only_constructor_stores_arguments(case):
    kwargs, _ = CASES[case]
    cls = getattr(ok, case.split("(")[0])
    params = inspect.signature(cls.__init__).parameters
    assert all(p.kind == p.KEYWORD_ONLY for n, p in params.items() if n != "self")
    assert set(params) - {"self"} == set(cls._parameter_constraints), "every argument has a declared check"
    m = cls(**kwargs)
    for k, v in kwargs.items():
        assert getattr(m, k) is v
    assert not [a for a in vars(m) if a.endswith("_")], "constructor must not set learned attributes"


@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_errors_name_the_argument(case):
    m, (X, y) = _make(case)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        m.fit(Xn, y)
    yn = y.copy()
    yn[2] = np.nan
    with pytest.raises(ValueError, match="y"):
        m.fit(X, yn)
    with pytest.raises(ValueError, match="y"):
        m.fit(X, y[:-1])
    with pytest.raises(ValueError, match="not fitted"):
        _make(case)[0].predict(X)
    m.fit(X, y)
    with pytest.raises(ValueError, match="X"):
        m.predict(X[:, :-1])
    with pytest.raises(ValueError, match="X"):
        m.predict(Xn)


@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_bad_hyperparameter_named(case):
    """A NaN for any declared hyper-parameter is refused at construction, naming it."""
    cls = getattr(ok, case.split("(")[0])
    for name in cls._parameter_constraints:
        with pytest.raises((ValueError, TypeError), match=name):
            cls(**{name: float("nan")})


@pytest.mark.parametrize("case", sorted(CASES))
def test_batch_repr_clone_and_constraints_follow_the_base(case):
    """The batch models share :class:`omkl_core.base.BatchLearner`'s conventions with the online
    learners: a repr of every argument that ``eval`` turns back into the model, ``clone`` with
    equal parameters and no fitted state, and each invalid value of the constraint tables
    refused naming the argument (the checks of :mod:`omkl_core.checks` that need no stream)."""
    m, (X, y) = _make(case)
    assert isinstance(m, ok.BatchLearner)
    for check in (ok.checks.check_repr, ok.checks.check_every_parameter_constrained,
                  ok.checks.check_bad_parameters_are_named):
        check(m, X, y)
    m.fit(X, y)
    twin = m.clone()
    assert twin.get_params() == m.get_params() and not [a for a in vars(twin) if a.endswith("_")]
