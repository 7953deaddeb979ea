"""Tests of the expert-aggregation meta-learners (omkl_core.aggregation) and their bounds.

Paper: paper 000 (Rokhlin & Gurtovaya), sec. 3 eqs. (22)-(31) and sec. 4; the opera update
rules and the Aggregating Algorithm's substitution function are specified in
reference/algorithms.md, sections A.1-A.6 and B ("ref." below).

* hand-worked examples (2 experts, 2-3 steps) for every rule, expected numbers derived
  from the formulas in the comments;
* ``run`` == predict_one/learn_one loop (exactly), R-batched run == R separate runs
  (exactly), weights on the simplex, shapes of ``weights_``;
* EWA bound (30) and the AA bound ln N / eta for arbitrary expert sequences, the AA's
  generalised-prediction (mixability) condition at every step;
* VAWMeta == the VAW forecaster of omkl_core.vaw on Z as features, and == the closed form;
* ML-Prod / ML-Poly / BOA (both versions) / opera's fixed-eta and calibrated EWA == slow,
  literal per-expert re-implementations of the opera formulas written here;
* bad input -> ValueError / TypeError naming the argument.
"""
from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omkl_core import aggregation as agg
from omkl_core import bounds as bd
from omkl_core import compiled

SEEDS = st.integers(0, 2**32 - 1)

# every test runs on both engines of omkl_core.compiled (the NumPy rules, their compiled
# kernels): the ``engine`` fixture of tests/conftest.py
pytestmark = pytest.mark.usefixtures("engine")

# every rule with its default parameters, as factories (a fresh model per call)
RULES = {
    "VAWMeta": lambda: agg.VAWMeta(),
    "VAWMeta_trunc": lambda: agg.VAWMeta(bounds=(0, 1)),
    "VAWMeta_ridge": lambda: agg.VAWMeta(ridge=True),
    "EWA": lambda: agg.EWA(),
    "EWA_gradient": lambda: agg.EWA(gradient=True),
    "EWA_calibrated": lambda: agg.CalibratedEWA(),
    "AA": lambda: agg.AggregatingAlgorithm(),
    "MLProd": lambda: agg.MLProd(),
    "MLPoly": lambda: agg.MLPoly(),
    "BOA_v120": lambda: agg.BOA(),
    "BOA_v122": lambda: agg.BOA(version="v122"),
}
SIMPLEX_RULES = [k for k in RULES if not k.startswith("VAWMeta")]


def _stream(seed, R, T, N, spread=0.3):
    """Expert forecasts around labels in [0, 1], some outside [0, 1] (truncation matters)."""
    rng = np.random.default_rng(seed)
    y = rng.uniform(0.0, 1.0, T)
    scale = rng.uniform(0.02, 1.0, N) * spread * 3
    Z = y[None, :, None] + rng.normal(size=(R, T, N)) * scale + rng.normal(size=(R, 1, N)) * spread
    return Z, y


def _loop(model, Z, y):
    preds = []
    for z_t, y_t in zip(Z, y):
        preds.append(model.predict_one(z_t))
        model.learn_one(z_t, y_t)
    return np.array(preds)


# =======================================================================================
# hand-worked examples (2 experts)
# =======================================================================================
def test_ewa_eq29_hand_example():
    """EWA (29), bounds (0, 1), eta = 1/(2(B-A)^2) = 1/2.
    t=1: z=(-0.5, 1.5) -> zbar=(0, 1); alpha=(1/2,1/2); yhat=1/2; y=0: losses (0, 1).
    t=2: z=(0, 1); alpha ∝ (1, e^{-1/2}); yhat = 1/(1+e^{1/2}); y=0: losses (0, 1).
    t=3: z=(1, 0); alpha ∝ (1, e^{-1}); yhat = 1/(1+e^{-1}).  Next weights ∝ (e^{-1}, e^{-1}·e^{-1/2})
    if y_3 = 1 (losses (0, 1)): alpha_4 = (1, e^{-3/2}) / (1 + e^{-3/2})."""
    Z = np.array([[-0.5, 1.5], [0.0, 1.0], [1.0, 0.0]])
    y = np.array([0.0, 0.0, 1.0])
    m = agg.EWA()
    pred = m.run(Z, y)
    expected = [0.5, 1 / (1 + math.exp(0.5)), 1 / (1 + math.exp(-1))]
    np.testing.assert_allclose(pred, expected, rtol=1e-14)
    np.testing.assert_allclose(m.weights_, np.array([1, math.exp(-1.5)]) / (1 + math.exp(-1.5)),
                               rtol=1e-14)
    np.testing.assert_array_equal(m.expert_predictions_, Z[-1])


def test_ewa_gradient_opera_fixed_eta_hand_example():
    """opera ewa, fixed eta = 1/2, gradient trick (ref. A.2): t=1 z=(0,1), y=0: yhat=1/2,
    r = 2(yhat-y)(yhat-z) = (1/2, -1/2); t=2: p ∝ exp(eta R) = (e^{1/4}, e^{-1/4}),
    z=(0,1): yhat = 1/(1+e^{1/2})."""
    m = agg.EWA(eta=0.5, gradient=True)
    pred = m.run(np.array([[0.0, 1.0], [0.0, 1.0]]), np.array([0.0, 0.0]))
    np.testing.assert_allclose(pred, [0.5, 1 / (1 + math.exp(0.5))], rtol=1e-14)


def test_ewa_calibrated_opera_hand_example():
    """opera ewaCalib (ref. A.2).  t=1: grid {1}, uniform, z=(0,1), y=0: yhat=1/2,
    r_1 = (1/2, -1/2); eta0 = 1/mean(|ln(1/2) + 1/2|, |ln(1/2) - 1/2|) = 1/ln 2; grid
    eta0 * 2^{-3..3}, all members tie (same loss 1/4) -> best = eta0.
    t=2: p ∝ exp(eta0 (1/2, -1/2)), z=(0,1): yhat = 1/(1+e^{eta0}); y=0: member k predicts
    1/(1+e^{eta0 2^k}), smallest for the largest eta -> best = eta0*8 = last -> grid
    extended by eta0*16, 32, 64."""
    m = agg.CalibratedEWA()
    eta0 = 1 / math.log(2)
    pred = m.run(np.array([[0.0, 1.0], [0.0, 1.0]]), np.array([0.0, 0.0]))
    np.testing.assert_allclose(pred, [0.5, 1 / (1 + math.exp(eta0))], rtol=1e-14)
    assert m.eta_ == pytest.approx(8 * eta0, rel=1e-14)
    np.testing.assert_allclose(m.grid_eta_, eta0 * 2.0 ** np.arange(-3, 7), rtol=1e-14)


