"""The VAW expert layer (paper 000 eqs. 9-10): compiled (Numba) vs NumPy engine, the
"Numba missing" fallback, and the one-pass VAW + online-ridge driver (``run_both``)."""
from __future__ import annotations

import builtins

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import omkl_core as ok
from omkl_core import compiled, mkl
from omkl_core import vaw as vaw_mod
from omkl_core.vaw import VAWExperts, naive_expert_layer

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp

seeds = st.integers(0, 2**32 - 1)
lams = st.floats(min_value=0.05, max_value=20.0, allow_nan=False, allow_infinity=False)
needs_numba = pytest.mark.skipif(not compiled.numba_available(),
                                 reason="Numba is not installed (the optional omkl[fast] extra)")


def _stream(seed, batch, T, m, scale=1.5):
    rng = np.random.default_rng(seed)
    return rng.uniform(-scale, scale, size=batch + (T, m)), rng.uniform(-1, 1, size=T)


@needs_numba
@given(seed=seeds, R=st.integers(1, 3), N=st.integers(1, 5), T=st.integers(1, 45),
       m=st.integers(1, 9), lam=lams, ridge=st.booleans(), method=st.sampled_from(["sm", "block"]),
       block_size=st.integers(1, 20))
@settings(max_examples=40)
def test_numba_engine_equals_numpy_engine_and_the_naive_loop(seed, R, N, T, m, lam, ridge, method,
                                                            block_size):
    """Both engines run the same recursion (10); they agree to rounding (1e-10) with each
    other and with one VAW per expert."""
    Phi, y = _stream(seed, (R, N), T, m)
    with compiled.engine("numpy"):
        a = VAWExperts(lam=lam, ridge=ridge, method=method, block_size=block_size).run(Phi, y)
    with compiled.engine("numba"):
        b = VAWExperts(lam=lam, ridge=ridge, method=method, block_size=block_size).run(Phi, y)
    np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(b, naive_expert_layer(Phi, y, lam=lam, ridge=ridge), rtol=1e-10, atol=1e-10)


@needs_numba
@given(seed=seeds, T=st.integers(2, 60), cut=st.integers(1, 59), method=st.sampled_from(["sm", "block"]))
@settings(max_examples=20)
def test_numba_engine_continues_the_state_across_blocks_and_engines(seed, T, cut, method):
    """The compiled loops read and write the learner's state: a run split in time blocks,
    half on each engine, equals one run."""
    cut = min(cut, T - 1)
    Phi, y = _stream(seed, (2, 3), T, 5)
    whole = VAWExperts(method=method).run(Phi, y)
    mixed = VAWExperts(method=method)
    with compiled.engine("numba"):
        first = mixed.run(Phi[..., :cut, :], y[:cut])
    with compiled.engine("numpy"):
        rest = mixed.run(Phi[..., cut:, :], y[cut:])
    np.testing.assert_allclose(np.concatenate([first, rest], -1), whole, rtol=1e-10, atol=1e-12)
    assert mixed.t_ == T
    np.testing.assert_allclose(mixed.P_, np.swapaxes(mixed.P_, -1, -2), rtol=1e-10, atol=1e-12)


def test_without_numba_auto_runs_numpy_and_numba_engine_raises(monkeypatch):
    """Simulated "Numba missing": ``import numba`` fails; the default engine ("auto") then
    runs the NumPy loops (the compiled kernels are never called) with the same numbers as
    engine "numpy", and asking for engine "numba" is a clear ImportError."""
    real_import = builtins.__import__

    def no_numba(name, *args, **kwargs):
        if name == "numba" or name.startswith("numba."):
            raise ImportError("No module named 'numba' (simulated)")
        return real_import(name, *args, **kwargs)

    def must_not_run(*args):
        raise AssertionError("a compiled kernel ran although Numba is missing")

    Phi, y = _stream(3, (2, 4), 30, 6)
    with compiled.engine("numpy"):
        ref = {meth: VAWExperts(method=meth, block_size=7).run(Phi, y) for meth in ("sm", "block")}
    monkeypatch.setattr(builtins, "__import__", no_numba)
    monkeypatch.setattr(compiled, "_numba_ok", None)          # probe again, under the failing import
    monkeypatch.setattr(vaw_mod.kernels, "_sm_kernel", must_not_run)
    assert not compiled.numba_available()
    with compiled.engine("auto"):
        assert not compiled.use_numba()
        for meth in ("sm", "block"):
            np.testing.assert_array_equal(VAWExperts(method=meth, block_size=7).run(Phi, y), ref[meth])
    with compiled.engine("numba"), pytest.raises(ImportError, match="Numba is not installed"):
        VAWExperts().run(Phi, y)


