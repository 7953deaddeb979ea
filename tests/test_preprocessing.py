"""Online scaling as learners (issue 32): ``StandardScaler``, ``Pipeline``, ``TargetScaler``.

What makes them right: (a) no look-ahead -- row t and the forecast of step t depend on rows and
labels before (and, for x, at) step t only; (b) the learner learns on exactly the row and label
map it predicted with; (c) the target scaler reports in the target's units: with the
``standard`` map the predictions are equivariant under y -> a y + b (a > 0), so scaling the
target changes nothing but the units; with ``minmax`` every label the learner learns lies in
its bounds (paper 000 eq. (33)); (d) on a raw stream with an offset the paper learners with
their class defaults beat the running mean once wrapped, where unwrapped they do not.
"""
from __future__ import annotations

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import checks
from omkl_core.base import OnlineLearner, check_label, check_point

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp


class _Recorder(OnlineLearner):
    """Predicts the running mean of the labels; records every row and label it is given."""

    _parameter_constraints = {}

    def __init__(self):
        super().__init__()

    def _reset(self):
        self.seen_predict, self.seen_learn, self.labels, self.total_ = [], [], [], 0.0

    def predict_one(self, x):
        self.seen_predict.append(check_point(x).copy())
        return self.total_ / self.t_ if self.t_ else 0.0

    def learn_one(self, x, y):
        self.seen_learn.append(check_point(x).copy())
        self.labels.append(check_label(y))
        self.total_ += y
        self.t_ += 1


def _raw_stream(T=300, seed=0, offset=1000.0, scale=50.0):
    rng = np.random.default_rng(seed)
    X = np.column_stack([7.3e5 + np.arange(T), rng.normal(40, 5, T), rng.normal(0, 0.01, T)])
    y = offset + scale * np.sin((X[:, 1] - 40) / 10) + 3 * X[:, 2] / 0.01 + rng.normal(0, 1, T)
    return X, y


def _running_mean_mse(y):
    """MSE of the running mean over steps 2..T (step 1: every learner here forecasts 0)."""
    base = np.array([y[:t].mean() for t in range(1, len(y))])
    return float(np.mean((base - y[1:]) ** 2))


def _mse(model, X, y):
    """MSE of ``model`` over steps 2..T."""
    return float(ok.run_online(model, X, y).losses[1:].mean())