def test_aggregating_algorithm_hand_example():
    """AA on [0,1], eta = 2 (ref. B): gamma = 1/2 + (1/4) ln(sum w e^{-2(1-z)^2} / sum w e^{-2 z^2}).
    t=1: w=(1/2,1/2), z=(0,1): gamma = 1/2 + (1/4) ln((e^-2 + 1)/(1 + e^-2)) = 1/2; y=0.
    t=2: w ∝ (1, e^-2), z=(0,1): gamma = 1/2 + (1/4) ln(2 e^-2 / (1 + e^-4)); y=1.
    t=3: w = (1/2, 1/2) (cumulative losses (1, 1)), z=(0.25, 0.25): all agree -> gamma = 0.25."""
    Z = np.array([[0.0, 1.0], [0.0, 1.0], [0.25, 0.25]])
    y = np.array([0.0, 1.0, 0.5])
    m = agg.AggregatingAlgorithm()
    pred = m.run(Z, y)
    g2 = 0.5 + 0.25 * math.log(2 * math.exp(-2) / (1 + math.exp(-4)))
    np.testing.assert_allclose(pred, [0.5, g2, 0.25], rtol=1e-13)
    # cumulative losses after t=3: (1 + 0.0625, 1 + 0.0625) -> uniform weights
    np.testing.assert_allclose(m.weights_, [0.5, 0.5], rtol=1e-14)


def test_vawmeta_hand_example():
    """VAW on z (eqs. 9-10), lam = 1.  z1=(1,0), y1=1: S1=diag(2,1), b0=0 -> 0.
    z2=(0,1), y2=2: S2=diag(2,2), b1=(1,0) -> <b1, S2^{-1} z2> = 0.
    z3=(1,1), y3=0: S3=[[3,1],[1,3]], S3^{-1} z3=(1/4,1/4), b2=(1,2) -> 3/4.
    weights_ = S3^{-1} b3 = (1/8)[[3,-1],[-1,3]] (1,2) = (1/8, 5/8).
    ridge=True: S_{t-1}^{-1} z_t: t3 -> (1/2,1/2)·(1,2) = 3/2."""
    Z = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([1.0, 2.0, 0.0])
    m = agg.VAWMeta(lam=1.0)
    np.testing.assert_allclose(m.run(Z, y), [0.0, 0.0, 0.75], atol=1e-15)
    np.testing.assert_allclose(m.weights_, [1 / 8, 5 / 8], rtol=1e-14)
    np.testing.assert_allclose(agg.VAWMeta(ridge=True).run(Z, y), [0.0, 0.0, 1.5], atol=1e-15)


def test_mlpoly_hand_example():
    """opera MLpol (ref. A.4), no truncation.  t=1: R=0 -> uniform, z=(0,1), y=0: yhat=1/2,
    r=(1/2,-1/2), R=(1/2,-1/2), B=1/4, 1/eta = e^-700 + 1/4 + 1/4 = 1/2.
    t=2: p ∝ eta (R)_+ = (1, 0); z=(0,1), y=1: yhat=0, r = 2(0-1)(0-z) = (0, 2),
    R=(1/2, 3/2), B=4, 1/eta = 1/2 + r^2 + 4 - 1/4 = (17/4, 33/4).
    t=3: p ∝ (1/2 · 4/17, 3/2 · 4/33) = (2/17, 2/11) -> p = (11/28, 17/28); z=(0,1): 17/28."""
    Z = np.array([[0.0, 1.0], [0.0, 1.0], [0.0, 1.0]])
    y = np.array([0.0, 1.0, 1.0])
    pred = agg.MLPoly(bounds=None).run(Z, y)
    np.testing.assert_allclose(pred, [0.5, 0.0, 17 / 28], rtol=1e-14, atol=1e-300)


def test_mlprod_hand_example():
    """opera MLprod (ref. A.5), N=2.  t=1: R=(-ln2,-ln2), eta=e^700 -> uniform, z=(0,1), y=0:
    yhat=1/2, r=(1/2,-1/2); L = 1 + 1/4 = 5/4; maxloss=1/2;
    eta2 = min(1/(2·1/2), sqrt(ln2/(5/4))) = sqrt(0.8 ln 2) =: e (< 1);
    R = (e/e^700)(-ln 2) + ln(1 ± e/2) ≈ (ln(1+e/2), ln(1-e/2)).
    t=2: p ∝ e·exp(R) = (1+e/2, 1-e/2)/2; z=(0,1): yhat = (1 - e/2)/2."""
    e = math.sqrt(0.8 * math.log(2))
    pred = agg.MLProd(bounds=None).run(np.array([[0.0, 1.0], [0.0, 1.0]]), np.array([0.0, 1.0]))
    np.testing.assert_allclose(pred, [0.5, (1 - e / 2) / 2], rtol=1e-13)


def test_boa_v120_hand_example():
    """opera 1.2.0 BOA (ref. A.6a), N=2, w0=1/2.  t=1: eta=1, Rreg=0 -> uniform, z=(0,1), y=0:
    yhat=1/2, r=(1/2,-1/2); Bm=1/2, B2=2^ceil(log2 1/2)=1/2; V=1/4;
    eta = min(1/B2=2, sqrt(ln 2/(1/4))) = 2 sqrt(ln 2) =: e;
    Rreg_1 = (1/2 - e/4 + 1/2·1[e/2 > 1/2]) / 2 = (1 - e/4)/2, Rreg_2 = (-1/2 - e/4)/2.
    t=2: p1/p2 = exp(e (Rreg_1 - Rreg_2)) = exp(3e/4); z=(0,1): yhat = 1/(1 + e^{3e/4})."""
    e = 2 * math.sqrt(math.log(2))
    pred = agg.BOA(bounds=None).run(np.array([[0.0, 1.0], [0.0, 1.0]]), np.array([0.0, 1.0]))
    np.testing.assert_allclose(pred, [0.5, 1 / (1 + math.exp(0.75 * e))], rtol=1e-13)


def test_boa_v122_hand_example():
    """opera 1.2.2 BOA (ref. A.6b), N=2.  t=1: S=0 -> w0=(1/2,1/2), z=(0,1), y=0: yhat=1/2,
    r=(1/2,-1/2); S = 2.2/4 = 0.55; Rreg = r - r^2/sqrt(0.55).
    t=2: p1/p2 = exp((Rreg_1 - Rreg_2)/sqrt(S)) = exp(1/sqrt(0.55)); yhat = 1/(1+exp(1/sqrt .55))."""
    pred = agg.BOA(version="v122", bounds=None).run(np.array([[0.0, 1.0], [0.0, 1.0]]),
                                                    np.array([0.0, 1.0]))
    np.testing.assert_allclose(pred, [0.5, 1 / (1 + math.exp(1 / math.sqrt(0.55)))], rtol=1e-13)


