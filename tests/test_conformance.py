"""One conformance suite over every online learner that ``omkl_core`` exports.

The learners are **discovered** from ``omkl_core.__all__`` (River's ``yield_checks`` and
scikit-learn's ``parametrize_with_checks`` are the models): every exported class with
``predict_one`` and ``learn_one`` must either have test parameters -- a classmethod
``_unit_test_params()`` on the class, or an entry in :data:`TEST_PARAMS` below -- or an
entry in :data:`EXCLUDED` with the reason. A new learner that declares neither fails
``test_every_exported_learner_is_checked``.

Each learner runs every check in :data:`CHECKS`:

* ``learn_one`` returns ``None`` and does not mutate its inputs;
* a pickled learner, restored mid-stream, continues with the same predictions;
* ``reset()`` (where the learner has one) gives a learner equal to a fresh instance;
* predict-then-learn on a short stream is deterministic per seed (two fresh instances);
* the vectorised ``run`` equals the ``predict_one``/``learn_one`` loop;
* NaN inputs / labels and a changed input dimension raise a ``ValueError`` naming the argument;
* a bad value for each hyper-parameter (NaN for a number, an unknown string for an option,
  a string for a bool) raises a ``ValueError``/``TypeError`` whose message names it.

Learners on raw features (``kind="features"``) see x_t in R^d; meta-learners
(``kind="experts"``) see the expert predictions z_t in [0, 1]^N.
"""
from __future__ import annotations

import copy
import inspect
import math
import pickle

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import noisy as nz

# ----------------------------------------------------------------------------------------
# declarations
# ----------------------------------------------------------------------------------------
#: class name -> list of (id, kwargs factory, input kind). Factories, so that each check
#: gets fresh objects (kernels, losses) and nothing is shared between learners.
TEST_PARAMS = {
    "VAW": [("default", lambda: dict(lam=1.0), "features")],
    "OnlineRidge": [("a=1", lambda: dict(a=1.0), "features")],
    "BayesianRidge": [("a=1", lambda: dict(a=1.0, sigma2=0.5), "features")],
    "KernelRidge": [("gaussian", lambda: dict(a=1.0, kernel=ok.kernels.Gaussian(0.7)), "features")],
    "KernelBayesianRidge": [("laplacian", lambda: dict(a=1.0, sigma2=0.5, kernel=ok.kernels.Laplacian(1.0)), "features")],
    "BayesianAlgorithm": [("3 experts", lambda: dict(thetas=np.array([[0.2, -0.1, 0.3], [0.0, 0.5, -0.2], [0.4, 0.4, 0.0]]),
                                                     sigma2=0.5), "features")],
    "VAW2": [("m=6", lambda: dict(m=6, seed=3), "features"), ("trunc", lambda: dict(m=6, seed=3, truncate=True), "features")],
    "VAWEWA": [("m=6", lambda: dict(m=6, seed=3), "features")],
    "VAWAggr": [("m=6", lambda: dict(m=6, seed=3), "features")],
    "VAWMLProd": [("m=6", lambda: dict(m=6, seed=3), "features")],
    "VAWMLPoly": [("m=6", lambda: dict(m=6, seed=3), "features")],
    "VAWBOA": [("m=6", lambda: dict(m=6, seed=3), "features")],
    "NoisyKernelOGD": [("gaussian", lambda: dict(kernel=nz.GaussianKernel(1.0), loss=nz.SquaredLoss(), T=30, eta=0.5, p=2.0,
                                                 B_w=4.0, noise=nz.GaussianNoise(0.1), seed=2), "features")],
    "SingleCopyKernelOGD": [("polynomial", lambda: dict(kernel=nz.polynomial_kernel(2, 1.0), loss=nz.SquaredLoss(), T=30,
                                                         eta=0.5, B_w=4.0, noise=nz.GaussianNoise(0.1), seed=2), "features")],
    "VAWMeta": [("lam=1", lambda: dict(lam=1.0), "experts")],
    "EWA": [("eta=2", lambda: dict(eta=2.0), "experts")],
    "CalibratedEWA": [("default", lambda: dict(), "experts")],
    "AggregatingAlgorithm": [("default", lambda: dict(), "experts")],
    "MLProd": [("default", lambda: dict(), "experts")],
    "MLPoly": [("default", lambda: dict(), "experts")],
    "BOA": [("default", lambda: dict(), "experts")],
    # paper 003 (small settings: 41 kernels, D = 4)
    "Raker": [("m=4", lambda: dict(m=4, eta=0.2, seed=3), "features")],
    "OMKR": [("eta=0.2", lambda: dict(eta=0.2), "features")],
    "OMKLGF": [("M=4", lambda: dict(m=4, eta=0.2, M=4, seed=3), "features")],
    "SFGMKL": [("M=3", lambda: dict(m=4, eta=0.2, xi=0.2, M=3, greedy_after=10, seed=3), "features")],
    "SFGMKLR": [("M=3", lambda: dict(m=4, eta=0.2, xi=0.2, M=3, greedy_after=10, seed=3), "features")],
}

