"""The first step said, and scored both ways (issue 53, item 1).

At t = 1 no label has been seen: omkl's learners forecast 0.0 and the baselines and River's
models abstain, scored by the fallback 0.0 (omkl_core.protocol, "Abstention").  On a raw stream far
from 0 that one step can carry most of the squared error.  Every report -- ``Trace``,
``Mixture.summary()``, ``omkl run`` and ``evaluate_river`` -- gives the MSE over all T steps and over
steps 2..T, each named, and says in one line when the first forecast carries more than 10 % of the
summed squared error.  And the ``run`` a user calls never returns NaN for an abstention: it returns
the number ``run_online`` scores (omkl_core.base, "What ``run`` returns").
"""
from __future__ import annotations

import numpy as np
import pytest

import omkl_core as ok
from omkl_core.cli import main


def _trend(T=120, level=300.0, seed=0):
    """A raw stream far from 0 (a CO2-like level with a trend and a season)."""
    rng = np.random.default_rng(seed)
    t = np.arange(T)
    X = np.column_stack([np.sin(2 * np.pi * t / 12), np.cos(2 * np.pi * t / 12)])
    y = level + 0.1 * t + 3 * X[:, 0] + rng.normal(0, 0.5, T)
    return X, y


ABSTAINING = [ok.RunningMean, ok.ExponentialMean, ok.LastValue,
              lambda: ok.TargetScaler(ok.RunningMean()), lambda: ok.StandardScaler() | ok.LastValue()]


@pytest.mark.parametrize("make", ABSTAINING)
def test_run_of_a_learner_that_abstains_returns_what_run_online_scores_never_nan(make):
    X, y = _trend(T=30)
    p = make().run(X, y)
    assert np.all(np.isfinite(p)) and np.isfinite(np.mean((p - y) ** 2))
    np.testing.assert_array_equal(p, ok.run_online(make(), X, y).predictions)
    assert p[0] == 0.0                                       # the fallback f_1 of the protocol
    from omkl_core.base import marked_abstentions

    with marked_abstentions():                               # the protocol's own form: NaN marks it
        assert np.isnan(make().run(X, y)[0])


def test_river_adapter_run_returns_the_fallback_not_nan():
    pytest.importorskip("river")
    from river import linear_model

    X, y = _trend(T=30)
    p = ok.interop.from_river(linear_model.LinearRegression()).run(X, y)
    assert p[0] == 0.0 and np.all(np.isfinite(p))


def test_a_mixture_still_sleeps_the_expert_that_abstained():
    X, y = _trend(T=40)
    mix = ok.Mixture([ok.RunningMean(), ok.OnlineRidge()], meta=ok.MLPoly(bounds=None))
    mix.run(X, y)
    assert mix.n_abstained_.tolist() == [1, 0]


def test_trace_gives_the_mse_over_all_steps_and_over_steps_2_to_T_and_the_first_share():
    X, y = _trend()
    trace = ok.run_online(ok.OnlineRidge(fit_intercept=True), X, y)
    losses = (trace.predictions - y) ** 2
    assert trace.predictions[0] == 0.0
    assert trace.mse == pytest.approx(losses.mean(), rel=1e-12)
    assert trace.mse_after_first == pytest.approx(losses[1:].mean(), rel=1e-12)
    assert trace.first_share == pytest.approx(losses[0] / losses.sum(), rel=1e-12) and trace.first_share > 0.25
    assert "mse_after_first=" in repr(trace) and "(steps 2..T)" in repr(trace)
    note = trace.first_step_note()
    assert note.count("\n") == 0 and "first forecast" in note and f"{100 * trace.first_share:.3g} %" in note


def test_no_first_step_note_where_the_first_step_carries_at_most_ten_percent():
    X, y = _trend(level=0.0)                                  # a stream near 0: the first forecast is fair
    trace = ok.run_online(ok.OnlineRidge(fit_intercept=True), X, y)
    assert trace.first_share <= 0.10 and trace.first_step_note() == ""
    assert ok.protocol.first_step_note(0.10, 0.0, 5) == "" and ok.protocol.first_step_note(0.1001, 0.0, 5) != ""


def test_summary_prints_both_mses_and_the_first_steps_share_on_a_raw_trend():
    X, y = _trend()
    model = ok.Mixture()
    trace = ok.run_online(model, X, y)
    text = str(model.summary(X, y))
    assert f"{trace.mse:.6g} over all {len(y)} steps" in text
    assert f"{trace.mse_after_first:.6g} over steps 2..{len(y)}" in text
    assert "note: the first forecast (0, made before any label was seen) carries" in text
    rep = model.summary(X, y).to_dict()
    assert rep["loss_after_first"] == pytest.approx(trace.mse_after_first, rel=1e-9)


def test_omkl_run_prints_both_mses_and_the_first_steps_share(tmp_path, capsys):
    X, y = _trend()
    f = tmp_path / "trend.csv"
    np.savetxt(f, np.column_stack([X, y]), delimiter=",", header="s,c,y", comments="")
    assert main(["run", "OnlineRidge", "--csv", str(f), "--scale", "none", "--param", "fit_intercept=True"]) == 0
    out = capsys.readouterr().out
    trace = ok.run_online(ok.OnlineRidge(fit_intercept=True), X, y)
    base = ok.protocol.running_mean(y)
    assert f" mse={trace.mse:.6g} " in out and f" mse_after_first={trace.mse_after_first:.6g} " in out
    assert f" baseline_mse_after_first={np.mean((base[1:] - y[1:]) ** 2):.6g} " in out
    assert sum(line.startswith("note: the first forecast") for line in out.splitlines()) == 1


def test_evaluate_river_gives_both_mses():
    pytest.importorskip("river")
    X, y = _trend(T=60)
    r = ok.interop.river.evaluate_river("River KNNRegressor(5)", X, y)
    assert r["mse_after_first"] < r["mse"] and r["first_share"] > 0.10
    assert r["first_share"] * r["mse"] * len(y) == pytest.approx((0.0 - y[0]) ** 2, rel=1e-9)