# =======================================================================================
# run == loop, batched == separate, simplex, shapes
# =======================================================================================
@pytest.mark.parametrize("rule", list(RULES))
@settings(max_examples=6)
@given(seed=SEEDS, T=st.integers(1, 40), N=st.integers(2, 7))
def test_run_equals_predict_learn_loop_exactly(rule, seed, T, N):
    """NumPy engine: ``run`` is the loop of the rule's step, the per-step loop's arithmetic bit for
    bit.  (The compiled engine takes exp/log from the C library: tests/test_aggregation_engines.py
    compares it with this one.)"""
    Z, y = _stream(seed, 1, T, N)
    loop_model = RULES[rule]()
    run_model = RULES[rule]()
    with compiled.engine("numpy"):
        p_loop = _loop(loop_model, Z[0], y)
        p_run = run_model.run(Z[0], y)
    np.testing.assert_array_equal(p_run, p_loop)
    np.testing.assert_array_equal(run_model.weights_, loop_model.weights_)
    np.testing.assert_array_equal(run_model.expert_predictions_, Z[0, -1])
    assert p_run.shape == (T,) and run_model.weights_.shape == (N,)


@pytest.mark.parametrize("rule", list(RULES))
@settings(max_examples=4)
@given(seed=SEEDS, R=st.integers(2, 4), T=st.integers(1, 40), N=st.integers(2, 6),
       shared_y=st.booleans())
def test_batched_run_equals_separate_runs_exactly(rule, seed, R, T, N, shared_y):
    Z, y = _stream(seed, R, T, N)
    Y = np.broadcast_to(y, (R, T)) if shared_y else \
        np.clip(y + np.random.default_rng(seed).normal(0, 0.1, (R, T)), 0, 1)
    batched = RULES[rule]()
    P = batched.run(Z, y if shared_y else Y)
    assert P.shape == (R, T) and batched.weights_.shape == (R, N)
    assert batched.expert_predictions_.shape == (R, N)
    for r in range(R):
        single = RULES[rule]()
        np.testing.assert_array_equal(P[r], single.run(Z[r], Y[r]))
        np.testing.assert_array_equal(batched.weights_[r], single.weights_)


@pytest.mark.parametrize("rule", list(RULES))
@settings(max_examples=4)
@given(seed=SEEDS, T=st.integers(2, 40), N=st.integers(2, 6), split=st.integers(1, 39))
def test_run_continues_from_current_state(rule, seed, T, N, split):
    """run on two chunks == run on the whole stream (state carried over)."""
    Z, y = _stream(seed, 2, T, N)
    s = min(split, T - 1)
    whole = RULES[rule]().run(Z, y)
    m = RULES[rule]()
    parts = np.concatenate([m.run(Z[:, :s], y[:s]), m.run(Z[:, s:], y[s:])], axis=1)
    np.testing.assert_array_equal(parts, whole)


@pytest.mark.parametrize("rule", SIMPLEX_RULES)
@settings(max_examples=6)
@given(seed=SEEDS, T=st.integers(1, 60), N=st.integers(2, 8), spread=st.floats(0.0, 3.0))
def test_weights_on_the_simplex(rule, seed, T, N, spread):
    """EWA, AA, ML-Prod, ML-Poly, BOA: p_t >= 0, sum p_t = 1 at every step and for p_{T+1}."""
    Z, y = _stream(seed, 1, T, N, spread=spread)
    m = RULES[rule]()
    for z_t, y_t in zip(Z[0], y):
        m.predict_one(z_t)
        w = m.weights_
        assert w.shape == (N,) and np.all(np.isfinite(w)) and np.all(w >= 0)
        assert abs(w.sum() - 1) <= 1e-12
        m.learn_one(z_t, y_t)
    w = m.weights_
    assert np.all(w >= 0) and abs(w.sum() - 1) <= 1e-12


@pytest.mark.parametrize("rule", SIMPLEX_RULES)
def test_convex_rules_predict_inside_the_truncation_interval(rule):
    """With bounds=(0, 1) every convex rule's forecast is a convex combination of zbar in [0, 1]."""
    Z, y = _stream(7, 1, 50, 5, spread=2.0)
    pred = RULES[rule]().run(Z[0], y)
    assert np.all(pred >= 0) and np.all(pred <= 1)


@pytest.mark.parametrize("rule", list(RULES))
def test_weights_before_learning(rule):
    m = RULES[rule]()
    assert m.weights_ is None                      # N unknown
    m.predict_one(np.array([0.2, 0.4, 0.9]))       # N known from z, nothing learned
    w = m.weights_
    assert w.shape == (3,)
    if rule.startswith("VAWMeta"):
        np.testing.assert_array_equal(w, 0.0)      # S_0^{-1} b_0 = 0
    else:
        np.testing.assert_allclose(w, 1 / 3, rtol=1e-15)   # uniform prior (ref. A.1)


def test_weights_with_n_experts_given():
    m = agg.MLPoly(n_experts=4)
    np.testing.assert_allclose(m.weights_, 0.25)
    with pytest.raises(ValueError, match="n_experts"):
        m.predict_one(np.zeros(3))


# =======================================================================================
# EWA bound (30) and the Aggregating Algorithm
# =======================================================================================
def _adversarial_stream(seed, T, N, A, B, mode):
    """Arbitrary expert sequences (wide, beyond [A, B]: truncation applies) and y in [A, B];
    mode 0: uniform noise, 1: endpoints only, 2: one good expert among bad ones."""
    rng = np.random.default_rng(seed)
    w = B - A
    if mode == 0:
        Z = rng.uniform(A - w, B + w, (T, N))
        y = rng.uniform(A, B, T)
    elif mode == 1:
        Z = rng.choice([A, B], size=(T, N))
        y = rng.choice([A, B], size=T)
    else:
        y = rng.uniform(A, B, T)
        Z = rng.uniform(A - w, B + w, (T, N))
        Z[:, rng.integers(N)] = np.clip(y + rng.normal(0, 0.05 * w, T), A, B)
    return Z, y


@settings(max_examples=40)
@given(seed=SEEDS, T=st.integers(1, 120), N=st.integers(1, 10),
       A=st.floats(-5, 5, allow_nan=False), width=st.floats(0.1, 10, allow_nan=False),
       mode=st.integers(0, 2))
def test_paper000_eq30_ewa_bound(seed, T, N, A, width, mode):
    """P000 (30) / CBL Prop. 3.1: L_T(EWA) - min_j L_{T,j}(zbar) <= ln N / eta, eta = 1/(2(B-A)^2)
    (= 8 Y^2 ln N on [-Y, Y]; the paper's halved form 4 Y^2 ln N)."""
    B = A + width
    Z, y = _adversarial_stream(seed, T, N, A, B, mode)
    pred = agg.EWA(bounds=(A, B)).run(Z, y)
    zbar = np.clip(Z, A, B)
    regret = np.sum((pred - y) ** 2) - np.min(np.sum((zbar - y[:, None]) ** 2, axis=0))
    slack = 1e-9 * (1 + T * width**2)
    assert regret <= bd.ewa_bound(N, A, B) + slack
    # the paper's halved form on [-Y, Y]: 1/2 regret <= 4 Y^2 ln N, Y = (B - A)/2
    assert 0.5 * regret <= bd.paper000_eq30_rhs(N, width / 2) + slack