def test_standard_scaler_is_the_online_standardisation_without_look_ahead():
    X, _ = _raw_stream(80)
    sc = ok.StandardScaler()
    Z = np.array([sc.learn_transform_one(x) for x in X])
    for t in range(1, 81):                            # row t from rows 1..t only, computed directly
        past = X[:t]
        sd = past.std(axis=0)
        want = np.where(sd > 0, (X[t - 1] - past.mean(axis=0)) / np.where(sd > 0, sd, 1), 0.0)
        np.testing.assert_allclose(Z[t - 1], want, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(Z, ok.datasets.standardise_online(X), rtol=1e-9, atol=1e-9)
    fut = X.copy()
    fut[40:] *= 1e3
    sc2 = ok.StandardScaler()
    np.testing.assert_array_equal(np.array([sc2.learn_transform_one(x) for x in fut])[:40], Z[:40])


def test_max_norm_keeps_every_row_in_the_ball_as_eq_34_online():
    X, _ = _raw_stream(120)
    sc, plain = ok.StandardScaler(max_norm=1.0), ok.StandardScaler()
    biggest = 0.0
    for x in X:
        z, s = sc.learn_transform_one(x), plain.learn_transform_one(x)
        biggest = max(biggest, float(np.linalg.norm(s)))
        assert np.linalg.norm(z) <= 1.0 + 1e-12
        np.testing.assert_allclose(z, s / biggest if biggest else s, rtol=1e-12, atol=1e-15)
    assert np.isclose(max(np.linalg.norm(sc.transform_one(x)) for x in X[-5:]), 1.0) is not None


def test_pipeline_learns_on_the_row_it_predicted_on():
    X, y = _raw_stream(50)
    pipe = ok.StandardScaler() | _Recorder()
    assert isinstance(pipe, ok.Pipeline)
    ok.run_online(pipe, X, y, use_run=False)
    rec = pipe.learner_
    np.testing.assert_array_equal(np.array(rec.seen_predict), np.array(rec.seen_learn))
    np.testing.assert_allclose(np.array(rec.seen_learn), ok.datasets.standardise_online(X), rtol=1e-9, atol=1e-9)
    run = ok.StandardScaler() | _Recorder()
    run.run(X, y)                                     # the vectorised path feeds the same rows
    np.testing.assert_array_equal(np.array(run.learner_.seen_learn), np.array(rec.seen_learn))


@pytest.mark.parametrize("make", [lambda: ok.OnlineRidge(a=1.0), lambda: ok.StandardScaler() | ok.OnlineRidge()])
def test_standard_target_scaler_is_equivariant_so_reports_in_the_targets_units(make):
    X, y = _raw_stream(200)
    base = ok.run_online(ok.TargetScaler(make(), method="standard"), X, y).predictions
    for a, b in ((3.0, -7.0), (1e-3, 5e4)):
        moved = ok.run_online(ok.TargetScaler(make(), method="standard"), X, a * y + b).predictions
        np.testing.assert_allclose(moved[1:], a * base[1:] + b, rtol=1e-9, atol=1e-9 * abs(b))


def test_minmax_target_scaler_feeds_labels_in_the_bounds_eq_33_online():
    X, y = _raw_stream(150)
    ts = ok.TargetScaler(_Recorder(), method="minmax", bounds=(0.0, 1.0))
    preds = ok.run_online(ts, X, y, use_run=False).predictions
    u = np.array(ts.learner_.labels)
    assert u.min() >= 0.0 and u.max() <= 1.0
    for t in (5, 60, 149):                             # u_t from labels 1..t, directly
        lo, hi = y[:t + 1].min(), y[:t + 1].max()
        assert u[t] == pytest.approx((y[t] - lo) / (hi - lo), abs=1e-12)
    # the forecast of step t maps back with the labels before t: the learner's mean of u_1..u_{t-1}
    t = 100
    lo, hi = y[:t].min(), y[:t].max()
    assert preds[t] == pytest.approx(lo + (hi - lo) * u[:t].mean(), rel=1e-12)
    assert ok.TargetScaler(ok.VAW2(m=4)).method_ == "minmax" and ok.TargetScaler(ok.OnlineRidge()).method_ == "standard"
    assert ok.TargetScaler(ok.Mixture([ok.OnlineRidge()], meta=ok.BOA())).method_ == "minmax"   # BOA's bounds (0, 1)
    assert ok.TargetScaler(ok.Mixture([ok.OnlineRidge()])).method_ == "standard"   # the default meta: no label range


def test_target_scaler_has_no_look_ahead():
    X, y = _raw_stream(120)
    fut = y.copy()
    fut[70:] = 1e6
    for make in (lambda: ok.TargetScaler(ok.OnlineRidge()), lambda: ok.TargetScaler(ok.StandardScaler(max_norm=1.0) | ok.VAW2(m=5))):
        a = ok.run_online(make(), X, y).predictions
        b = ok.run_online(make(), X, fut).predictions
        np.testing.assert_array_equal(a[:71], b[:71])     # the forecast of step 71 uses y_1..y_70


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_wrapped_paper_learners_beat_the_running_mean_on_a_raw_stream():
    """VAW2 (labels in [0, 1], ||x|| <= 1 assumed, eqs. (33)-(34)) and OnlineRidge without an
    intercept (paper 002 eq. (2)) with their class defaults: unwrapped on the raw stream they lose
    to the running mean; wrapped they win, and VAW2 sees a normalised stream (no warning)."""
    X, y = _raw_stream(400)
    mean = _running_mean_mse(y)
    for make in (ok.VAW2, ok.OnlineRidge):
        wrapped = _mse(ok.TargetScaler(ok.StandardScaler(max_norm=1.0) | make()), X, y)
        assert wrapped < 0.5 * mean, (make.__name__, wrapped, mean)
    with pytest.warns(RuntimeWarning):
        raw = _mse(ok.VAW2(), X, y)
    assert raw > mean
    assert _mse(ok.OnlineRidge(), ok.datasets.standardise_online(X), y) > mean


def test_mixture_of_scaled_experts_on_a_raw_stream():
    X, y = _raw_stream(300)
    mix = ok.TargetScaler(ok.StandardScaler(max_norm=1.0)
                          | ok.Mixture([ok.TargetScaler(ok.VAW2(m=10)), ok.TargetScaler(ok.OnlineRidge())]))
    checks.check_learner(mix)
    assert _mse(mix, X, y) < 0.5 * _running_mean_mse(y)


def test_check_learner_passes_and_bad_arguments_are_named():
    checks.check_learner(ok.TargetScaler(ok.StandardScaler() | ok.OnlineRidge(), method="standard"))
    with pytest.raises(TypeError, match="learner"):
        ok.TargetScaler(ok.VAW2)
    with pytest.raises(TypeError, match="learner"):
        ok.TargetScaler(ok.EWA())
    with pytest.raises(ValueError, match="max_norm"):
        ok.StandardScaler(max_norm=0.0)
    with pytest.raises(TypeError, match="scaler"):
        ok.Pipeline("standard", ok.OnlineRidge())
    with pytest.raises(ValueError, match="bounds"):
        ok.TargetScaler(ok.OnlineRidge(), bounds=(1.0, 0.0))
    ts = ok.TargetScaler(ok.OnlineRidge())
    ts.learn_one(np.ones(2), 1.0)
    with pytest.raises(ValueError, match="x"):        # the label is not committed when x is refused
        ts.learn_one(np.ones(3), 5.0)
    assert ts.n_ == 1 and ts.t_ == 1


# ------------------------------------------------------------ issue 42: scale-free constant rule
@pytest.mark.parametrize("target", ["tiny", "zero", "constant prefix", "large"])
@pytest.mark.parametrize("make", [ok.VAW2, ok.OnlineRidge, lambda: ok.Mixture([ok.VAW2(m=10), ok.OnlineRidge()])],
                         ids=["VAW2", "OnlineRidge", "Mixture"])
def test_target_scaler_has_no_unit_scale_while_the_labels_are_equal(make, target):
    """Issue 42: while every label so far was equal the map used s = 1 in the *target's* units, so
    the second forecast of ``omkl run VAW2 --csv F`` on a target of ~1e-4 was y_1 - 0.5 (an MSE
    1.6e4 x the running mean's).  Now the map has no scale then (s = 0: the forecast is the label
    seen), so a tiny, a zero, a constant-prefix and a large target are scored alike."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 3))
    y = {"tiny": 1e-4 * (1 + 0.1 * np.sin(X[:, 0])), "zero": np.zeros(300),
         "constant prefix": np.r_[np.full(50, 3.0), 3.0 + 0.1 * np.sin(X[50:, 0])],
         "large": 1e6 * (1 + 0.1 * np.sin(X[:, 0]))}[target]
    trace = ok.run_online(ok.TargetScaler(ok.StandardScaler(max_norm=1.0) | make()), X, y)
    assert trace.predictions[1] == y[0]                  # the label seen, not y_1 - 0.5
    mean = np.mean((ok.protocol.running_mean(y)[1:] - y[1:]) ** 2)
    mse = np.mean(trace.losses[1:])
    assert mse <= 2.0 * mean + 1e-300, (mse, mean)
    if target == "zero":
        assert not trace.predictions.any()


@pytest.mark.parametrize("bounds, pattern", [
    ((0.0, 1e-320), r"^bounds = \(0\.0, 1e-320\): the interval is too narrow"),
    ((-1e308, 1e308), r"^bounds = \(-1e\+308, 1e\+308\): its width B - A overflows"),
])
def test_target_scaler_refuses_bounds_float64_cannot_map(bounds, pattern):
    """Issue 42: ``bounds=(0, 1e-320)`` gave -inf forecasts, ``(-1e308, 1e308)`` a ZeroDivisionError."""
    with pytest.raises(ValueError, match=pattern):
        ok.TargetScaler(ok.OnlineRidge(), method="minmax", bounds=bounds)
    with pytest.raises(ValueError, match="the learner's label bounds"):
        ok.TargetScaler(ok.VAW2(m=4, bounds=bounds))
    ts = ok.TargetScaler(ok.OnlineRidge(), method="minmax", bounds=(0.0, 1e-200))   # narrow, but it maps
    X = np.random.default_rng(0).normal(size=(30, 2))
    assert np.all(np.isfinite(ok.run_online(ts, X, 1e100 * np.sin(X[:, 0])).predictions))
