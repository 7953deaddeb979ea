"""The baselines as learners (issue 41): ``RunningMean``, ``ExponentialMean(half_life)``, ``LastValue``.

Each forecast is pinned by its closed form (exact ``Fraction`` arithmetic on small cases), the first
step follows the one abstention rule (no label seen: ``None``, scored by the fallback 0.0), and the
conformance checks pass (``check_learner``; ``tests/test_conformance.py`` runs them over every
registered learner).
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import omkl_core as ok
from omkl_core.protocol import running_mean

labels = st.lists(st.integers(-1000, 1000), min_size=1, max_size=40)


@settings(deadline=None, max_examples=50)
@given(ys=labels)
def test_running_mean_is_the_protocols_baseline_bit_for_bit(ys):
    y = np.array(ys, dtype=float)
    X = np.zeros((len(y), 2))
    trace = ok.run_online(ok.RunningMean(), X, y)
    np.testing.assert_array_equal(trace.predictions, running_mean(y))       # the CLI's baseline, f_1 = 0
    assert trace.abstained is not None and trace.abstained.tolist() == [True] + [False] * (len(y) - 1)
    for t in range(1, len(y)):                                               # exact: mean of y_1..y_{t-1}
        assert Fraction(trace.predictions[t]) == pytest.approx(Fraction(sum(ys[:t]), t), rel=1e-15)


@settings(deadline=None, max_examples=50)
@given(ys=labels)
def test_exponential_mean_with_half_life_one_is_the_halving_weighted_mean_exactly(ys):
    """half_life = 1: w = 1/2 exactly, so yhat_t = sum_s 2^-(t-1-s) y_s / sum_s 2^-(t-1-s) in Fractions."""
    y = np.array(ys, dtype=float)
    p = ok.ExponentialMean(half_life=1.0).run(np.zeros((len(y), 1)), y)
    assert p[0] == 0.0                               # t = 1: the fallback of every run (omkl_core.base)
    for t in range(1, len(y)):
        w = [Fraction(1, 2 ** (t - 1 - s)) for s in range(t)]
        want = sum(wi * yi for wi, yi in zip(w, ys[:t])) / sum(w)
        assert p[t] == pytest.approx(float(want), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("h", [1.0, 3.0, 10.0, 25.5])
def test_exponential_mean_weighs_the_label_half_life_steps_back_half_as_much(h):
    """The weight of a label decays by 2 every ``half_life`` steps: one unit label at the newest
    position against one ``h`` steps back (integer h) gives forecasts in the ratio 2."""
    if h != int(h):
        w = 2.0 ** (-1.0 / h)
        m = ok.ExponentialMean(half_life=h)
        m.learn_one(np.zeros(1), 1.0)
        m.learn_one(np.zeros(1), 0.0)
        assert m.predict_one(np.zeros(1)) == pytest.approx(w / (1 + w), rel=1e-12)
        return
    n = int(h) + 1
    newest = np.zeros(n)
    newest[-1] = 1.0
    old = np.zeros(n)
    old[0] = 1.0
    a, b = ok.ExponentialMean(half_life=h), ok.ExponentialMean(half_life=h)
    for u, v in zip(newest, old):
        a.learn_one(np.zeros(1), u)
        b.learn_one(np.zeros(1), v)
    assert a.predict_one(np.zeros(1)) == pytest.approx(2.0 * b.predict_one(np.zeros(1)), rel=1e-12)


def test_last_value_is_the_persistence_forecast_and_abstains_first():
    y = np.array([3.0, -1.0, 4.0, 1.5])
    m = ok.LastValue()
    assert m.predict_one(np.zeros(2)) is None
    np.testing.assert_array_equal(ok.LastValue().run(np.zeros((4, 2)), y)[1:], y[:-1])


@pytest.mark.parametrize("cls", [ok.RunningMean, ok.ExponentialMean, ok.LastValue])
def test_baselines_are_registered_conform_and_ignore_the_features(cls):
    assert ok.registry.learners()[cls.__name__] is cls and cls.__name__ in ok.registry.buildable()
    report = ok.checks.check_learner(cls())
    assert len(report.passed) == 12 and "check_run_equals_loop" in str(report)
    rng = np.random.default_rng(0)
    y = rng.normal(size=30)
    np.testing.assert_array_equal(cls().run(rng.normal(size=(30, 3)), y), cls().run(np.zeros((30, 3)), y))
    with pytest.raises(ValueError, match="x"):
        m = cls()
        m.learn_one(np.zeros(3), 1.0)
        m.predict_one(np.zeros(2))                                   # the dimension is fixed by the first row


def test_half_life_must_be_positive():
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="half_life"):
            ok.ExponentialMean(half_life=bad)


def test_check_learner_reports_what_passed_and_what_is_skipped():
    """Issue 39 item 4: check_learner says what passed (one line per check) and the skips' reasons."""
    report = ok.checks.check_learner(ok.OnlineRidge())
    text = str(report)
    assert text.splitlines()[0].startswith("check_learner(OnlineRidge(") and "checks passed" in text
    assert "run(X, y) gives the numbers of the predict_one/learn_one loop" in text
    pytest.importorskip("river")
    from river import linear_model
    r = ok.checks.check_learner(ok.interop.from_river(linear_model.LinearRegression()))
    assert any(name == "check_deterministic" for name, _ in r.passed)   # NaN only where it abstains