@settings(max_examples=40)
@given(seed=SEEDS, T=st.integers(1, 120), N=st.integers(1, 10),
       A=st.floats(-5, 5, allow_nan=False), width=st.floats(0.1, 10, allow_nan=False),
       mode=st.integers(0, 2))
def test_aggregating_algorithm_bound_ln_n_over_eta(seed, T, N, A, width, mode):
    """CBL Prop. 3.2 (ref. B): L_T(AA) - min_j L_{T,j}(zbar) <= ln N / eta, eta = 2/(B-A)^2."""
    B = A + width
    Z, y = _adversarial_stream(seed, T, N, A, B, mode)
    pred = agg.AggregatingAlgorithm(bounds=(A, B)).run(Z, y)
    zbar = np.clip(Z, A, B)
    regret = np.sum((pred - y) ** 2) - np.min(np.sum((zbar - y[:, None]) ** 2, axis=0))
    assert regret <= bd.aa_bound(N, A, B) + 1e-9 * (1 + T * width**2)


@settings(max_examples=25)
@given(seed=SEEDS, T=st.integers(1, 40), N=st.integers(1, 8),
       A=st.floats(-5, 5, allow_nan=False), width=st.floats(0.1, 10, allow_nan=False),
       mode=st.integers(0, 2))
def test_aggregating_algorithm_substitution_satisfies_mixability(seed, T, N, A, width, mode):
    """At every step the substitution gamma_t lies in [A, B] and (y - gamma_t)^2 <= g_t(y) for
    every y in [A, B] (the generalised prediction condition, ref. B) -- checked on a grid of
    y including the endpoints and the observed y_t."""
    B = A + width
    Z, y = _adversarial_stream(seed, T, N, A, B, mode)
    m = agg.AggregatingAlgorithm(bounds=(A, B))
    for z_t, y_t in zip(Z, y):
        gamma = m.predict_one(z_t)
        assert A <= gamma <= B
        ys = np.concatenate([np.linspace(A, B, 41), [y_t]])
        g = m.generalized_prediction(ys)
        assert np.all((ys - gamma) ** 2 <= g + 1e-9 * width**2)
        m.learn_one(z_t, y_t)


def test_aggregating_algorithm_experts_agree():
    """Sanity (ref. B): when every expert forecasts f in [A, B], gamma = f."""
    m = agg.AggregatingAlgorithm(bounds=(-2.0, 3.0))
    m.learn_one(np.array([0.0, 3.0, -2.0]), 1.0)
    assert m.predict_one(np.array([0.7, 0.7, 0.7])) == pytest.approx(0.7, abs=1e-12)


def test_bounds_constants():
    assert bd.ewa_eta(0, 1) == 0.5 and bd.aa_eta(0, 1) == 2.0
    assert bd.ewa_bound(5, -1, 1) == pytest.approx(8 * math.log(5))       # 8 Y^2 ln N, Y = 1
    assert bd.paper000_eq30_rhs(5, 1.0) == pytest.approx(4 * math.log(5))
    assert bd.aa_bound(5, 0, 1) == pytest.approx(math.log(5) / 2)
    assert agg.EWA(bounds=(-3, 1))._eta == pytest.approx(1 / 32)          # 1/(8 Y^2), Y = 2
    assert agg.AggregatingAlgorithm(bounds=(-3, 1))._eta == pytest.approx(1 / 8)
    with pytest.raises(ValueError, match="eta"):
        bd.ewa_bound(3, 0, 1, eta=0.6)
    with pytest.raises(ValueError, match="A < B"):
        bd.aa_bound(3, 1, 1)


# =======================================================================================
# VAWMeta == VAW on z as features (omkl_core.vaw) == closed form
# =======================================================================================
@settings(max_examples=10)
@given(seed=SEEDS, T=st.integers(1, 40), N=st.integers(1, 6),
       lam=st.floats(0.1, 10, allow_nan=False), trunc=st.booleans())
