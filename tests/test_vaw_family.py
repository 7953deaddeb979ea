"""The VAW forecaster (paper 000 eqs. 9-10), its batched expert layer, and the VAW2-family
learners (paper 000 section 3-4)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import omkl_core as ok
import omkl_core.repro as repro
from omkl_core import compiled, mkl
from omkl_core.vaw import VAW, VAWExperts, naive_expert_layer

seeds = st.integers(0, 2**32 - 1)
lams = st.floats(min_value=0.05, max_value=20.0, allow_nan=False, allow_infinity=False)

# every test runs on both engines of omkl_core.compiled (the NumPy rules, their compiled
# kernels): the ``engine`` fixture of tests/conftest.py
# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = [pytest.mark.usefixtures("engine"), pytest.mark.exact_fp]


def _stream(seed, batch, T, m, scale=1.5):
    rng = np.random.default_rng(seed)
    Phi = rng.uniform(-scale, scale, size=batch + (T, m))
    y = rng.uniform(-1, 1, size=T)
    return Phi, y


def _closed_form(Phi, y, lam, ridge=False):
    """Eq. (9) solved directly: w_t = S_t^{-1} sum_{i<t} y_i Phi_i with
    S_t = lam I + sum_{i<=t} Phi_i Phi_i^T (ridge: i <= t-1)."""
    T, m = Phi.shape
    out = np.empty(T)
    for t in range(T):
        last = t if ridge else t + 1
        S = lam * np.eye(m) + Phi[:last].T @ Phi[:last]
        b = Phi[:t].T @ y[:t]
        out[t] = Phi[t] @ np.linalg.solve(S, b)
    return out


# ------------------------------------------------------------------ single VAW forecaster
@given(seed=seeds, T=st.integers(1, 25), m=st.integers(1, 8), lam=lams)
@settings(max_examples=30)
def test_paper000_eq9_vaw_prediction_equals_closed_form_with_S_t_including_phi_t(seed, T, m, lam):
    Phi, y = _stream(seed, (), T, m)
    v = VAW(lam=lam)
    preds = []
    for t in range(T):
        preds.append(v.predict_one(Phi[t]))
        v.learn_one(Phi[t], y[t])
    np.testing.assert_allclose(preds, _closed_form(Phi, y, lam), rtol=1e-9, atol=1e-10)


@given(seed=seeds, T=st.integers(1, 25), m=st.integers(1, 8), lam=lams)
@settings(max_examples=30)
def test_ridge_option_differs_from_vaw_exactly_by_the_phi_t_term(seed, T, m, lam):
    """ridge=True predicts <S_{t-1}^{-1} b_{t-1}, Phi_t> (Phi_t not in S); VAW's prediction is
    that value divided by 1 + Phi_t^T S_{t-1}^{-1} Phi_t (Sherman-Morrison, eq. 10)."""
    Phi, y = _stream(seed, (), T, m)
    ridge = VAW(lam=lam, ridge=True).run(Phi, y)
    np.testing.assert_allclose(ridge, _closed_form(Phi, y, lam, ridge=True), rtol=1e-9, atol=1e-10)
    vaw = VAW(lam=lam).run(Phi, y)
    s = np.array([Phi[t] @ np.linalg.solve(lam * np.eye(m) + Phi[:t].T @ Phi[:t], Phi[t])
                  for t in range(T)])
    np.testing.assert_allclose(vaw, ridge / (1.0 + s), rtol=1e-9, atol=1e-10)
    assert ridge[0] == 0.0 and vaw[0] == 0.0


@given(seed=seeds, T=st.integers(1, 30), m=st.integers(1, 6), a=lams,
       solver=st.sampled_from(["cholesky", "sherman-morrison"]), method=st.sampled_from(["sm", "block"]))
@settings(max_examples=30)
def test_online_ridge_a_equals_vaw_ridge_with_lam_a_and_vaw_divides_by_its_denominator(seed, T, m, a, solver,
                                                                                       method):
    """Paper 002's OnlineRidge(a) (Algorithm 1: A_0 = aI, gamma_t = b_{t-1}'A_{t-1}^{-1}x_t) is the
    online-ridge path of paper 000's VAW with lam = a, step by step; the VAW forecast (eq. (9)) is
    that gamma_t over paper 002's denominator 1 + x_t'A_{t-1}^{-1}x_t (Sherman-Morrison, eq. (10)).
    Each side has its own solver: OnlineRidge's Givens-updated Cholesky factor or the shared
    Sherman-Morrison core; VAW's per-step recursion or the Woodbury block driver."""
    Phi, y = _stream(seed, (), T, m)
    tr = ok.OnlineRidge(a, solver=solver).trajectory(Phi, y)
    ridge = VAW(lam=a, ridge=True, method=method, block_size=5).run(Phi, y)
    np.testing.assert_allclose(ridge, tr.gamma, rtol=1e-9, atol=1e-10)
    vaw = VAW(lam=a, method=method, block_size=5).run(Phi, y)
    np.testing.assert_allclose(vaw, tr.gamma / tr.denominator, rtol=1e-9, atol=1e-10)
    assert tr.gamma[0] == ridge[0] == vaw[0] == 0.0
    if T > 1:     # a wrong lam (a/2) or the VAW forecast in place of the ridge one would fail above
        assert not np.allclose(VAW(lam=a / 2, ridge=True).run(Phi, y), tr.gamma, rtol=1e-6, atol=1e-8) \
            or np.allclose(tr.gamma, 0.0, atol=1e-8)


