"""One shared conformance check run on every public learner (River's `checks` idea).

Each learner that predicts y_t from a raw input x_t must: run through `run_online`; give the
same numbers twice from the same seed; give the same predictions from its vectorised `run`
as from the predict_one/learn_one loop; and reject NaN inputs, NaN labels and a changed
input dimension with a ValueError naming the argument -- never a silent NaN prediction.
"""
from __future__ import annotations

import numpy as np
import pytest

import omkl_core as ok

LEARNERS = {
    "VAW": lambda: ok.VAW(lam=1.0),
    "OnlineRidge": lambda: ok.OnlineRidge(a=1.0),
    "BayesianRidge": lambda: ok.BayesianRidge(a=1.0, sigma2=0.5),
    "KernelRidge": lambda: ok.KernelRidge(a=1.0, kernel=ok.kernels.Gaussian(0.7)),
    "KernelBayesianRidge": lambda: ok.KernelBayesianRidge(a=1.0, sigma2=0.5,
                                                          kernel=ok.kernels.Laplacian(1.0)),
    "VAW2": lambda: ok.VAW2(m=6, seed=3),
    "VAW2(trunc)": lambda: ok.VAW2(m=6, seed=3, truncate=True),
    "VAWEWA": lambda: ok.VAWEWA(m=6, seed=3),
    "VAWAggr": lambda: ok.VAWAggr(m=6, seed=3),
    "VAWMLProd": lambda: ok.VAWMLProd(m=6, seed=3),
    "VAWMLPoly": lambda: ok.VAWMLPoly(m=6, seed=3),
    "VAWBOA": lambda: ok.VAWBOA(m=6, seed=3),
    # seed 003 (small settings: 41 kernels, D = 4)
    "Raker": lambda: ok.Raker(m=4, eta=0.2, seed=3),
    "OMKR": lambda: ok.OMKR(eta=0.2),
    "OMKLGF": lambda: ok.OMKLGF(m=4, eta=0.2, M=4, seed=3),
    "SFGMKL": lambda: ok.SFGMKL(m=4, eta=0.2, xi=0.2, M=3, greedy_after=10, seed=3),
    "SFGMKLR": lambda: ok.SFGMKLR(m=4, eta=0.2, xi=0.2, M=3, greedy_after=10, seed=3),
}


def _stream(T=25, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(T, d)) / np.sqrt(d)
    y = np.clip(0.5 + 0.4 * np.sin(3 * X[:, 0]) + 0.05 * rng.standard_normal(T), 0, 1)
    return X, y


def _loop(model, X, y):
    return ok.run_online(model, X, y, use_run=False).predictions


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_conformance_run_online_finite_and_deterministic(name):
    X, y = _stream()
    a = ok.run_online(LEARNERS[name](), X, y)
    b = ok.run_online(LEARNERS[name](), X, y)
    assert np.all(np.isfinite(a.predictions))
    np.testing.assert_array_equal(a.predictions, b.predictions)   # same seed, same numbers


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_conformance_vectorised_run_equals_loop(name):
    X, y = _stream()
    if not callable(getattr(LEARNERS[name](), "run", None)):
        pytest.skip(f"{name} has no vectorised run")
    loop = _loop(LEARNERS[name](), X, y)
    vec = ok.run_online(LEARNERS[name](), X, y).predictions
    np.testing.assert_allclose(vec, loop, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_conformance_rejects_nan_input_and_label(name):
    X, y = _stream(T=5)
    model = LEARNERS[name]()
    model.predict_one(X[0])
    model.learn_one(X[0], float(y[0]))
    bad = X[1].copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="x|phi"):  # the argument is named
        model.predict_one(bad)
    with pytest.raises(ValueError, match="y"):
        model.learn_one(X[1], float("nan"))


@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_conformance_rejects_dimension_change(name):
    X, y = _stream(T=5, d=3)
    model = LEARNERS[name]()
    model.predict_one(X[0])
    model.learn_one(X[0], float(y[0]))
    with pytest.raises(ValueError):
        model.predict_one(np.ones(4) / 2)