def test_vawmeta_equals_vaw_on_expert_predictions(seed, T, N, lam, trunc):
    from omkl_core.vaw import VAW

    Z, y = _stream(seed, 1, T, N)
    bounds = (0.0, 1.0) if trunc else None
    m = agg.VAWMeta(lam=lam, bounds=bounds)
    pred = m.run(Z[0], y)
    feats = np.clip(Z[0], 0, 1) if trunc else Z[0]
    v = VAW(lam=lam)
    np.testing.assert_allclose(pred, v.run(feats, y), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(m.weights_, v.w_, rtol=1e-9, atol=1e-12)
    # closed form (P000 eq. 9): yhat_t = b_{t-1}^T (lam I + sum_{s<=t} z_s z_s^T)^{-1} z_t
    closed = [np.sum(y[:t, None] * feats[:t], axis=0)
              @ np.linalg.solve(lam * np.eye(N) + feats[:t + 1].T @ feats[:t + 1], feats[t])
              for t in range(T)]
    np.testing.assert_allclose(pred, closed, rtol=1e-8, atol=1e-10)


# =======================================================================================
# slow, literal re-implementations of the opera formulas (ref. A.1-A.6), per expert
# =======================================================================================
def _ref_regret(x, y, pred):
    # lpred - lexp with the gradient trick: 2(pred-y)*pred - 2(pred-y)*x_k   (ref. A.1)
    return [2 * (pred - y) * pred - 2 * (pred - y) * xk for xk in x]


def _ref_mlpol(Z, y):
    T, N = Z.shape
    R, eta, B, out = [0.0] * N, [math.exp(700)] * N, 0.0, []
    for t in range(T):
        if max(R) > 0:
            s = sum(eta[k] * max(R[k], 0) for k in range(N))
            w = [eta[k] * max(R[k], 0) / s for k in range(N)]
        else:
            w = [1 / N] * N
        pred = sum(w[k] * Z[t, k] for k in range(N))
        out.append(pred)
        r = _ref_regret(Z[t], y[t], pred)
        R = [R[k] + r[k] for k in range(N)]
        newB = max(B, max(rk * rk for rk in r))
        eta = [1 / (1 / eta[k] + r[k] ** 2 + newB - B) for k in range(N)]
        B = newB
    return np.array(out)


def _ref_mlprod(Z, y):
    T, N = Z.shape
    R, L, ml, eta, out = [math.log(1 / N)] * N, [1.0] * N, [0.0] * N, [math.exp(700)] * N, []
    for t in range(T):
        mx = max(R)
        u = [eta[k] * math.exp(R[k] - mx) for k in range(N)]
        w = [uk / sum(u) for uk in u]
        pred = sum(w[k] * Z[t, k] for k in range(N))
        out.append(pred)
        r = _ref_regret(Z[t], y[t], pred)
        for k in range(N):
            L[k] += r[k] ** 2
            ml[k] = max(ml[k], abs(r[k]))
            ne = min(math.inf if ml[k] == 0 else 1 / (2 * ml[k]), math.sqrt(math.log(N) / L[k]))
            R[k] = ne / eta[k] * R[k] + math.log(1 + ne * r[k])
            eta[k] = ne
    return np.array(out)


def _ref_boa_v120(Z, y):
    T, N = Z.shape
    w0 = 1 / N
    eta, V, Bm, Rr, out = [1.0] * N, [0.0] * N, [2.0**-20] * N, [0.0] * N, []
    for t in range(T):
        aux = [math.log(eta[k]) + math.log(w0) + eta[k] * Rr[k] for k in range(N)]
        mx = max(aux)
        u = [math.exp(a - mx) for a in aux]
        w = [uk / sum(u) for uk in u]
        pred = sum(w[k] * Z[t, k] for k in range(N))
        out.append(pred)
        r = _ref_regret(Z[t], y[t], pred)
        for k in range(N):
            Bm[k] = max(Bm[k], abs(r[k]))
            B2 = 2.0 ** math.ceil(math.log2(Bm[k]))
            V[k] += r[k] ** 2
            eta[k] = min(1 / B2, math.inf if V[k] == 0 else math.sqrt(math.log(1 / w0) / V[k]))
            Rr[k] += 0.5 * (r[k] - eta[k] * r[k] ** 2 + B2 * (eta[k] * r[k] > 0.5))
    return np.array(out)


def _ref_boa_v122(Z, y):
    T, N = Z.shape
    w0 = [1 / N] * N
    S, Rr, rr, out = [0.0] * N, [0.0] * N, [0.0] * N, []
    for t in range(T):
        nz = [k for k in range(N) if S[k] > 0]
        w = list(w0)
        if nz:
            aux = {k: -math.log(S[k]) / 2 + math.log(w0[k]) + Rr[k] / math.sqrt(S[k]) for k in nz}
            mx = max(aux.values())
            den = sum(math.exp(a - mx) for a in aux.values())
            mass = sum(w0[k] for k in nz)
            for k in nz:
                w[k] = mass * math.exp(aux[k] - mx) / den
        w = [wk / sum(w) for wk in w]
        pred = sum(w[k] * Z[t, k] for k in range(N))
        out.append(pred)
        r = _ref_regret(Z[t], y[t], pred)
        for k in range(N):
            S[k] += 2.2 * r[k] ** 2
            if S[k] > 0:
                rr[k] = r[k] - r[k] ** 2 / math.sqrt(S[k])
            Rr[k] += rr[k]
    return np.array(out)


def _ref_ewa_fixed(Z, y, eta):
    """opera ewa, fixed eta, gradient trick; returns predictions, final R, cumulative loss."""
    T, N = Z.shape
    R, CL, out = [0.0] * N, 0.0, []
    for t in range(T):
        a = [eta * Rk for Rk in R]
        mx = max(a)
        u = [math.exp(v - mx) for v in a]
        w = [uk / sum(u) for uk in u]
        pred = sum(w[k] * Z[t, k] for k in range(N))
        out.append(pred)
        CL += (pred - y[t]) ** 2
        r = _ref_regret(Z[t], y[t], pred)
        R = [R[k] + r[k] for k in range(N)]
    return out, R, CL


def _ref_ewa_calib(Z, y):
    """opera ewaCalib with grid.eta = NULL, gamma = 2 (ref. A.2), literally: a list grid,
    the best index, extensions re-run from scratch with the fixed-eta EWA."""
    T, N = Z.shape
    grid, Rs, CLs, best, out = [1.0], [[0.0] * N], [0.0], 0, []

    def w_of(eta, R):
        a = [eta * Rk for Rk in R]
        mx = max(a)
        u = [math.exp(v - mx) for v in a]
        return [uk / sum(u) for uk in u]

    for t in range(T):
        p = w_of(grid[best], Rs[best])
        out.append(sum(p[k] * Z[t, k] for k in range(N)))
        for j in range(len(grid)):
            wj = w_of(grid[j], Rs[j])
            pj = sum(wj[k] * Z[t, k] for k in range(N))
            CLs[j] += (pj - y[t]) ** 2
            r = _ref_regret(Z[t], y[t], pj)
            Rs[j] = [Rs[j][k] + r[k] for k in range(N)]
        if t == 0:
            grid = [1 / (sum(abs(math.log(1 / N) + Rs[0][k]) for k in range(N)) / N)]
        # the least cumulative loss; ties within relative 1e-9 -> the smallest eta (the library's
        # stated departure from opera's exact-tie rule, CalibratedEWA's docstring)
        cmin = min(CLs)
        best = min(j for j in range(len(grid)) if CLs[j] <= cmin + 1e-9 * cmin)
        if best == len(grid) - 1:
            for f in (2, 4, 8):
                eta = grid[best] * f
                _, R_new, CL_new = _ref_ewa_fixed(Z[:t + 1], y[:t + 1], eta)
                grid, Rs, CLs = grid + [eta], Rs + [R_new], CLs + [CL_new]
        if best == 0:
            base = grid[0]
            for f in (2, 4, 8):
                eta = base / f
                _, R_new, CL_new = _ref_ewa_fixed(Z[:t + 1], y[:t + 1], eta)
                grid, Rs, CLs = [eta] + grid, [R_new] + Rs, [CL_new] + CLs
            best += 3
    return np.array(out), grid[best]


REFERENCES = {
    "MLPoly": (lambda: agg.MLPoly(bounds=None), _ref_mlpol),
    "MLProd": (lambda: agg.MLProd(bounds=None), _ref_mlprod),
    "BOA_v120": (lambda: agg.BOA(bounds=None), _ref_boa_v120),
    "BOA_v122": (lambda: agg.BOA(version="v122", bounds=None), _ref_boa_v122),
    "EWA_gradient": (lambda: agg.EWA(eta=0.7, bounds=None, gradient=True),
                     lambda Z, y: np.array(_ref_ewa_fixed(Z, y, 0.7)[0])),
    "EWA_calibrated": (lambda: agg.CalibratedEWA(bounds=None),
                       lambda Z, y: _ref_ewa_calib(Z, y)[0]),
}


@pytest.mark.parametrize("rule", list(REFERENCES))
@settings(max_examples=8)
@given(seed=SEEDS, T=st.integers(1, 30), N=st.integers(2, 6), spread=st.floats(0.0, 2.0))
def test_opera_rules_equal_literal_reference_implementation(rule, seed, T, N, spread):
    """ML-Poly (A.4), ML-Prod (A.5), BOA 1.2.0 / 1.2.2 (A.6), fixed-eta and calibrated EWA
    (A.2), all with the gradient trick (A.1), on raw (untruncated) forecasts."""
    factory, ref = REFERENCES[rule]
    Z, y = _stream(seed, 1, T, N, spread=spread)
    np.testing.assert_allclose(factory().run(Z[0], y), ref(Z[0], y), rtol=1e-9, atol=1e-12)


@settings(max_examples=5)
@given(seed=SEEDS, T=st.integers(20, 80), N=st.integers(2, 6))
def test_ewa_calibrated_grid_and_eta_follow_opera(seed, T, N):
    """The calibrated eta in use after T steps equals the literal opera re-implementation's."""
    Z, y = _stream(seed, 1, T, N)
    m = agg.CalibratedEWA(bounds=None)
    m.run(Z[0], y)
    _, eta_ref = _ref_ewa_calib(Z[0], y)
    assert m.eta_ == pytest.approx(eta_ref, rel=1e-12)


def test_ewa_eq29_equals_literal_recursion():
    """EWA (29) as the multiplicative recursion alpha_{t+1} ∝ alpha_t exp(-eta (zbar - y)^2)."""
    Z, y = _stream(3, 1, 50, 5, spread=1.0)
    zbar = np.clip(Z[0], 0, 1)
    alpha, out = np.full(5, 0.2), []
    for t in range(50):
        out.append(alpha @ zbar[t])
        alpha = alpha * np.exp(-0.5 * (zbar[t] - y[t]) ** 2)
        alpha /= alpha.sum()
    m = agg.EWA()
    np.testing.assert_allclose(m.run(Z[0], y), out, rtol=1e-10)
    np.testing.assert_allclose(m.weights_, alpha, rtol=1e-10)


def test_truncation_is_applied_before_the_rule():
    """bounds=(0, 1) is the rule on clip(z, 0, 1) (P000 eq. 28) -- for every rule."""
    Z, y = _stream(11, 1, 30, 4, spread=2.0)
    pairs = [(agg.VAWMeta(bounds=(0, 1)), agg.VAWMeta()),
             (agg.EWA(), agg.EWA(eta=0.5, bounds=None)),
             (agg.MLProd(), agg.MLProd(bounds=None)),
             (agg.MLPoly(), agg.MLPoly(bounds=None)),
             (agg.BOA(), agg.BOA(bounds=None)),
             (agg.BOA(version="v122"), agg.BOA(version="v122", bounds=None)),
             (agg.CalibratedEWA(), agg.CalibratedEWA(bounds=None))]
    for trunc, raw in pairs:
        np.testing.assert_array_equal(trunc.run(Z[0], y), raw.run(np.clip(Z[0], 0, 1), y))


# =======================================================================================
# bad input
# =======================================================================================
@pytest.mark.parametrize("rule", list(RULES))
def test_bad_input_names_the_argument(rule):
    m = RULES[rule]()
    m.learn_one(np.array([0.1, 0.2, 0.3]), 0.5)
    with pytest.raises(ValueError, match="z"):
        m.predict_one(np.array([0.1, 0.2]))                    # N mismatch
    with pytest.raises(ValueError, match="z"):
        m.learn_one(np.array([0.1, np.nan, 0.3]), 0.5)         # NaN in z
    with pytest.raises(ValueError, match="y"):
        m.learn_one(np.array([0.1, 0.2, 0.3]), float("nan"))   # NaN in y
    with pytest.raises(ValueError, match="z"):
        m.predict_one(np.ones((2, 3)))                          # wrong shape
    with pytest.raises(ValueError, match="Z"):
        m.run(np.ones((2, 5, 3)), np.ones(5))                   # batched run on a single-stream model
    fresh = RULES[rule]()
    with pytest.raises(ValueError, match="Z"):
        fresh.run(np.array([[0.1, np.inf]]), np.array([0.0]))
    with pytest.raises(ValueError, match="y"):
        fresh.run(np.ones((4, 2)), np.ones(3))
    with pytest.raises(ValueError, match="y"):
        fresh.run(np.ones((4, 2)), np.array([0.0, 1.0, np.nan, 0.0]))
    with pytest.raises(ValueError, match="Z"):
        fresh.run(np.ones(4), np.ones(4))
    with pytest.raises(TypeError, match="y"):
        fresh.learn_one(np.ones(2), "a")


@pytest.mark.parametrize("make", [
    lambda b: agg.VAWMeta(bounds=b), lambda b: agg.EWA(bounds=b),
    lambda b: agg.AggregatingAlgorithm(bounds=b), lambda b: agg.MLProd(bounds=b),
    lambda b: agg.MLPoly(bounds=b), lambda b: agg.BOA(bounds=b)])
@pytest.mark.parametrize("bounds", [(1.0, 1.0), (2.0, 1.0), (0.0, float("nan")), (0.0,), "ab"])
def test_bad_bounds_raise(make, bounds):
    with pytest.raises((ValueError, TypeError), match="bounds"):
        make(bounds)


def test_bad_hyper_parameters_raise():
    for eta in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="eta"):
            agg.EWA(eta=eta)
        with pytest.raises(ValueError, match="eta"):
            agg.AggregatingAlgorithm(eta=eta)
    with pytest.raises(ValueError, match="eta"):
        agg.AggregatingAlgorithm(eta=2.5)            # > 2/(B-A)^2: not mixable
    with pytest.raises(TypeError, match="eta"):
        agg.CalibratedEWA(eta=0.3)                    # the grid is calibrated online (ref. A.2)
    with pytest.raises(ValueError, match="eta"):
        agg.EWA(bounds=None)                          # default eta needs bounds
    with pytest.raises(ValueError, match="bounds"):
        agg.AggregatingAlgorithm(bounds=None)
    for lam in (0.0, -1.0):
        with pytest.raises(ValueError, match="lam"):
            agg.VAWMeta(lam=lam)
    with pytest.raises(ValueError, match="version"):
        agg.BOA(version="v999")
    with pytest.raises(ValueError, match="n_experts"):
        agg.MLProd(n_experts=1)
    with pytest.raises(ValueError, match="n_experts"):
        agg.MLProd().learn_one(np.array([0.3]), 0.1)   # ln N = 0: opera's MLprod is undefined
    with pytest.raises(TypeError, match="n_experts"):
        agg.EWA(n_experts=2.5)
    with pytest.raises(TypeError, match="gradient"):
        agg.EWA(gradient="yes")
    with pytest.raises(TypeError, match="calibrated"):
        agg.EWA(calibrated=True)                      # removed shim: CalibratedEWA is the class