#: class name -> why the generic suite does not apply (each is covered elsewhere).
EXCLUDED = {
    "VAWExperts": "the batched expert layer: predict_one returns N forecasts, not one; "
                  "checked against the naive per-expert loop in tests/test_vaw_family.py",
}

#: (class name, parameter) -> why the generic bad-value check does not apply to it.
PARAM_SKIPS = {
    ("NoisyKernelOGD", "B_x"): "None means 'not needed'; numeric values are checked by the B_x test in test_theory_paper001",
    ("NoisyKernelOGD", "noise_seed"): "None means 'derived from seed'",
}


def _param_sets():
    out = []
    for name in sorted(n for n in ok.__all__ if inspect.isclass(getattr(ok, n))):
        cls = getattr(ok, name)
        if not (callable(getattr(cls, "predict_one", None)) and callable(getattr(cls, "learn_one", None))):
            continue
        if name in EXCLUDED:
            continue
        own = getattr(cls, "_unit_test_params", None)
        sets = own() if callable(own) else TEST_PARAMS.get(name, [])
        for pid, factory, kind in sets:
            out.append(pytest.param(cls, factory, kind, id=f"{name}[{pid}]"))
    return out


PARAMS = _param_sets()


def test_every_exported_learner_is_checked():
    """Every exported online learner has test parameters or a written exclusion."""
    missing = []
    for name in ok.__all__:
        cls = getattr(ok, name)
        if inspect.isclass(cls) and callable(getattr(cls, "predict_one", None)) and callable(getattr(cls, "learn_one", None)):
            if name not in EXCLUDED and name not in TEST_PARAMS and not callable(getattr(cls, "_unit_test_params", None)):
                missing.append(name)
    assert not missing, f"exported learners without conformance parameters or exclusion: {missing}"
    assert len(PARAMS) >= 20


# ----------------------------------------------------------------------------------------
# streams
# ----------------------------------------------------------------------------------------
def _stream(kind, T=25, d=3, seed=0):
    rng = np.random.default_rng(seed)
    if kind == "experts":                       # N = 4 expert forecasts in [0, 1]
        y = np.clip(0.5 + 0.3 * np.sin(np.arange(T) / 3.0) + 0.05 * rng.standard_normal(T), 0, 1)
        Z = np.clip(y[:, None] + rng.normal(0, [0.05, 0.1, 0.2, 0.3], size=(T, 4)), 0, 1)
        return Z, y
    X = rng.uniform(-1, 1, size=(T, d)) / np.sqrt(d)
    y = np.clip(0.5 + 0.4 * np.sin(3 * X[:, 0]) + 0.05 * rng.standard_normal(T), 0, 1)
    return X, y


def _make(cls, factory):
    return cls(**factory())


def _loop(model, X, y):
    return ok.run_online(model, X, y, use_run=False).predictions


# ----------------------------------------------------------------------------------------
# the checks
# ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("cls", "factory", "kind"), PARAMS)
def test_conformance_learn_one_returns_none_and_keeps_inputs(cls, factory, kind):
    X, y = _stream(kind, T=6)
    model = _make(cls, factory)
    for t in range(X.shape[0]):
        x = X[t].copy()
        x_before = x.copy()
        model.predict_one(x)
        assert model.learn_one(x, float(y[t])) is None
        np.testing.assert_array_equal(x, x_before)       # the input is not mutated


