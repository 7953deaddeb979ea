"""The GPU code path on every CI run: ``backend="cupy"`` under a strict stand-in for CuPy.

``tests/strict_cupy.py`` is installed as the ``cupy`` module and ``omkl_core.backend`` is told a
GPU is usable, so the library takes exactly the branches it takes on a GPU. The stand-in's
arrays refuse implicit conversion to NumPy and mixing with host arrays, as CuPy's do, so a
NumPy-only call or a hidden host transfer on that path fails here; since it computes with NumPy
underneath, every result must equal the NumPy backend's. (The real-GPU tests, marked ``gpu``,
still run only where CuPy finds a device.)
"""
from __future__ import annotations

import sys

import numpy as np
import pytest
import strict_cupy  # tests/strict_cupy.py (pytest puts tests/ on sys.path)

import omkl_core as ok
from omkl_core import backend, features, mkl
from omkl_core.vaw import VAW, VAWExperts

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp


@pytest.fixture
def xp(monkeypatch):
    mod = strict_cupy.module()
    monkeypatch.setitem(sys.modules, "cupy", mod)
    monkeypatch.setattr(backend, "_cupy_usable", True)
    return mod


def _stream(T=70, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(T, d))
    X /= np.linalg.norm(X, axis=1).max()
    return X, rng.uniform(0, 1, size=T)


# --------------------------------------------------------------- the stand-in is strict
def test_stand_in_refuses_implicit_host_conversion(xp):
    a = xp.arange(4, dtype=xp.float64)
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(a)
    with pytest.raises(TypeError, match="ufunc"):
        np.sqrt(a)                                   # a NumPy ufunc on a device array
    with pytest.raises(TypeError, match="device array"):
        np.concatenate([a, a])                       # a NumPy function on a device array
    with pytest.raises(TypeError, match="host numpy.ndarray"):
        a + np.ones(4)                               # hidden host -> device transfer
    with pytest.raises(TypeError, match="host numpy.ndarray"):
        a[:2] = np.zeros(2)
    with pytest.raises(TypeError, match="host numpy.ndarray"):
        xp.matmul(a, np.ones(4))
    assert float(xp.sum(a)) == 6.0 and isinstance(a * 2.0, xp.ndarray)
    np.testing.assert_array_equal(backend.to_numpy(a), [0.0, 1.0, 2.0, 3.0])   # the explicit copy


def test_namespace_selection_takes_the_gpu_branch(xp):
    assert backend.get_namespace("cupy") is xp
    assert backend.get_namespace("auto") is xp
    assert backend.cupy_available()
    a = backend.asarray(np.arange(3.0), xp)
    assert isinstance(a, xp.ndarray)


# ------------------------------------------------------------------ features on the device
@pytest.mark.parametrize("feature_map", ["cos", "sincos"])
def test_dictionary_features_on_device_equal_numpy(xp, feature_map):
    X, _ = _stream()
    host = features.paper000_dictionary(3, m=6, seed=2, feature_map=feature_map)
    dev = features.paper000_dictionary(3, m=6, seed=2, feature_map=feature_map, backend="cupy")
    Z = dev.transform(X)
    assert isinstance(Z, xp.ndarray)                 # computed on the device, not on the host
    # the host's reference arithmetic (NumPy's products and np.cos: the strict namespace wraps NumPy);
    # the compiled projection and the fast cosine agree with it to rounding (tests/test_features.py)
    with ok.compiled.engine("numpy"), ok.cosine.using("numpy"):
        np.testing.assert_array_equal(backend.to_numpy(Z), host.transform(X))
        # exact: one point is a batch of one row on both backends (the same matmul of the same shapes, then
        # the same add), not a matrix-vector product on one of them, whose rounding is the BLAS kernel's
        np.testing.assert_array_equal(backend.to_numpy(dev.transform(X[0])), host.transform(X[0]))
        rff = features.RandomFourierFeatures(kind="laplacian", sigma=0.7, d=3, m=5, seed=1, backend="cupy")
        ref = features.RandomFourierFeatures(kind="laplacian", sigma=0.7, d=3, m=5, seed=1)
        np.testing.assert_array_equal(backend.to_numpy(rff.transform(X)), ref.transform(X))
        assert rff.kernel_estimate(X[0], X[1]) == ref.kernel_estimate(X[0], X[1])