# =======================================================================================
# ML-Poly: the polynomial-potential (second-order) inequality of its analysis
# =======================================================================================
@settings(max_examples=30)
@given(seed=SEEDS, T=st.integers(2, 80), N=st.integers(2, 8), spread=st.floats(0.0, 3.0),
       trunc=st.booleans())
def test_mlpoly_polynomial_potential_second_order_bound(seed, T, N, spread, trunc):
    """ML-Poly (opera MLpol, ref. A.4), potential argument of Gaillard, Stoltz & van Erven
    (2014) (derived here for opera's rates; not a verbatim theorem of the paper):
    with the gradient trick sum_k p_{t,k} r_{t,k} = 0 and p_t ∝ eta_t (R_{t-1})_+, so
    (a+b)_+^2 <= (a_+ + b)^2 and eta_{t+1} <= eta_t give, for Phi_t = sum_k eta_{t+1,k} (R_{t,k})_+^2,

        Phi_T <= Phi_1 + sum_{t=2}^T sum_k eta_{t,k} r_{t,k}^2,
        R_{T,k} <= sqrt( (1/eta_{T+1,k}) (Phi_1 + sum_{t>=2} sum_j eta_{t,j} r_{t,j}^2) ),

    where 1/eta_{T+1,k} = e^-700 + sum_t r_{t,k}^2 + max_{t,j} r_{t,j}^2 (second order).
    (t = 1 is kept out of the sum: opera's eta_1 = e^700 makes it vacuous.)"""
    Z, y = _stream(seed, 1, T, N, spread=spread)
    m = agg.MLPoly(bounds=(0, 1) if trunc else None)
    zs = np.clip(Z[0], 0, 1) if trunc else Z[0]
    etas, rs = [], []
    for t in range(T):
        etas.append(m.eta_[0].copy() if t else np.full(N, math.exp(700)))
        yhat = m.predict_one(Z[0, t])
        assert abs(float(m.weights_ @ (2 * (yhat - y[t]) * (yhat - zs[t])))) <= 1e-12 * (1 + N)
        m.learn_one(Z[0, t], y[t])
        rs.append(2 * (yhat - y[t]) * (yhat - zs[t]))
    etas, rs = np.array(etas), np.array(rs)
    R = rs.sum(axis=0)
    eta_next = m.eta_[0]
    phi_T = np.sum(eta_next * np.maximum(R, 0) ** 2)
    phi_1 = np.sum(etas[1] * np.maximum(rs[0], 0) ** 2)
    rhs = phi_1 + np.sum(etas[1:] * rs[1:] ** 2)
    assert phi_T <= rhs * (1 + 1e-9) + 1e-12
    np.testing.assert_allclose(1 / eta_next, math.exp(-700) + np.sum(rs**2, 0) + np.max(rs**2),
                               rtol=1e-9)
    assert np.all(R <= np.sqrt(rhs / eta_next) * (1 + 1e-9) + 1e-12)


