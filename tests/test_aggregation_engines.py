"""The two engines of the aggregators' whole-stream loops (omkl_core.compiled) give the same numbers.

Paper: paper 000 sec. 3-4 (EWA eq. (29), the AA, opera's rules, ref. A.1-A.6 and B).  The
``"numba"`` engine runs ``run`` through compiled kernels (omkl_core/aggregation/_kernels.py),
the ``"numpy"`` engine through the NumPy loops, which are the reference.  Checked here:

* every rule, single and batched (R, T, N) streams: predictions and final state agree to
  1e-12 relative (the kernels take exp/log from the C library, NumPy from its own SIMD code:
  rounding differences only); ML-Poly (no exp/log) and the pairwise sum agree bit for bit;
* continuation: run / learn_one / run on the compiled engine == the same on NumPy (1e-12);
* Numba missing: "auto" falls back to NumPy (the same numbers bit for bit), "numba" raises
  an ImportError that says what to install.
(The opera fixture tests of tests/test_theory_paper000.py run on both engines.)
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omkl_core import aggregation as agg
from omkl_core import compiled

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp

needs_numba = pytest.mark.skipif(not compiled.numba_available(), reason="Numba (the 'fast' extra) not installed")

SEEDS = st.integers(0, 2**32 - 1)
REL = 1e-12

# rule -> (factory, names of the state arrays to compare)
RULES = {
    "EWA": (lambda: agg.EWA(), ("cum_",)),
    "EWA_gradient": (lambda: agg.EWA(gradient=True, eta=0.7), ("cum_",)),
    "CalibratedEWA": (lambda: agg.CalibratedEWA(), ()),
    "AA": (lambda: agg.AggregatingAlgorithm(), ("cum_loss_",)),
    "MLPoly": (lambda: agg.MLPoly(), ("regret_", "eta_", "B_")),
    "MLProd": (lambda: agg.MLProd(), ("log_weights_", "L_", "maxloss_", "eta_")),
    "BOA_v120": (lambda: agg.BOA(), ("Rreg_", "eta_", "V_", "Bmax_")),
    "BOA_v122": (lambda: agg.BOA(version="v122"), ("Rreg_", "S_")),
    "VAWMeta": (lambda: agg.VAWMeta(), ("P_", "w_")),
    "VAWMeta_trunc": (lambda: agg.VAWMeta(bounds=(0, 1), lam=0.3), ("P_", "w_")),
    "VAWMeta_ridge_uniform": (lambda: agg.VAWMeta(ridge=True, shrink_to="uniform"), ("P_", "w_")),
}


def _stream(seed, R, T, N, spread):
    """Expert forecasts around labels in [0, 1], some outside [0, 1] (truncation matters)."""
    rng = np.random.default_rng(seed)
    y = rng.uniform(0.0, 1.0, T)
    scale = rng.uniform(0.02, 1.0, N) * spread * 3
    Z = y[None, :, None] + rng.normal(size=(R, T, N)) * scale + rng.normal(size=(R, 1, N)) * spread
    return Z, y


def _close(a, b, what):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, what
    scale = 1.0 + np.abs(b).max(initial=0.0)
    assert np.max(np.abs(a - b), initial=0.0) <= REL * scale, f"{what}: max |diff| {np.max(np.abs(a - b)):.3g}"


def _state(model, names):
    out = {"weights_": model.weights_, "t_": model.t_}
    for n in names:
        out[n] = getattr(model, n)
    if isinstance(model, agg.CalibratedEWA):
        # the base eta0, the uniform member and the history; not the grid bookkeeping (lo, hi,
        # best, stored range): which of two members whose cumulative losses tie to the last bit
        # is "best", and whether exp(x) with |x| ~ 2^-54 rounds to 1 (saturation), are decided
        # by rounding, which differs between the engines' exp (see the module docstring)
        st_ = model.state_
        out.update(eta0=st_.eta0, RU=st_.RU, CLU=st_.CLU, hist=len(st_.hist_z))
    return out


def _compare_states(a, b):
    assert a.keys() == b.keys()
    for k in a:
        _close(a[k], b[k], k)


def _run(rule, engine, Z, y):
    make, names = RULES[rule]
    m = make()
    with compiled.engine(engine):
        P = m.run(Z, y)
    return P, _state(m, names)


@needs_numba
@pytest.mark.parametrize("rule", list(RULES))
@settings(max_examples=8, deadline=None)
@given(seed=SEEDS, R=st.integers(1, 3), batched=st.booleans(), T=st.integers(1, 80), N=st.integers(2, 9),
       spread=st.floats(0.0, 2.0))
def test_numba_engine_equals_numpy_engine(rule, seed, R, batched, T, N, spread):
    """Predictions and final state of the compiled loop == the NumPy loop (1e-12 relative)."""
    Z, y = _stream(seed, R, T, N, spread)
    ZZ = Z if batched else Z[0]
    P_np, s_np = _run(rule, "numpy", ZZ, y)
    P_nb, s_nb = _run(rule, "numba", ZZ, y)
    _close(P_nb, P_np, "predictions")
    _compare_states(s_nb, s_np)


@needs_numba
@pytest.mark.parametrize("rule", ["CalibratedEWA"])
@settings(max_examples=6, deadline=None)
@given(seed=SEEDS, R=st.integers(1, 3), T=st.integers(30, 150), N=st.integers(2, 6))
def test_numba_engine_equals_numpy_engine_on_a_growing_calibration_grid(rule, seed, R, T, N):
    """Experts unrelated to y: opera's grid grows at the bottom at every step and members are
    re-run from the history (the steps the kernel hands back to Python); same numbers."""
    rng = np.random.default_rng(seed)
    Z, y = rng.uniform(-0.2, 1.2, (R, T, N)), rng.uniform(0.0, 1.0, T)
    P_np, s_np = _run(rule, "numpy", Z, y)
    P_nb, s_nb = _run(rule, "numba", Z, y)
    _close(P_nb, P_np, "predictions")
    _compare_states(s_nb, s_np)


@needs_numba
@pytest.mark.parametrize("rule", list(RULES))
@settings(max_examples=5, deadline=None)
@given(seed=SEEDS, R=st.integers(1, 3), batched=st.booleans(), T=st.integers(3, 60), N=st.integers(2, 7),
       cut=st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)))
def test_run_learn_one_run_continuation_agrees_across_engines(rule, seed, R, batched, T, N, cut):
    """run on a first chunk, learn_one step by step on a second, run on the rest: the compiled
    engine's run starts from, and leaves, the state the NumPy code reads and writes."""
    Z, y = _stream(seed, R if batched else 1, T, N, 0.4)
    a, b = sorted(int(c * T) for c in cut)
    res = {}
    for engine in ("numpy", "numba"):
        make, names = RULES[rule]
        m = make()
        with compiled.engine(engine):
            parts = [m.run(Z[:, :a] if batched else Z[0, :a], y[:a])] if a else []
            if not batched:      # learn_one is the per-step (NumPy) path on both engines
                for t in range(a, b):
                    parts.append(np.array([m.predict_one(Z[0, t])]))
                    m.learn_one(Z[0, t], y[t])
                rest = b
            else:
                rest = a
            if rest < T:
                parts.append(m.run(Z[:, rest:] if batched else Z[0, rest:], y[rest:]))
        res[engine] = (np.concatenate(parts, axis=-1), _state(m, names))
    _close(res["numba"][0], res["numpy"][0], "predictions")
    _compare_states(res["numba"][1], res["numpy"][1])