@given(seed=seeds, T=st.integers(1, 40), m=st.integers(1, 6), lam=lams,
       method=st.sampled_from(["sm", "block"]), ridge=st.booleans())
@settings(max_examples=30)
def test_vaw_run_equals_predict_one_learn_one_loop(seed, T, m, lam, method, ridge):
    Phi, y = _stream(seed, (), T, m)
    a = VAW(lam=lam, ridge=ridge, method=method, block_size=7)
    run = a.run(Phi, y)
    b = VAW(lam=lam, ridge=ridge)
    loop = []
    for t in range(T):
        loop.append(b.predict_one(Phi[t]))
        b.learn_one(Phi[t], y[t])
    np.testing.assert_allclose(run, loop, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(a.w_, b.w_, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(a.P_, b.P_, rtol=1e-9, atol=1e-10)
    assert a.t_ == b.t_ == T


@given(seed=seeds, T=st.integers(1, 20), m=st.integers(1, 6), lam=lams)
@settings(max_examples=25)
def test_vaw_state_is_the_regularised_least_squares_solution(seed, T, m, lam):
    """After t steps: P_ = S_t^{-1}, w_ = argmin lam/2 |w|^2 + 1/2 sum_{i<=t}(<w, Phi_i> - y_i)^2;
    weights_for(phi) is eq. (9)'s w_{t+1} and predicts <w_{t+1}, phi> = predict_one(phi)."""
    Phi, y = _stream(seed, (), T + 1, m)
    v = VAW(lam=lam)
    v.run(Phi[:T], y[:T])
    S = lam * np.eye(m) + Phi[:T].T @ Phi[:T]
    np.testing.assert_allclose(v.P_, np.linalg.inv(S), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(v.w_, np.linalg.solve(S, Phi[:T].T @ y[:T]), rtol=1e-8, atol=1e-10)
    w_next = v.weights_for(Phi[T])
    S1 = S + np.outer(Phi[T], Phi[T])
    np.testing.assert_allclose(w_next, np.linalg.solve(S1, Phi[:T].T @ y[:T]), rtol=1e-8, atol=1e-10)
    assert float(w_next @ Phi[T]) == pytest.approx(v.predict_one(Phi[T]), rel=1e-9, abs=1e-12)


# ------------------------------------------------------------------ batched expert layer
@given(seed=seeds, R=st.integers(1, 3), N=st.integers(1, 5), T=st.integers(1, 45),
       m=st.integers(1, 7), lam=lams, ridge=st.booleans(), method=st.sampled_from(["sm", "block"]),
       block_size=st.integers(1, 20))
@settings(max_examples=40)
def test_batched_expert_layer_equals_naive_per_expert_loop(seed, R, N, T, m, lam, ridge, method,
                                                           block_size):
    """One (R, N, m, m) array of inverses gives the same predictions as N x R separate VAWs."""
    Phi, y = _stream(seed, (R, N), T, m)
    Z = VAWExperts(lam=lam, ridge=ridge, method=method, block_size=block_size).run(Phi, y)
    assert Z.shape == (R, N, T)
    np.testing.assert_allclose(Z, naive_expert_layer(Phi, y, lam=lam, ridge=ridge),
                               rtol=1e-10, atol=1e-10)


def test_batched_layer_on_paper_features_equals_naive_loop():
    """The real setting: 76 kernels x m = 50 cos features of Airfoil, 2 repetitions."""
    X, y = ok.datasets.load("airfoil")
    X, y = X[:80], y[:80]
    Z, dicts = mkl.expert_predictions(X, y, repetitions=2, seed=4, return_dictionaries=True)
    assert Z.shape == (2, 80, 76)
    Phi = np.stack([D.transform(X).transpose(1, 0, 2) for D in dicts])     # (R, N, T, m)
    ref = naive_expert_layer(Phi, y, lam=1.0)                              # (R, N, T)
    np.testing.assert_allclose(Z, ref.transpose(0, 2, 1), rtol=1e-10, atol=1e-10)


@given(seed=seeds, T=st.integers(2, 60), cut=st.integers(1, 59))
@settings(max_examples=20)
def test_expert_layer_blocks_and_mixed_calls_continue_the_same_state(seed, T, cut):
    """A generator of time blocks, or run() after predict_one/learn_one steps, gives the
    same predictions as one run over the whole array."""
    cut = min(cut, T - 1)
    Phi, y = _stream(seed, (2, 3), T, 4)
    whole = VAWExperts().run(Phi, y)
    blocks = VAWExperts().run((Phi[..., s:s + 9, :] for s in range(0, T, 9)), y)
    np.testing.assert_allclose(blocks, whole, rtol=1e-10, atol=1e-12)
    mixed = VAWExperts()
    first = []
    for t in range(cut):
        first.append(mixed.predict_one(Phi[..., t, :]))
        mixed.learn_one(Phi[..., t, :], y[t])
    rest = VAWExperts.run(mixed, Phi[..., cut:, :], y[cut:])
    np.testing.assert_allclose(np.concatenate([np.stack(first, -1), rest], -1), whole,
                               rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------- learners
LEARNERS = [
    (mkl.VAW2, {}), (mkl.VAW2, {"truncate": True}), (mkl.VAWEWA, {}), (mkl.VAWAggr, {}),
    (mkl.VAWMLProd, {}), (mkl.VAWMLPoly, {}), (mkl.VAWBOA, {}), (mkl.VAWBOA, {"version": "v122"}),
    (mkl.VAWEWA, {"calibrated": True}),
]


@pytest.fixture(scope="module")
def small_stream():
    X, y = ok.datasets.load("concrete")
    return X[:70], y[:70]


@pytest.mark.parametrize("cls, kw", LEARNERS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_each_learner_run_equals_predict_one_learn_one_loop(cls, kw, small_stream):
    X, y = small_stream
    a = cls(m=12, seed=11, **kw)
    run = a.run(X, y)
    b = cls(m=12, seed=11, **kw)
    loop = []
    for x_t, y_t in zip(X, y):
        loop.append(b.predict_one(x_t))
        b.learn_one(x_t, y_t)
    np.testing.assert_allclose(run, loop, rtol=1e-10, atol=1e-10)
    assert a.weights_.shape == b.weights_.shape == (76,)
    np.testing.assert_allclose(a.weights_, b.weights_, rtol=1e-8, atol=1e-10)
    assert a.expert_predictions_.shape == (76,)
    np.testing.assert_allclose(a.expert_predictions_, b.expert_predictions_, rtol=1e-10, atol=1e-10)
    # run_online uses the vectorised run; same numbers
    tr = ok.run_online(cls(m=12, seed=11, **kw), X, y)
    np.testing.assert_allclose(tr.predictions, run, rtol=0, atol=0)


def test_learners_use_the_shared_expert_layer_and_the_named_meta_learner(small_stream):
    """A learner with seed s = repetition 0 of expert_predictions(seed=s) + make_meta(row)."""
    X, y = small_stream
    Z = mkl.expert_predictions(X, y, m=12, repetitions=2, seed=11)
    for (cls, kw), row in zip(LEARNERS[:7], mkl.TABLE2_ROWS[:2] + ["VAW-EWA", "VAW-Aggr",
                                                                  "VAW-ML-Prod", "VAW-ML-Poly",
                                                                  "VAW-BOA"]):
        learner = cls(m=12, seed=11, **kw)
        np.testing.assert_allclose(learner.run(X, y), mkl.make_meta(row).run(Z[0], y),
                                   rtol=1e-12, atol=1e-12)
    batched = mkl.make_meta("VAW-ML-Prod")
    P = batched.run(Z, y)
    assert P.shape == (2, 70) and batched.weights_.shape == (2, 76)


def test_vaw2_weights_are_signed_and_others_on_the_simplex(small_stream):
    X, y = small_stream
    v = mkl.VAW2(m=12, seed=2)
    v.run(X, y)
    e = mkl.VAWEWA(m=12, seed=2)
    e.run(X, y)
    assert np.any(v.weights_ < 0)
    assert np.all(e.weights_ >= 0) and e.weights_.sum() == pytest.approx(1.0)


def test_same_seed_same_numbers_different_seed_different_numbers(small_stream):
    X, y = small_stream
    a = mkl.expert_predictions(X, y, m=10, repetitions=2, seed=5)
    b = mkl.expert_predictions(X, y, m=10, repetitions=2, seed=5)
    c = mkl.expert_predictions(X, y, m=10, repetitions=2, seed=6)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert not np.array_equal(a[0], a[1])            # repetitions draw fresh features
    np.testing.assert_array_equal(mkl.VAW2(m=10, seed=5).run(X, y), mkl.VAW2(m=10, seed=5).run(X, y))


def test_expert_layer_options_sincos_and_ridge(small_stream):
    X, y = small_stream
    Zs, dicts = mkl.expert_predictions(X, y, m=6, repetitions=1, seed=0, feature_map="sincos",
                                       return_dictionaries=True)
    Phi = dicts[0].transform(X).transpose(1, 0, 2)                        # (N, T, 12)
    assert Phi.shape[-1] == 12
    np.testing.assert_allclose(Zs[0].T, naive_expert_layer(Phi, y), rtol=1e-10, atol=1e-10)
    Zr = mkl.expert_predictions(X, y, m=6, repetitions=1, seed=0, ridge=True)
    Phi_c = mkl.draw_dictionaries(X.shape[1], 6, 1, 0, None, "cos", "numpy")[0].transform(X)
    np.testing.assert_allclose(Zr[0].T, naive_expert_layer(Phi_c.transpose(1, 0, 2), y, ridge=True),
                               rtol=1e-10, atol=1e-10)
    assert np.all(Zr[0, 0] == 0)


# ---------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(lam=0.0), ValueError, "lam"), (dict(lam=-1.0), ValueError, "lam"),
    (dict(lam=float("nan")), ValueError, "lam"), (dict(lam="1"), TypeError, "lam"),
    (dict(ridge="no"), TypeError, "ridge"), (dict(method="cg"), ValueError, "method"),
    (dict(block_size=0), ValueError, "block_size"), (dict(backend="torch"), ValueError, "backend"),
])
def test_vaw_experts_bad_hyper_parameters_raise(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        VAWExperts(**kwargs)


def test_vaw_bad_input_raises_naming_the_argument():
    v = VAW()
    with pytest.raises(ValueError, match="phi contains NaN"):
        v.predict_one(np.array([1.0, np.nan]))
    v.learn_one(np.ones(3), 0.5)
    with pytest.raises(ValueError, match="3"):
        v.predict_one(np.ones(4))                    # m mismatch
    with pytest.raises(ValueError, match="y must be finite"):
        v.learn_one(np.ones(3), float("inf"))
    with pytest.raises(ValueError, match="single VAW"):
        VAW().predict_one(np.ones((2, 3)))
    with pytest.raises(ValueError, match="y has T=3"):
        VAW().run(np.ones((4, 2)), np.ones(3))
    with pytest.raises(ValueError, match="Phi has 2 time steps"):
        VAW().run(np.ones((2, 2)), np.ones(3))
    with pytest.raises(ValueError, match="y contains NaN"):
        VAW().run(np.ones((2, 2)), np.array([0.0, np.nan]))
    with pytest.raises(ValueError, match="Phi contains NaN"):
        VAWExperts().run(np.full((2, 3, 2), np.nan), np.ones(3))
    e = VAWExperts()
    e.run(np.ones((2, 3, 2)), np.ones(3))
    with pytest.raises(ValueError, match="batch shape"):
        e.run(np.ones((3, 3, 2)), np.ones(3))


def test_learners_bad_input_raises_naming_the_argument(small_stream):
    X, y = small_stream
    with pytest.raises(ValueError, match="m must be >= 1"):
        mkl.VAW2(m=0)
    with pytest.raises(ValueError, match="lam"):
        mkl.VAW2(lam=0)
    with pytest.raises(ValueError, match="lam_meta"):
        mkl.VAW2(lam_meta=-1)
    with pytest.raises(TypeError, match="truncate"):
        mkl.VAW2(truncate="yes")
    with pytest.raises(ValueError, match="map"):
        mkl.VAWEWA(feature_map="tan")
    with pytest.raises(ValueError, match="version"):
        mkl.VAWBOA(version="v999")
    with pytest.raises(ValueError, match="unknown algorithm"):
        mkl.make_meta("VAW-XYZ")
    v = mkl.VAW2(m=5)
    v.learn_one(X[0], y[0])
    with pytest.raises(ValueError, match="dimension"):
        v.predict_one(np.ones(X.shape[1] + 1))
    with pytest.raises(ValueError, match="NaN"):
        mkl.VAW2(m=5).predict_one(np.full(X.shape[1], np.nan))
    with pytest.raises(ValueError, match="y has length"):
        mkl.VAW2(m=5).run(X, y[:-1])
    with pytest.raises(ValueError, match="X contains NaN"):
        mkl.expert_predictions(np.full((3, 2), np.nan), np.ones(3), m=3, repetitions=1)
    with pytest.raises(ValueError, match="repetitions"):
        mkl.expert_predictions(X, y, repetitions=0)
    with pytest.raises(TypeError, match="dictionary"):
        mkl.expert_predictions(X, y, dictionary="paper")


# ------------------------------------------------------------------------------ GPU path
@pytest.mark.gpu
@pytest.mark.parametrize("method", ["sm", "block"])
def test_cupy_expert_layer_equals_numpy(method):
    X, y = ok.datasets.load("airfoil")
    X, y = X[:200], y[:200]
    a = mkl.expert_predictions(X, y, repetitions=2, seed=1, method=method)
    b = mkl.expert_predictions(X, y, repetitions=2, seed=1, method=method, backend="cupy")
    np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-10)


@pytest.mark.gpu
def test_cupy_learner_equals_numpy():
    X, y = ok.datasets.load("concrete")
    X, y = X[:100], y[:100]
    np.testing.assert_allclose(mkl.VAW2(seed=1, backend="cupy").run(X, y),
                               mkl.VAW2(seed=1).run(X, y), rtol=1e-10, atol=1e-10)


# --------------------------------------------------------- Table 2 bookkeeping (scorecard)
_SHARED_PUBLISHED = Path(__file__).resolve().parents[2] / "shared" / "reference" / "published_tables.csv"


@pytest.mark.skipif(not _SHARED_PUBLISHED.is_file(),
                    reason=f"the shared reference file {_SHARED_PUBLISHED} is not on this machine "
                           "(only the project's own checkouts have it); omkl_core/data/published_tables.csv is "
                           "still checked by test_published_table2_is_read_from_the_data_copy_of_the_reference_file")
def test_data_published_tables_is_a_verbatim_copy_of_the_shared_reference_file():
    """omkl_core/data/published_tables.csv (read by paper_values) is byte for byte the shared reference file."""
    assert repro.paper_values.PUBLISHED_CSV.read_bytes() == _SHARED_PUBLISHED.read_bytes()


def test_published_table2_is_read_from_the_data_copy_of_the_reference_file():
    """paper_values reads omkl_core/data/published_tables.csv (no retyped numbers)."""
    assert repro.paper_values.PUBLISHED_CSV.is_file()
    wide = repro.paper_values.published_table("000", 2)
    assert list(wide.columns) == ["AR(4)", "Airfoil", "Bias", "Concrete", "Naval"]
    assert set(mkl.TABLE2_ROWS) <= set(wide.index)
    raw = repro.paper_values.published("000", 2)
    for _, r in raw.iterrows():
        assert repro.paper_values.published_value("000", 2, r.dataset, r.algorithm) == r.value
    with pytest.raises(ValueError, match="no published cell"):
        repro.paper_values.published_value("000", 2, "Airfoil", "VAW3")
    with pytest.raises(ValueError, match="no published cells"):
        repro.paper_values.published("000", 9)


@pytest.mark.skipif(not compiled.numba_available(), reason="Numba not installed")
@pytest.mark.parametrize("kw", [{}, {"truncate": True}, {"ridge": True}], ids=["VAW2", "trunc", "ridge-experts"])
def test_vaw2_predict_one_learn_one_give_run_numbers_bit_for_bit_on_the_compiled_engine(kw, small_stream):
    """Issue 33: step by step, VAW2 computes each step's features as ``run`` does (the same
    projection and cosine calls), its experts' and meta VAW's forecasts by the forecast half of the
    compiled step (``vaw.sm_step``) and their updates (eqs. (9)-(10)) from that forecast's
    u = S^{-1} Phi_t: the predictions, z_t and the experts' states are ``run``'s bit for bit."""
    X, y = small_stream
    with compiled.engine("numba"):
        a = mkl.VAW2(m=9, seed=4, **kw)
        run = a.run(X, y)
        b = mkl.VAW2(m=9, seed=4, **kw)
        loop = []
        for x_t, y_t in zip(X, y):
            loop.append(b.predict_one(x_t))
            b.learn_one(x_t, y_t)
    np.testing.assert_array_equal(np.array(loop), run)
    np.testing.assert_array_equal(b.expert_predictions_, a.expert_predictions_)
    np.testing.assert_array_equal(b.experts_.P_, a.experts_.P_)
    np.testing.assert_array_equal(b.meta_.P_, a.meta_.P_)


@pytest.mark.skipif(not compiled.numba_available(), reason="Numba not installed")
@pytest.mark.parametrize("library", [pytest.param("mkl", marks=pytest.mark.skipif(
    "mkl" not in ok.cosine.available(), reason="oneMKL not installed")), "numpy"])
@pytest.mark.parametrize("m", [7, 50])
def test_vaw2_step_features_and_forecast_in_one_compiled_call_give_run_numbers_bit_for_bit(library, m, small_stream,
                                                                                          monkeypatch):
    """Issue 54: with oneMKL's cosine in force, VAW2's ``predict_one`` computes the features of x_t
    (section 2's cos map) and the experts' forecasts (eqs. (9)-(10)) in one compiled call
    (``mkl._vaw2_step.step_forecast``, every step after the first); with another cosine it computes
    the features as before. Either way the predictions, z_t, the features and the states of both
    levels are ``run``'s bit for bit, m = 7 (rows of S^{-1} shorter than a group of four) and the
    paper's m = 50."""
    X, y = small_stream
    calls = []
    real = mkl.vaw2.step_forecast
    monkeypatch.setattr(mkl.vaw2, "step_forecast", lambda *a: calls.append(1) or real(*a))
    with compiled.engine("numba"), ok.cosine.using(library):
        a = mkl.VAW2(m=m, seed=5)
        run = a.run(X, y)
        b = mkl.VAW2(m=m, seed=5)
        loop = []
        for x_t, y_t in zip(X, y):
            loop.append(b.predict_one(x_t))
            np.testing.assert_array_equal(b._last[2], mkl.vaw2._step_features(b.dictionary_, x_t))
            b.learn_one(x_t, y_t)
    assert len(calls) == (len(y) - 1 if library == "mkl" else 0)
    np.testing.assert_array_equal(np.array(loop), run)
    np.testing.assert_array_equal(b.expert_predictions_, a.expert_predictions_)
    np.testing.assert_array_equal(b.experts_.P_, a.experts_.P_)
    np.testing.assert_array_equal(b.experts_.w_, a.experts_.w_)
    np.testing.assert_array_equal(b.meta_.P_, a.meta_.P_)


@pytest.mark.parametrize("engine", ["numpy", pytest.param("numba", marks=pytest.mark.skipif(
    not compiled.numba_available(), reason="Numba not installed"))])
def test_vaw2_learn_one_reuses_the_forecast_of_predict_one(engine, small_stream, monkeypatch):
    """predict_one then learn_one on the same x_t compute the features and the experts' forecasts once:
    learn_one neither transforms x_t again nor asks the experts for u = S^{-1} Phi_t again; a
    learn_one on another x (no predict_one before it) computes both itself, with the same result
    as predicting first. (The features are computed by ``_step_features``, or, on the compiled engine
    with oneMKL's cosine, inside the compiled step ``step_forecast`` with the forecast.)"""
    X, y = small_stream
    with compiled.engine(engine):
        model = mkl.VAW2(m=5, seed=2)
        model.predict_one(X[0])
        calls = {"features": 0, "forecast": 0}
        real_fb, real_fq = mkl.vaw2._step_features, model.experts_._forecast_quantities
        real_fs = mkl.vaw2.step_forecast

        def counting_fb(*a, **k):
            calls["features"] += 1
            return real_fb(*a, **k)

        def counting_fs(*a, **k):
            calls["features"] += 1
            return real_fs(*a, **k)

        def counting_fq(*a, **k):
            calls["forecast"] += 1
            return real_fq(*a, **k)

        monkeypatch.setattr(mkl.vaw2, "_step_features", counting_fb)
        monkeypatch.setattr(mkl.vaw2, "step_forecast", counting_fs)
        monkeypatch.setattr(model.experts_, "_forecast_quantities", counting_fq)
        model.learn_one(X[0], y[0])
        assert calls == {"features": 0, "forecast": 0}
        model.learn_one(X[1], y[1])                          # no predict_one before it
        assert calls == {"features": 1, "forecast": 1}
        other = mkl.VAW2(m=5, seed=2)
        other.predict_one(X[0]), other.learn_one(X[0], y[0]), other.predict_one(X[1]), other.learn_one(X[1], y[1])
        np.testing.assert_array_equal(model.experts_.P_, other.experts_.P_)