# =======================================================================================
# calibrated EWA when the plain average is best: opera's grid grows at every step
# =======================================================================================
def _unrelated_stream(seed, R, T, N):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.2, 1.2, (R, T, N)), rng.uniform(0.0, 1.0, T)


@settings(max_examples=5)
@given(seed=SEEDS, T=st.integers(30, 60), N=st.integers(2, 5))
def test_ewa_calibrated_growing_grid_equals_literal_opera(seed, T, N):
    """Experts unrelated to y: the smallest etas tie exactly (all predict the plain average),
    opera's order() picks the smallest and the grid is extended downwards again and again.
    aggregation.EWA gives the same predictions as the literal list-based re-implementation.
    (Which of the near-tied tiny etas is "best" is decided by last-bit rounding, which differs
    between any two summation orders, so the eta in use is compared in the next test, against
    the same arithmetic without the compact representation.)"""
    Z, y = _unrelated_stream(seed, 1, T, N)
    m = agg.CalibratedEWA(bounds=None)
    pred = m.run(Z[0], y)
    ref_pred, _ = _ref_ewa_calib(Z[0], y)
    np.testing.assert_allclose(pred, ref_pred, rtol=1e-9, atol=1e-12)


@settings(max_examples=5)
@given(seed=SEEDS, R=st.integers(1, 3), T=st.integers(30, 120), N=st.integers(2, 6),
       unrelated=st.booleans())
def test_ewa_calibrated_compact_members_equal_explicit_reruns(seed, R, T, N, unrelated):
    """Members stored as "uniform" (weights exactly 1/N at every past step) are bit-for-bit
    the members opera re-runs from scratch: with that shortcut disabled (every new member
    re-run on the whole history) predictions, weights, eta in use and grid are identical."""
    Z, y = _unrelated_stream(seed, R, T, N) if unrelated else _stream(seed, R, T, N)
    fast = agg.CalibratedEWA()
    with compiled.engine("numpy"):      # the patched method below belongs to the NumPy loop
        P = fast.run(Z, y)
    with pytest.MonkeyPatch.context() as mp, compiled.engine("numpy"):
        mp.setattr(agg.CalibratedEWA, "_saturation_exponent",
                   lambda self: np.full(self._R, -(1 << 40), dtype=np.int64))
        slow = agg.CalibratedEWA()
        P_slow = slow.run(Z, y)
    np.testing.assert_array_equal(P, P_slow)
    np.testing.assert_array_equal(fast.weights_, slow.weights_)
    np.testing.assert_array_equal(fast.eta_, slow.eta_)
    for g_fast, g_slow in zip(fast.grid_eta_, slow.grid_eta_):
        np.testing.assert_array_equal(g_fast, g_slow)


@settings(max_examples=4)
@given(seed=SEEDS, R=st.integers(2, 4), T=st.integers(30, 80), N=st.integers(2, 6))
def test_ewa_calibrated_growing_grid_batched_equals_separate(seed, R, T, N):
    Z, y = _unrelated_stream(seed, R, T, N)
    batched = agg.CalibratedEWA()
    P = batched.run(Z, y)
    for r in range(R):
        single = agg.CalibratedEWA()
        np.testing.assert_array_equal(P[r], single.run(Z[r], y))
        np.testing.assert_array_equal(batched.grid_eta_[r], single.grid_eta_)
        np.testing.assert_array_equal(batched.weights_[r], single.weights_)


# ---------------------------------------------------------------------------------------
# issue 16: CalibratedEWA is its own class (issue 20: the EWA(calibrated=True) shim is gone)
# ---------------------------------------------------------------------------------------
def test_calibrated_ewa_class_and_state():
    Z, y = _stream(3, 1, 120, 5)
    new = agg.CalibratedEWA()
    new.run(Z[0], y)
    st = new.state_
    assert isinstance(st, agg.CalibratedEWAState)
    assert st.Rg.shape == (1, st.k_hi - st.k_lo + 1, 5) and st.CL.shape == st.Rg.shape[:2]
    assert len(st.hist_z) == 120 and st.eta0.shape == (1,) and new.t_ == 120
    # a fixed-eta EWA is not calibrated and has no grid
    assert not hasattr(agg.EWA(eta=0.5), "calibrated") and not hasattr(agg.EWA(eta=0.5), "grid_eta_")


@pytest.mark.parametrize("cls", [agg.VAWMeta, agg.EWA, agg.CalibratedEWA, agg.AggregatingAlgorithm,
                                 agg.MLProd, agg.MLPoly, agg.BOA])
def test_constructors_are_keyword_only_after_n_experts(cls):
    import inspect

    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert params[0].name == "n_experts"
    assert all(p.kind is p.KEYWORD_ONLY for p in params[1:])
    with pytest.raises(TypeError):
        cls(3, (0, 1))            # a second positional argument is refused
    assert cls(3).n_experts == 3