# ---------------------------------------------------------------- the VAW expert layer
@pytest.mark.parametrize("method", ["block", "sm"])
@pytest.mark.parametrize("ridge", [False, True])
def test_expert_layer_on_device_equals_numpy(xp, method, ridge):
    rng = np.random.default_rng(3)
    Phi, y = rng.standard_normal((2, 3, 37, 5)), rng.uniform(size=37)
    host = VAWExperts(lam=0.5, ridge=ridge, method=method, block_size=8)
    dev = VAWExperts(lam=0.5, ridge=ridge, method=method, block_size=8, backend="cupy")
    Zh = host.run(Phi, y)
    Zd = dev.run(xp.asarray(Phi), y)                 # device features, host labels
    assert isinstance(Zd, np.ndarray)                # run() returns host predictions
    np.testing.assert_allclose(Zd, Zh, rtol=0, atol=1e-13)
    assert isinstance(dev.P_, xp.ndarray)            # the state stays on the device
    np.testing.assert_allclose(backend.to_numpy(dev.P_), host.P_, rtol=0, atol=1e-13)
    # River-style steps continue from the same state on both sides
    phi = rng.standard_normal((2, 3, 5))
    np.testing.assert_allclose(dev.predict_one(xp.asarray(phi)), host.predict_one(phi), atol=1e-13)
    dev.learn_one(xp.asarray(phi), 0.3)
    host.learn_one(phi, 0.3)
    np.testing.assert_allclose(backend.to_numpy(dev.w_), host.w_, atol=1e-13)


def test_single_vaw_on_device(xp):
    X, y = _stream(T=25, d=4)
    a, b = VAW(lam=1.0), VAW(lam=1.0, backend="cupy")
    for x_t, y_t in zip(X, y):
        assert b.predict_one(x_t) == pytest.approx(a.predict_one(x_t), abs=1e-13)
        a.learn_one(x_t, float(y_t))
        b.learn_one(x_t, float(y_t))
    np.testing.assert_allclose(b.weights_for(X[0]), a.weights_for(X[0]), atol=1e-13)


# -------------------------------------------------------------- the whole VAW2 family
def test_expert_predictions_on_device_equal_numpy(xp):
    X, y = _stream(T=60)
    Zh = mkl.expert_predictions(X, y, m=6, repetitions=2, seed=1, time_block=16)
    Zd = mkl.expert_predictions(X, y, m=6, repetitions=2, seed=1, time_block=16, backend="cupy")
    np.testing.assert_allclose(Zd, Zh, rtol=0, atol=1e-12)


@pytest.mark.parametrize("cls", [ok.VAW2, ok.VAWEWA, ok.VAWBOA])
def test_learner_on_device_equals_numpy(xp, cls):
    X, y = _stream(T=40)
    host, dev = cls(m=6, seed=4), cls(m=6, seed=4, backend="cupy")
    np.testing.assert_allclose(dev.run(X, y), host.run(X, y), rtol=0, atol=1e-12)
    # the per-step protocol on the device as well
    h2, d2 = cls(m=6, seed=4), cls(m=6, seed=4, backend="cupy")
    th = ok.run_online(h2, X[:12], y[:12], use_run=False)
    td = ok.run_online(d2, X[:12], y[:12], use_run=False)
    np.testing.assert_allclose(td.predictions, th.predictions, rtol=0, atol=1e-12)


def test_expert_state_survives_pickling_as_one_piece():
    """The block driver keeps [S^{-1} | w] in one array with views into it; a pickled and
    restored layer must go on updating the same memory that P_ and w_ show."""
    import pickle

    rng = np.random.default_rng(5)
    Phi, y = rng.standard_normal((3, 40, 4)), rng.uniform(size=40)
    for method in ("block", "sm"):
        a = VAWExperts(lam=1.0, method=method, block_size=8)
        a.run(Phi[:, :20], y[:20])
        b = pickle.loads(pickle.dumps(a))
        np.testing.assert_array_equal(a.run(Phi[:, 20:], y[20:]), b.run(Phi[:, 20:], y[20:]))
        np.testing.assert_array_equal(b.P_, a.P_)
        np.testing.assert_array_equal(b.w_, a.w_)
        assert b.t_ == 40