# ------------------------------------------------------------- one pass: VAW and ridge
@pytest.mark.parametrize("engine", ["numpy", pytest.param("numba", marks=needs_numba)])
@given(seed=seeds, R=st.integers(1, 2), N=st.integers(1, 4), T=st.integers(1, 40),
       m=st.integers(1, 8), lam=lams, method=st.sampled_from(["sm", "block"]), block_size=st.integers(1, 20))
@settings(max_examples=25)
def test_run_both_equals_the_separate_vaw_and_ridge_passes_bit_for_bit(engine, seed, R, N, T, m, lam,
                                                                        method, block_size):
    """Paper 000 eqs. (9)-(10): the VAW forecast is the ridge forecast r divided by
    1 + Phi_t^T S_{t-1}^{-1} Phi_t and the state recursion is the same, so one pass gives both;
    each equals its separate pass exactly (same engine, method and block size) and the
    per-expert reference loop to rounding."""
    Phi, y = _stream(seed, (R, N), T, m)
    kw = dict(lam=lam, method=method, block_size=block_size)
    with compiled.engine(engine):
        zv, zr = VAWExperts(**kw).run_both(Phi, y)
        np.testing.assert_array_equal(zv, VAWExperts(ridge=False, **kw).run(Phi, y))
        np.testing.assert_array_equal(zr, VAWExperts(ridge=True, **kw).run(Phi, y))
        zv2, zr2 = VAWExperts(ridge=True, **kw).run_both(Phi, y)      # the flag does not matter
    np.testing.assert_array_equal(zv2, zv)
    np.testing.assert_array_equal(zr2, zr)
    np.testing.assert_allclose(zv, naive_expert_layer(Phi, y, lam=lam), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(zr, naive_expert_layer(Phi, y, lam=lam, ridge=True), rtol=1e-10, atol=1e-10)


@given(seed=seeds, T=st.integers(1, 30), m=st.integers(1, 6), lam=lams)
@settings(max_examples=25)
def test_vaw_forecast_is_ridge_forecast_over_one_plus_phi_S_inverse_phi(seed, T, m, lam):
    """The relation run_both rests on, from the naive layer alone: z_VAW = z_ridge / (1 + s_t),
    s_t = Phi_t^T S_{t-1}^{-1} Phi_t with S_{t-1} = lam I + sum_{i<t} Phi_i Phi_i^T (eq. 9)."""
    Phi, y = _stream(seed, (), T, m)
    zv = naive_expert_layer(Phi, y, lam=lam)
    zr = naive_expert_layer(Phi, y, lam=lam, ridge=True)
    s = np.array([Phi[t] @ np.linalg.solve(lam * np.eye(m) + Phi[:t].T @ Phi[:t], Phi[t]) for t in range(T)])
    np.testing.assert_allclose(zv, zr / (1.0 + s), rtol=1e-9, atol=1e-12)


def test_expert_predictions_both_equals_the_two_calls_bit_for_bit():
    X, y = ok.datasets.load("concrete")
    X, y = X[:90], y[:90]
    for fmap in ("cos", "sincos"):
        kw = dict(m=7, repetitions=2, seed=3, feature_map=fmap)
        zv, zr = mkl.expert_predictions(X, y, both=True, **kw)
        np.testing.assert_array_equal(zv, mkl.expert_predictions(X, y, **kw))
        np.testing.assert_array_equal(zr, mkl.expert_predictions(X, y, ridge=True, **kw))
        assert zv.shape == zr.shape == (2, 90, 76)
    with pytest.raises(ValueError, match="ridge=False"):
        mkl.expert_predictions(X, y, m=3, repetitions=1, both=True, ridge=True)
    with pytest.raises(TypeError, match="both"):
        mkl.expert_predictions(X, y, m=3, repetitions=1, both="yes")


# ------------------------------------------------------- issue 25: the block size grows with m
@pytest.mark.parametrize("engine", ["numpy", pytest.param("numba", marks=needs_numba)])
def test_default_block_of_32_steps_from_m_320_keeps_the_numbers(engine):
    """From m = 320 features on the block driver takes 32 steps per Woodbury block (16 below):
    the default is exactly block_size=32 there, the predictions stay those of the per-step
    Sherman-Morrison recursion (eq. 10) to rounding, and ``run`` over pieces whose lengths are
    multiples of ``run_alignment`` gives one run's numbers bit for bit."""
    assert vaw_mod.default_block_size(319) == 16 and vaw_mod.default_block_size(320) == 32
    assert VAWExperts(method="block").run_alignment % 32 == 0 and mkl.VAW2().run_alignment % 32 == 0
    Phi, y = _stream(5, (2,), 75, 320, scale=0.2)
    with compiled.engine(engine):
        whole = VAWExperts(method="block").run(Phi, y)
        np.testing.assert_array_equal(whole, VAWExperts(method="block", block_size=32).run(Phi, y))
        assert not np.array_equal(whole, VAWExperts(method="block", block_size=16).run(Phi, y))   # not 16
        np.testing.assert_allclose(whole, VAWExperts(method="sm").run(Phi, y), rtol=1e-10, atol=1e-12)
        cut = VAWExperts(method="block").run_alignment
        layer = VAWExperts(method="block")
        pieces = [layer.run(Phi[:, :cut], y[:cut]), layer.run(Phi[:, cut:], y[cut:])]
    np.testing.assert_array_equal(np.concatenate(pieces, axis=-1), whole)


# ------------------------------------- issue 25: the compiled symmetric per-step kernel and "auto"
@needs_numba
@given(seed=seeds, N=st.integers(1, 3), T=st.integers(1, 25), m=st.sampled_from([13, 32, 37, 64, 101]),
       lam=lams, ridge=st.booleans(), cut=st.integers(1, 24))
@settings(max_examples=15, deadline=None)
def test_compiled_symmetric_sm_kernel_equals_the_naive_loop_and_splits_exactly(seed, N, T, m, lam, ridge, cut):
    """The compiled per-step kernel (``vaw.sm_run``) keeps only the lower triangle of S^{-1} and
    makes eq. (10)'s downdate and the next product S^{-1} Phi_{t+1} one pass over it, four rows at a
    time, in SIMD lanes: at feature lengths where those loops run their vector bodies and
    remainders (m = 13 ... 101), it agrees with one VAW per expert to rounding, leaves S^{-1}
    exactly symmetric and equal to the NumPy engine's, and a run split at any step gives the
    numbers of the whole run bit for bit (the first product of a run is the same pass with v = 0)."""
    Phi, y = _stream(seed, (N,), T, m, scale=0.3)
    with compiled.engine("numba"):
        layer = VAWExperts(lam=lam, ridge=ridge, method="sm")
        whole = layer.run(Phi, y)
        cut = min(cut, T)
        split = VAWExperts(lam=lam, ridge=ridge, method="sm")
        parts = [split.run(Phi[:, :cut], y[:cut])] + ([split.run(Phi[:, cut:], y[cut:])] if cut < T else [])
    np.testing.assert_allclose(whole, naive_expert_layer(Phi, y, lam=lam, ridge=ridge), rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(np.concatenate(parts, axis=-1), whole)
    np.testing.assert_array_equal(layer.P_, np.swapaxes(layer.P_, -1, -2))
    with compiled.engine("numpy"):
        ref = VAWExperts(lam=lam, ridge=ridge, method="sm")
        ref.run(Phi, y)
    np.testing.assert_allclose(layer.P_, ref.P_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(layer.w_, ref.w_, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("engine", ["numpy", pytest.param("numba", marks=needs_numba)])
def test_auto_method_is_the_compiled_sm_kernel_on_numba_and_the_block_driver_on_numpy(engine):
    """``method="auto"`` (the default of ``VAWExperts`` and ``mkl.expert_predictions``) runs the
    compiled per-step kernel on the Numba engine and the Woodbury block driver on NumPy: the same
    numbers bit for bit as naming that method; the choice is fixed when the state is created, so a
    stream continued under the other engine keeps its driver (and its numbers to rounding)."""
    expected = "sm" if engine == "numba" else "block"
    Phi, y = _stream(8, (2, 3), 50, 11)
    with compiled.engine(engine):
        layer = VAWExperts()
        assert layer.resolved_method() == expected
        z = layer.run(Phi[..., :30, :], y[:30])
        np.testing.assert_array_equal(z, VAWExperts(method=expected).run(Phi[..., :30, :], y[:30]))
    other = "numpy" if engine == "numba" else "auto"
    with compiled.engine(other):
        assert layer.resolved_method() == expected                 # fixed at the first step
        rest = layer.run(Phi[..., 30:, :], y[30:])
        assert VAWExperts().resolved_method() != expected or not compiled.numba_available()
    np.testing.assert_allclose(np.concatenate([z, rest], -1), naive_expert_layer(Phi, y), rtol=1e-10, atol=1e-10)
    with compiled.engine(engine):
        X, yy = ok.datasets.load("concrete")
        kw = dict(m=6, repetitions=2, seed=1)
        np.testing.assert_array_equal(mkl.expert_predictions(X[:60], yy[:60], **kw),
                                      mkl.expert_predictions(X[:60], yy[:60], method=expected, **kw))


# ------------------------------------------- issue 54: the compiled blocked driver (method="blocked")
def _numpy_sm_state(Phi, y, lam, ridge):
    """The NumPy reference (``sherman_morrison.sm_predict`` / ``sm_update`` per step): Z, P_, w_."""
    with compiled.engine("numpy"):
        ref = VAWExperts(lam=lam, ridge=ridge, method="sm")
        z = ref.run(Phi, y)
    return z, ref.P_, ref.w_


@needs_numba
@given(seed=seeds, R=st.integers(1, 3), N=st.integers(1, 3), T=st.integers(1, 70),
       m=st.sampled_from([1, 4, 13, 32]), lam=lams, ridge=st.booleans(), block_size=st.integers(1, 40))
@settings(max_examples=30, deadline=None)
def test_blocked_driver_equals_the_per_step_recursion_for_any_block_size(seed, R, N, T, m, lam, ridge, block_size):
    """The compiled blocked driver (paper 000 eqs. (9)-(10) k steps at a time by the Woodbury identity,
    ``vaw.blocked_run``) gives every step's forecast of the per-step recursion -- one VAW per expert
    and the NumPy Sherman-Morrison reference -- to rounding (rtol 1e-9), for block sizes that divide T
    or not (k > T included), VAW and online ridge, batch shapes (R, N); its S_T^{-1} (exactly
    symmetric) and w_T are the reference's; ``run_both`` gives both forecasts of the same pass, each
    equal bit for bit to its own run."""
    Phi, y = _stream(seed, (R, N), T, m, scale=0.5)
    with compiled.engine("numba"):
        layer = VAWExperts(lam=lam, ridge=ridge, method="blocked", block_size=block_size)
        z = layer.run(Phi, y)
        zv, zr = VAWExperts(lam=lam, method="blocked", block_size=block_size).run_both(Phi, y)
    assert z.shape == (R, N, T) and layer.t_ == T
    np.testing.assert_allclose(z, naive_expert_layer(Phi, y, lam=lam, ridge=ridge), rtol=1e-9, atol=1e-10)
    ref_z, ref_P, ref_w = _numpy_sm_state(Phi, y, lam, ridge)
    np.testing.assert_allclose(z, ref_z, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(layer.P_, ref_P, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(layer.w_, ref_w, rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(layer.P_, np.swapaxes(layer.P_, -1, -2))
    np.testing.assert_array_equal(zr if ridge else zv, z)


@needs_numba
@given(seed=seeds, T=st.integers(3, 80), cut=st.integers(1, 79), steps=st.integers(0, 4),
       block_size=st.integers(1, 20), ridge=st.booleans(), last=st.sampled_from(["numpy", "numba"]))
@settings(max_examples=20, deadline=None)
def test_blocked_driver_continues_across_pieces_steps_and_engines(seed, T, cut, steps, block_size, ridge, last):
    """A stream cut anywhere -- ``run`` on a first piece, a few ``predict_one`` / ``learn_one`` steps, then
    ``run`` on the rest under either engine (NumPy: the NumPy block driver on the same blocks) -- gives the
    forecasts of the per-step recursion to rounding: the blocked driver reads and writes the learner's
    state (S^{-1}, w) and every forecast uses data up to its own step only."""
    cut = min(cut, T - 1)
    steps = min(steps, T - cut - 1)
    Phi, y = _stream(seed, (2, 3), T, 7, scale=0.5)
    layer = VAWExperts(ridge=ridge, method="blocked", block_size=block_size)
    with compiled.engine("numba"):
        parts = [layer.run(Phi[..., :cut, :], y[:cut])]
        for t in range(cut, cut + steps):
            parts.append(layer.predict_one(Phi[..., t, :])[..., None])
            layer.learn_one(Phi[..., t, :], y[t])
    with compiled.engine(last):
        parts.append(layer.run(Phi[..., cut + steps:, :], y[cut + steps:]))
    assert layer.t_ == T
    np.testing.assert_allclose(np.concatenate(parts, -1), naive_expert_layer(Phi, y, ridge=ridge),
                               rtol=1e-9, atol=1e-10)


@needs_numba
@pytest.mark.parametrize("block_size", [None, 5, 16])
def test_blocked_driver_split_at_block_multiples_gives_one_runs_numbers_bit_for_bit(block_size):
    """Pieces whose lengths are multiples of ``run_alignment`` (the block size; 32 by default) run the
    same blocks in the same order: one run's numbers bit for bit (what ``mkl.VAW2`` promises with its
    ``run_alignment`` of 32 now that ``auto`` takes this driver from m = 150 on)."""
    Phi, y = _stream(3, (2,), 100, 9, scale=0.5)
    with compiled.engine("numba"):
        whole = VAWExperts(method="blocked", block_size=block_size).run(Phi, y)
        layer = VAWExperts(method="blocked", block_size=block_size)
        cut = layer.run_alignment * (2 if block_size == 5 else 1)
        assert cut == (block_size or vaw_mod.BLOCKED_BLOCK_SIZE) * (2 if block_size == 5 else 1)
        pieces = [layer.run(Phi[:, :cut], y[:cut]), layer.run(Phi[:, cut:], y[cut:])]
    np.testing.assert_array_equal(np.concatenate(pieces, -1), whole)
    assert mkl.VAW2().run_alignment % vaw_mod.BLOCKED_BLOCK_SIZE == 0


@needs_numba
def test_blocked_driver_differs_from_a_ridge_forecast_and_from_skipping_the_woodbury_factor():
    """The checks above discriminate: on the same stream the VAW forecasts (S_t including Phi_t, eq. (9))
    differ from the online-ridge ones by far more than the tolerance, and so does the state after a
    rank-k update without the (I + X P X^T)^{-1} factor (P - G^T G) from the Woodbury one -- so a
    blocked driver with either mistake fails them."""
    Phi, y = _stream(11, (2,), 40, 6, scale=0.5)
    with compiled.engine("numba"):
        layer = VAWExperts(method="blocked", block_size=8)
        zv, zr = layer.run_both(Phi, y)
    assert np.max(np.abs(zv - zr)) > 1e-3
    X = Phi[0, :8]
    G = X                                                   # X P with P = I / lam, lam = 1
    woodbury = np.eye(6) - G.T @ np.linalg.solve(np.eye(8) + G @ X.T, G)
    np.testing.assert_allclose(woodbury, np.linalg.inv(np.eye(6) + X.T @ X), rtol=1e-12, atol=1e-14)
    assert np.max(np.abs((np.eye(6) - G.T @ G) - woodbury)) > 1e-2


@needs_numba
def test_auto_takes_the_compiled_blocked_driver_from_m_200_and_sm_below():
    """On the Numba engine ``method="auto"`` runs the per-step kernel "sm" for m < 150 features (paper
    000's m = 50: its numbers unchanged, bit for bit those of ``method="sm"``) and the compiled blocked
    driver from m = 150 on (measured faster there, ``BLOCKED_MIN_M``), bit for bit the named method;
    on the NumPy engine the NumPy block driver."""
    assert vaw_mod.BLOCKED_MIN_M == 150
    for m, expected in ((50, "sm"), (100, "sm"), (149, "sm"), (150, "blocked")):
        Phi, y = _stream(m, (2,), 40, m, scale=0.1)
        with compiled.engine("numba"):
            layer = VAWExperts()
            z = layer.run(Phi, y)
            assert layer.resolved_method() == expected
            np.testing.assert_array_equal(z, VAWExperts(method=expected).run(Phi, y))
        with compiled.engine("numpy"):
            assert VAWExperts().run(Phi[:, :2], y[:2]) is not None
    with compiled.engine("numpy"):
        layer = VAWExperts()
        layer.run(Phi[:, :2], y[:2])
        assert layer.resolved_method() == "block"


@pytest.mark.parametrize("bad, match", [(0, "block_size"), (-3, "block_size"), (2.5, "block_size"),
                                        ("32", "block_size")])
def test_blocked_driver_refuses_a_bad_block_size_naming_it(bad, match):
    """A block size that is not a positive integer is refused, the message naming ``block_size``."""
    with pytest.raises((TypeError, ValueError), match=match):
        VAWExperts(method="blocked", block_size=bad)


@needs_numba
@pytest.mark.parametrize("library", ["scipy", "mkl"])
@pytest.mark.parametrize("m, T, block_size", [(9, 100, 16), (20, 101, 7), (37, 64, 32), (64, 50, 64)])
def test_blocked_kernel_on_either_blas_equals_the_per_step_kernel(library, m, T, block_size):
    """``vaw.blocked_run`` on scipy's OpenBLAS or on oneMKL (``vaw.kernels.blas_routines``; "auto" takes
    oneMKL where it loads) gives the per-step kernel's forecasts, S^{-1} (exactly symmetric) and w to
    rounding, k > m included (where a BLAS call allocates its own workspace)."""
    if library == "mkl" and ok.cosine.mkl_blas() is None:
        pytest.skip("oneMKL's libmkl_rt does not load here")
    rng = np.random.default_rng(m * T)
    F, y = rng.uniform(-0.5, 0.5, (3, T, m)), rng.uniform(-1, 1, T)
    out = {}
    for name, run, extra in (("sm", vaw_mod.sm_run, ()), ("blocked", vaw_mod.blocked_run, (block_size, library))):
        P, w = np.tile(np.eye(m), (3, 1, 1)), np.zeros((3, m))
        Zv, Zr = np.empty((3, T)), np.empty((3, T))
        with compiled.engine("numba"):
            run(F, y, P, w, Zv, Zr, *extra)
        out[name] = (Zv, Zr, P, w)
    for a, b in zip(out["blocked"], out["sm"]):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(out["blocked"][2], np.swapaxes(out["blocked"][2], -1, -2))
    with pytest.raises(ValueError, match="library"):
        vaw_mod.kernels.blas_routines("openblas")


@pytest.mark.skipif(not compiled.numba_available(), reason="Numba not installed")
@pytest.mark.parametrize("method", ["sm", "blocked"])
def test_a_state_left_read_only_still_runs_and_steps_with_the_numbers_of_a_writable_one(method):
    """S^{-1} and w read-only (as unpickled from a read-only memory map): the compiled run and step
    work on copies, with the numbers of the same learner whose state stayed writable."""
    rng = np.random.default_rng(4)
    F, y = rng.standard_normal((3, 70, 5)) * 0.4, rng.standard_normal(70)
    with compiled.engine("numba"):
        a, b = VAWExperts(method=method), VAWExperts(method=method)
        za, zb = a.run(F[:, :40], y[:40]), b.run(F[:, :40], y[:40])
        b._P.setflags(write=False)
        b._w.setflags(write=False)
        np.testing.assert_array_equal(b.run(F[:, 40:60], y[40:60]), a.run(F[:, 40:60], y[40:60]))
        b._P.setflags(write=False)
        b._w.setflags(write=False)
        for t in range(60, 70):
            np.testing.assert_array_equal(b.predict_one(F[:, t]), a.predict_one(F[:, t]))
            a.learn_one(F[:, t], y[t])
            b.learn_one(F[:, t], y[t])
    np.testing.assert_array_equal(za, zb)
    np.testing.assert_array_equal(b.P_, a.P_)