@pytest.mark.skipif(not compiled.numba_available(), reason="Numba not installed")
@pytest.mark.parametrize("rule", ["VAWMeta", "VAWMeta_trunc", "VAWMeta_ridge"])
@settings(max_examples=6)
@given(seed=SEEDS, T=st.integers(1, 40), N=st.integers(2, 9))
def test_meta_vaw_predict_learn_loop_equals_compiled_run_bit_for_bit(rule, seed, T, N):
    """Compiled engine: the meta VAW's ``predict_one`` then ``learn_one`` run the step of the compiled
    kernel that ``run`` runs (``vaw.sm_step``, the forecast's u = S^{-1} z_t reused by the update),
    so the per-step loop gives ``run``'s numbers bit for bit (paper 000 eqs. (9)-(10) on z_t)."""
    Z, y = _stream(seed, 1, T, N)
    with compiled.engine("numba"):
        loop_model = RULES[rule]()
        p_loop = _loop(loop_model, Z[0], y)
        run_model = RULES[rule]()
        p_run = run_model.run(Z[0], y)
    np.testing.assert_array_equal(p_loop, p_run)
    np.testing.assert_array_equal(loop_model.P_, run_model.P_)
    np.testing.assert_array_equal(loop_model.w_, run_model.w_)


# the rules whose predict_one / learn_one run compiled step kernels on the "numba" engine, with the
# state arrays each one keeps
STEP_KERNEL_STATE = {
    "EWA": ("cum_",), "EWA_gradient": ("cum_",), "AA": ("cum_loss_",),
    "MLProd": ("log_weights_", "L_", "maxloss_", "eta_"), "MLPoly": ("regret_", "eta_", "B_"),
    "BOA_v120": ("Rreg_", "eta_", "V_", "Bmax_"), "BOA_v122": ("Rreg_", "S_"),
}


@pytest.mark.skipif(not compiled.numba_available(), reason="Numba not installed")
@pytest.mark.parametrize("rule", list(STEP_KERNEL_STATE))
@pytest.mark.parametrize("bounds", ["default", None])
@settings(max_examples=6)
@given(seed=SEEDS, T=st.integers(1, 40), N=st.integers(2, 9), learn_alone=st.floats(0.0, 1.0))
def test_compiled_step_kernels_give_run_numbers_bit_for_bit(rule, bounds, seed, T, N, learn_alone):
    """Compiled engine (issue 44): ``predict_one`` / ``learn_one`` run the rule's step kernels, which
    share the rule's forecast and update with its whole-stream kernel (``_kernels.<rule>_step_*``),
    so the per-step loop -- with some steps learned without a forecast first -- gives ``run``'s
    predictions, weights and state bit for bit; the truncation (28) is the kernel's (a clip in NumPy's
    order) on forecasts outside [0, 1]."""
    Z, y = _stream(seed, 1, T, N, spread=0.6)
    if bounds is None and rule == "AA":
        return                                                  # the AA needs [A, B]
    no_bounds = {"bounds": None, **({"eta": 0.5} if rule.startswith("EWA") else {})}   # EWA's eta needs bounds
    make = RULES[rule] if bounds == "default" else (lambda: RULES[rule]().clone(**no_bounds))
    alone = int(learn_alone * T)                                # steps t < alone: learn_one only
    with compiled.engine("numba"):
        loop_model, run_model = make(), make()
        p_loop = []
        for t in range(T):
            if t >= alone:
                p_loop.append(loop_model.predict_one(Z[0, t]))
            loop_model.learn_one(Z[0, t], y[t])
        p_run = run_model.run(Z[0], y)
    np.testing.assert_array_equal(p_loop, p_run[alone:])
    np.testing.assert_array_equal(loop_model.weights_, run_model.weights_)
    for name in STEP_KERNEL_STATE[rule]:
        np.testing.assert_array_equal(getattr(loop_model, name), getattr(run_model, name), err_msg=name)
    assert loop_model.t_ == run_model.t_ == T


@pytest.mark.parametrize("rule", list(RULES))
def test_learn_one_refuses_a_z_changed_after_predict_one_before_any_state_change(rule):
    """``learn_one`` recognises the z_t ``predict_one`` checked by its bytes (validation.Checked), not
    by the object: a z changed in place after the forecast (NaN, inf, a huge value) is checked again
    and refused naming z, the state untouched; the same values in another array (or a list) reuse the
    forecast, with the numbers of the plain loop."""
    Z, y = _stream(7, 1, 12, 4)
    m = RULES[rule]()
    _loop(m, Z[0, :5], y[:5])
    for bad in (np.nan, np.inf, 1e120):
        z = Z[0, 5].copy()
        m.predict_one(z)
        before = pickle.dumps(m)
        z[2] = bad
        with pytest.raises(ValueError, match="z"):
            m.learn_one(z, y[5])
        assert m.t_ == 5 and pickle.dumps(m) == before
    ref = RULES[rule]()
    p_ref = _loop(ref, Z[0], y)
    p = list(_loop(m, Z[0, 5:6], y[5:6]))
    for t in range(6, 12):
        p.append(m.predict_one(Z[0, t].copy()))
        m.learn_one(list(Z[0, t]) if t % 2 else Z[0, t].copy(), y[t])
    np.testing.assert_array_equal(p, p_ref[5:])
    np.testing.assert_array_equal(m.weights_, ref.weights_)


# =======================================================================================
# calibrated EWA: the choice of the member is stable under last-bit differences (issue 51)
# =======================================================================================
@pytest.mark.parametrize("choose", ["numpy", "kernel"])
def test_ewa_calibrated_choice_is_the_same_under_a_one_ulp_change_of_the_losses(choose):
    """Two members whose cumulative losses differ by one ulp (another BLAS kernel's rounding of the
    forecasts) are tied: the smallest eta is followed whichever of the two is one ulp smaller (a plain
    argmin follows the other one in the second case); a member better by 1e-8 relative (ten times the
    tie tolerance) is followed, however large its eta. Both the NumPy step (d) and the compiled kernel's."""
    ks = np.arange(-1, 3)                                           # stored members k = -1..2 (k_lo = -1)

    def best(CLrow, lo=-1, hi=2, CLU=np.inf):
        CLrow = np.asarray(CLrow, dtype=np.float64)
        if choose == "kernel":
            return int(agg._kernels.calib_choose(CLrow, lo, hi, -1, CLU))
        return int(agg.CalibratedEWA._choose(CLrow[None], ks, np.array([lo]), np.array([hi]), -1, np.array([CLU]))[0])

    c = 0.3741
    up = np.nextafter(c, np.inf)
    assert best([0.9, up, c, 0.8]) == 0 and best([0.9, c, up, 0.8]) == 0     # k = 0 either way
    assert best([0.9, c * (1 + 1e-8), c, 0.8]) == 1                          # a real difference decides
    assert best([0.9, up, c, 0.8], lo=1) == 1                                # only the active grid 1..2
    # a member stored as the uniform one (below k_lo = -1, grid lo = -3) ties the same way
    assert best([up, 0.9, 0.9, 0.9], lo=-3, CLU=c) == -3 and best([c, 0.9, 0.9, 0.9], lo=-3, CLU=up) == -3
    assert best([c * (1 - 1e-8), 0.9, 0.9, 0.9], lo=-3, CLU=c) == -1