@pytest.mark.parametrize(("cls", "factory", "kind"), PARAMS)
def test_conformance_pickle_roundtrip_mid_stream(cls, factory, kind):
    X, y = _stream(kind, T=16)
    model = _make(cls, factory)
    for t in range(8):
        model.predict_one(X[t])
        model.learn_one(X[t], float(y[t]))
    clone = pickle.loads(pickle.dumps(model))
    a = _loop(model, X[8:], y[8:])
    b = _loop(clone, X[8:], y[8:])
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(("cls", "factory", "kind"), PARAMS)
def test_conformance_reset_equals_fresh(cls, factory, kind):
    if not callable(getattr(cls, "reset", None)):
        pytest.skip(f"{cls.__name__} has no reset(); a fresh instance is the way to start over")
    X, y = _stream(kind, T=12)
    used = _make(cls, factory)
    _loop(used, X[::-1].copy(), y[::-1].copy())          # learn something else first
    used.reset()
    np.testing.assert_array_equal(_loop(used, X, y), _loop(_make(cls, factory), X, y))


@pytest.mark.parametrize(("cls", "factory", "kind"), PARAMS)
def test_conformance_deterministic_per_seed(cls, factory, kind):
    X, y = _stream(kind)
    a = ok.run_online(_make(cls, factory), X, y)
    b = ok.run_online(_make(cls, factory), X, y)
    assert np.all(np.isfinite(a.predictions))
    np.testing.assert_array_equal(a.predictions, b.predictions)   # same seed, same numbers


@pytest.mark.parametrize(("cls", "factory", "kind"), PARAMS)
def test_conformance_vectorised_run_equals_loop(cls, factory, kind):
    if not callable(getattr(cls, "run", None)):
        pytest.skip(f"{cls.__name__} has no vectorised run")
    X, y = _stream(kind)
    loop = _loop(_make(cls, factory), X, y)
    vec = ok.run_online(_make(cls, factory), X, y).predictions
    np.testing.assert_allclose(vec, loop, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("cls", "factory", "kind"), PARAMS)
def test_conformance_rejects_nan_input_and_label(cls, factory, kind):
    X, y = _stream(kind, T=5)
    model = _make(cls, factory)
    model.predict_one(X[0])
    model.learn_one(X[0], float(y[0]))
    bad = X[1].copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match=r"\b(x|z|phi)\b"):  # the argument is named
        model.predict_one(bad)
    with pytest.raises(ValueError, match=r"\by\b"):
        model.learn_one(X[1], float("nan"))


@pytest.mark.parametrize(("cls", "factory", "kind"), PARAMS)
def test_conformance_rejects_dimension_change(cls, factory, kind):
    X, y = _stream(kind, T=5)
    model = _make(cls, factory)
    model.predict_one(X[0])
    model.learn_one(X[0], float(y[0]))
    with pytest.raises(ValueError):
        model.predict_one(np.full(X.shape[1] + 1, 0.5))


def _bad_values(default):
    """Values that no valid setting of a hyper-parameter with this default accepts."""
    if isinstance(default, bool):
        return ["yes"]
    if isinstance(default, (int, float)) and not isinstance(default, bool):
        return [math.nan]
    if isinstance(default, str):
        return ["no-such-option"]
    return []


def _hyper_parameter_cases():
    cases = []
    for p in PARAMS:
        cls, factory, kind = p.values
        sig = inspect.signature(cls.__init__)
        for name, par in sig.parameters.items():
            if name in ("self", "map") or par.kind in (par.VAR_POSITIONAL, par.VAR_KEYWORD):
                continue
            if (cls.__name__, name) in PARAM_SKIPS:
                continue
            default = factory().get(name, par.default)
            for bad in _bad_values(default):
                cases.append(pytest.param(cls, factory, name, bad, id=f"{p.id}-{name}={bad!r}"))
    return cases


@pytest.mark.parametrize(("cls", "factory", "name", "bad"), _hyper_parameter_cases())
def test_conformance_bad_hyper_parameter_is_named(cls, factory, name, bad):
    kwargs = factory()
    kwargs[name] = bad
    with pytest.raises((ValueError, TypeError)) as err:
        model = cls(**kwargs)
        # a few learners can only check an argument against the data: give them one step
        X, y = _stream(TEST_KIND[cls.__name__], T=2)
        model.predict_one(X[0])
        model.learn_one(X[0], float(y[0]))
    assert name in str(err.value), f"{cls.__name__}({name}={bad!r}) raised without naming {name}: {err.value}"


TEST_KIND = {p.values[0].__name__: p.values[2] for p in PARAMS}


def test_conformance_copy_is_independent():
    """A deep copy learns on its own (no shared mutable state with the original)."""
    X, y = _stream("features")
    a = ok.VAW2(m=6, seed=3)
    b = copy.deepcopy(a)
    _loop(a, X, y)
    np.testing.assert_array_equal(_loop(b, X, y), _loop(ok.VAW2(m=6, seed=3), X, y))
