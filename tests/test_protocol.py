"""The online protocol (run_online, Trace) and the backend helpers."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import omkl_core as ok
from omkl_core.backend import get_namespace, host_rng, to_numpy

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp


class RunningMean:
    """Trivial learner: predicts the mean of the labels seen so far (0 before any)."""

    def __init__(self):
        self.n_ = 0
        self.total_ = 0.0

    def predict_one(self, x):
        return self.total_ / self.n_ if self.n_ else 0.0

    def learn_one(self, x, y):
        self.n_ += 1
        self.total_ += y


class RunningMeanVectorised(RunningMean):
    def run(self, X, y):
        c = np.concatenate([[0.0], np.cumsum(y)[:-1]])
        n = np.arange(len(y))
        return np.divide(c, n, out=np.zeros_like(c), where=n > 0)


def test_run_online_predict_then_learn():
    X = np.zeros((4, 2))
    y = np.array([1.0, 3.0, 2.0, 6.0])
    tr = ok.run_online(RunningMean(), X, y)
    np.testing.assert_allclose(tr.predictions, [0.0, 1.0, 2.0, 2.0])   # never sees y_t before predicting
    np.testing.assert_allclose(tr.losses, [1.0, 4.0, 0.0, 16.0])
    np.testing.assert_allclose(tr.mse_curve, [1.0, 2.5, 5 / 3, 21 / 4])
    assert tr.mse == pytest.approx(21 / 4) and tr.seconds >= 0


finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@given(y=arrays(np.float64, st.integers(1, 50), elements=finite))
def test_run_online_vectorised_run_equals_loop(y):
    X = np.zeros((len(y), 3))
    a = ok.run_online(RunningMean(), X, y)
    b = ok.run_online(RunningMeanVectorised(), X, y)
    np.testing.assert_allclose(b.predictions, a.predictions, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(a.mse_curve, np.cumsum(a.losses) / np.arange(1, len(y) + 1))


def test_run_online_progress_bar_runs():
    tr = ok.run_online(RunningMean(), np.zeros((5, 1)), np.ones(5), progress=True)
    assert tr.predictions.shape == (5,)


def _exported_learners():
    import inspect  # noqa: PLC0415

    from omkl_core.base import OnlineLearner  # noqa: PLC0415
    out = []
    for name in sorted(ok.__all__):
        obj = getattr(ok, name)
        if inspect.isclass(obj) and issubclass(obj, OnlineLearner) and obj is not OnlineLearner:
            out.append(pytest.param(obj, id=name))
    return out


@pytest.mark.parametrize("cls", _exported_learners())
def test_run_online_progress_gives_the_same_numbers_for_every_learner(cls, monkeypatch):
    """``progress=True`` runs the stream in chunks (``run`` continues from the state): the
    predictions are bit for bit those of ``progress=False``. Chunks of 4 steps (PROGRESS_CHUNK
    patched) give many chunk boundaries on a short stream; a block driver's chunks are rounded
    up to its ``run_alignment``."""
    monkeypatch.setattr(ok.protocol, "PROGRESS_CHUNK", 4)
    model = cls(**next(iter(cls._unit_test_params())))
    X, y = ok.checks.stream_for(model, T=37)
    quiet = ok.run_online(model.clone(), X, y).predictions
    shown = ok.run_online(model, X, y, progress=True).predictions
    np.testing.assert_array_equal(shown, quiet)
    assert model.t_ == 37


@pytest.mark.parametrize("cls", [ok.Raker, ok.SFGMKL, ok.OMKLGF, ok.SFGMKLR])
def test_random_feature_learners_continue_from_state(cls):
    """Issue 20: ``run`` twice on 300 steps leaves t_ = 600 and gives the predictions of one run
    on 600 steps; ``run_online(progress=True)`` (chunks of 256) then equals ``progress=False``."""
    X, y = ok.datasets.load("airfoil")
    X, y = X[:600], y[:600]
    whole = cls(m=5, eta=0.1, seed=0).run(X, y)
    model = cls(m=5, eta=0.1, seed=0)
    halves = np.concatenate([model.run(X[:300], y[:300]), model.run(X[300:], y[300:])])
    assert model.t_ == 600
    np.testing.assert_array_equal(halves, whole)
    shown = ok.run_online(cls(m=5, eta=0.1, seed=0), X, y, progress=True).predictions
    np.testing.assert_array_equal(shown, whole)
    # run_repetitions is the separate fresh start: it forgets the state
    P = model.run_repetitions(X[:50], y[:50], 2)
    assert P.shape == (2, 50) and model.t_ == 50 and model.n_repetitions_ == 2
    with pytest.raises(ValueError, match="repetitions"):
        model.run(X[:5], y[:5])


@pytest.mark.parametrize("X,y,match", [
    (np.zeros(5), np.zeros(5), "X must be 2-D"),
    (np.zeros((5, 2)), np.zeros((5, 1)), "y must be 1-D"),
    (np.zeros((5, 2)), np.zeros(4), "length"),
    (np.array([[0.0], [np.nan]]), np.zeros(2), "X contains NaN"),
    (np.zeros((2, 1)), np.array([0.0, np.inf]), "y contains NaN"),
    (np.zeros((0, 2)), np.zeros(0), "non-empty"),
])
def test_run_online_bad_input(X, y, match):
    with pytest.raises(ValueError, match=match):
        ok.run_online(RunningMean(), X, y)


def test_run_online_rejects_non_learner_and_nan_predictions():
    with pytest.raises(TypeError, match="predict_one"):
        ok.run_online(object(), np.zeros((2, 1)), np.zeros(2))

    class Bad(RunningMean):
        def predict_one(self, x):
            return float("nan")

    with pytest.raises(FloatingPointError, match="non-finite"):
        ok.run_online(Bad(), np.zeros((2, 1)), np.zeros(2))


def test_backend_numpy_and_auto_fallback():
    assert get_namespace("numpy") is np
    xp = get_namespace("auto")              # CuPy only when a GPU is usable, else NumPy
    assert xp.__name__ in ("numpy", "cupy")
    with pytest.raises(ValueError, match="backend"):
        get_namespace("torch")
    np.testing.assert_array_equal(to_numpy(xp.asarray([1.0, 2.0])), [1.0, 2.0])


def test_backend_cupy_without_gpu_raises_clearly():
    if ok.backend.cupy_available():
        pytest.skip("a GPU is usable here")
    with pytest.raises(RuntimeError, match="GPU"):
        get_namespace("cupy")


def test_host_rng_is_seeded():
    assert host_rng(5).standard_normal() == host_rng(5).standard_normal()
    g = np.random.default_rng(1)
    assert host_rng(g) is g
    with pytest.raises(TypeError, match="seed"):
        host_rng("1")
    with pytest.raises(ValueError, match="seed"):
        host_rng(-1)


@pytest.mark.gpu
def test_cupy_namespace_roundtrip():
    cp = get_namespace("cupy")
    a = cp.arange(3, dtype=cp.float64)
    np.testing.assert_array_equal(to_numpy(a), [0.0, 1.0, 2.0])