@needs_numba
@settings(max_examples=10, deadline=None)
@given(seed=SEEDS, R=st.integers(1, 3), T=st.integers(1, 60), N=st.integers(2, 300))
def test_mlpoly_engines_agree_bit_for_bit(seed, R, T, N):
    """ML-Poly uses only +, -, *, /, max: the kernel, which sums pairwise as NumPy does,
    reproduces the NumPy loop exactly (N up to 300 crosses NumPy's 128-element blocks)."""
    Z, y = _stream(seed, R, T, N, 0.5)
    P_np, s_np = _run("MLPoly", "numpy", Z, y)
    P_nb, s_nb = _run("MLPoly", "numba", Z, y)
    np.testing.assert_array_equal(P_nb, P_np)
    for k in s_np:
        np.testing.assert_array_equal(s_nb[k], s_np[k])


@needs_numba
@settings(max_examples=30, deadline=None)
@given(seed=SEEDS, n=st.integers(1, 1100), scale=st.floats(1e-3, 1e6))
def test_kernel_pairwise_sum_equals_numpy_sum_bit_for_bit(seed, n, scale):
    from omkl_core.aggregation import _kernels
    a = np.random.default_rng(seed).normal(size=n) * scale
    assert _kernels._pwsum(a, n) == np.add.reduce(a)


# ---------------------------------------------------------------------------------------
# Numba missing
# ---------------------------------------------------------------------------------------
def test_auto_engine_falls_back_to_numpy_when_numba_is_missing(monkeypatch):
    Z, y = _stream(5, 2, 40, 6, 0.5)
    with compiled.engine("numpy"):
        ref = {r: RULES[r][0]().run(Z, y) for r in RULES}
    monkeypatch.setattr(compiled, "_numba_ok", False)
    assert not compiled.numba_available()
    with compiled.engine("auto"):
        assert not compiled.use_numba()
        for r in RULES:
            np.testing.assert_array_equal(RULES[r][0]().run(Z, y), ref[r])


def test_numba_engine_without_numba_raises_a_clear_import_error(monkeypatch):
    monkeypatch.setattr(compiled, "_numba_ok", False)
    Z, y = _stream(5, 1, 10, 4, 0.5)
    with compiled.engine("numba"):
        for r in RULES:
            with pytest.raises(ImportError, match=r"engine 'numba'.*Numba is not installed.*omkl\[fast\]"):
                RULES[r][0]().run(Z[0], y)


@needs_numba
def test_omkl_engine_environment_variable_selects_the_engine(monkeypatch):
    monkeypatch.setenv("OMKL_ENGINE", "numpy")
    assert compiled.get_engine() == "numpy" and not compiled.use_numba()
    monkeypatch.setenv("OMKL_ENGINE", "numba")
    assert compiled.use_numba()
    monkeypatch.setenv("OMKL_ENGINE", "fast")
    with pytest.raises(ValueError, match="OMKL_ENGINE"):
        compiled.get_engine()
