"""No silent wrong numbers: overflow, out-of-range streams, memory, degenerate input, noise.

Each test feeds the input a newcomer would (y = 1e300, an unnormalised stream, m = 10**7, an
empty or complex x) and asserts a clear error naming the argument or an explicit warning,
never a NaN prediction or a quiet clip.
"""
from __future__ import annotations

import logging
import math
import re
import sys
import warnings
from pathlib import Path

import nbformat
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import omkl_core as ok
import omkl_core.repro as repro
from omkl_core.aggregation import BOA, EWA, AggregatingAlgorithm, MLPoly, MLProd

RNG = np.random.default_rng(0)
X_SMALL = RNG.random((40, 3)) / 2.0
Y_SMALL = RNG.random(40)

RAW_LEARNERS = [
    (ok.OnlineRidge, {}), (ok.BayesianRidge, {}), (ok.VAW2, {"m": 4}), (ok.VAWEWA, {"m": 4}),
    (ok.VAWMLPoly, {"m": 4}), (ok.VAWBOA, {"m": 4}), (ok.KernelRidge, {"kernel": "gaussian"}),
]
IDS = [c.__name__ for c, _ in RAW_LEARNERS]


# ------------------------------------------------------------------------------ overflow
@pytest.mark.parametrize("cls, kw", RAW_LEARNERS, ids=IDS)
def test_huge_label_through_learn_one_is_an_error_naming_y(cls, kw):
    model = cls(**kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # not even a numpy overflow warning first
        for t in range(10):
            model.predict_one(X_SMALL[t])
            model.learn_one(X_SMALL[t], Y_SMALL[t])
        assert math.isfinite(model.predict_one(X_SMALL[10]))
        with pytest.raises(ValueError, match=r"^y = 1e\+300 is too large.*overflow"):
            model.learn_one(X_SMALL[10], 1e300)
        assert math.isfinite(model.predict_one(X_SMALL[11]))   # state untouched by the refused step


@pytest.mark.parametrize("cls, kw", RAW_LEARNERS, ids=IDS)
def test_huge_value_in_a_stream_is_an_error_naming_it(cls, kw):
    y = Y_SMALL.copy()
    y[7] = 1e300
    with pytest.raises(ValueError, match=r"^y\[7\] = 1e\+300 is too large"):
        ok.run_online(cls(**kw), X_SMALL, y)
    X = X_SMALL.copy()
    X[3, 1] = -1e250
    with pytest.raises(ValueError, match=r"^X\[3, 1\] = -1e\+250 is too large"):
        ok.run_online(cls(**kw), X, Y_SMALL)


@pytest.mark.parametrize("cls", [ok.OnlineRidge, ok.BayesianRidge])
def test_ridge_overflow_names_the_argument_and_cause(cls):
    """A label below the cap whose squared error still overflows: no bare OverflowError (34, ...)."""
    model = cls()
    model.learn_one(np.array([1.0]), 0.5)
    model._step(np.array([1.0]), 1e99)           # fine
    with pytest.raises(OverflowError, match=r"^y = .* at step \d+ .*\(y - gamma\)\^2 overflows"):
        model._step(np.array([1.0]), 1e200)      # beyond the cap (bypassing learn_one's check)


@settings(max_examples=40, deadline=None)
@given(y=st.floats(min_value=1e101, max_value=1e308), sign=st.sampled_from([1.0, -1.0]),
       cls_kw=st.sampled_from(RAW_LEARNERS[:2] + RAW_LEARNERS[4:5]))
def test_no_label_size_gives_a_silent_nan(y, sign, cls_kw):
    cls, kw = cls_kw
    model = cls(**kw)
    model.learn_one(X_SMALL[0], 0.3)
    with pytest.raises(ValueError, match="too large"):
        model.learn_one(X_SMALL[1], sign * y)
    assert math.isfinite(model.predict_one(X_SMALL[2]))


def test_mlpoly_never_returns_a_nan_forecast():
    """MLPoly fed 1e300 used to emit one NaN and recover silently."""
    model = MLPoly(bounds=(0, 1))
    z = np.array([0.2, 0.8, 0.5])
    for y in (0.1, 0.9, 0.4):
        model.learn_one(z, y)
    with pytest.raises(ValueError, match="too large"):
        model.learn_one(z, 1e300)
    assert math.isfinite(model.predict_one(z))


def test_normalise_stream_refuses_a_huge_cell_and_warns_on_an_outlier():
    X, y = ok.datasets.load("airfoil", normalise=False)
    X = X.copy()
    X[5, 2] = 1e300
    with pytest.raises(ValueError, match=r"X\[5, 2\] = 1e\+300 is too large"):
        ok.datasets.normalise_stream(X, y)
    X[5, 2] = 1e12
    with pytest.warns(RuntimeWarning, match="row 5 of X has norm 1e\\+12"):
        Xn, _ = ok.datasets.normalise_stream(X, y)
    assert np.all(np.isfinite(Xn))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok.datasets.normalise_stream(*ok.datasets.load("airfoil", normalise=False))   # no false alarm


# ---------------------------------------------------------------- bounded aggregators
@pytest.mark.parametrize("meta", [EWA, AggregatingAlgorithm, BOA, MLPoly, MLProd])
def test_aggregator_warns_once_when_the_stream_leaves_its_bounds(meta):
    model = meta(bounds=(0, 1))
    with pytest.warns(RuntimeWarning, match=r"label y_t = 130 at step t = 1 lies outside bounds=\[0, 1\]"
                                            r".*clipped.*[Nn]ormalise"):
        model.learn_one(np.array([0.2, 0.4]), 130.0)     # an unnormalised label: one label, not a range
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.learn_one(np.array([0.2, 0.4]), 120.0)     # once, not on every step
    with pytest.warns(RuntimeWarning, match=r"labels y in \[110, 140\] \(steps 1\.\.2\) lie outside"):
        meta(bounds=(0, 1)).run(np.full((2, 2), 0.5), np.array([110.0, 140.0]))


@pytest.mark.parametrize("meta", [EWA, AggregatingAlgorithm, BOA])
def test_aggregator_in_range_labels_are_quiet(meta):
    """Forecasts far outside [0, 1] (early VAW experts) with labels inside: eq. (28)'s job, no noise."""
    Z = RNG.normal(0.5, 2.0, (50, 3))
    Z[0] = [-4.0, 1.4, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        meta(bounds=(0, 1)).run(Z, RNG.random(50))
        meta(bounds=(0, 1)).learn_one(np.array([-4.0, 3.0]), 0.7)


@pytest.mark.parametrize("cls", [ok.VAW2, ok.VAWEWA])
def test_vaw_family_warns_once_on_unscaled_data(cls):
    X, y = ok.datasets.load("airfoil", normalise=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ok.run_online(cls(m=4), X[:300], y[:300])
    msgs = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(msgs) == 1, msgs
    assert "not normalised" in msgs[0] and "eq. 33" in msgs[0] and "eq. 34" in msgs[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Xn, yn = ok.datasets.load("airfoil")
        ok.run_online(cls(m=4), Xn[:300], yn[:300])


# ------------------------------------------------------------------------------ memory
def test_vaw2_refuses_a_state_that_cannot_fit_before_allocating():
    with pytest.raises(MemoryError, match=r"needs .*\(6\.08e\+16 bytes\)"):
        ok.VAW2(m=10**7)
    with pytest.raises(MemoryError, match="bytes"):
        ok.mkl.expert_predictions(X_SMALL, Y_SMALL, m=10**6, repetitions=5)


def test_kernel_ridge_warns_on_a_long_stream_with_the_estimate():
    model = ok.KernelRidge(kernel="gaussian")
    with pytest.warns(RuntimeWarning, match=r"T=20000 .*flops.*GB"):
        model._check_stream(np.zeros((20000, 2)), np.zeros(20000))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ok.KernelRidge(kernel="gaussian")._check_stream(np.zeros((500, 2)), np.zeros(500))


# ------------------------------------------------------------------- degenerate input
@pytest.mark.parametrize("cls, kw", RAW_LEARNERS, ids=IDS)
@pytest.mark.parametrize("x, err, pattern", [
    (np.array([]), ValueError, r"^x is an empty feature vector"),
    (np.array([1 + 2j, 0.5]), TypeError, r"^x must be real, got complex"),
])
def test_degenerate_x_is_an_error_naming_x(cls, kw, x, err, pattern):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                 # no ComplexWarning on the way
        with pytest.raises(err, match=pattern):
            model = cls(**kw)
            model.predict_one(x)
            model.learn_one(x, 0.5)


def test_complex_stream_is_an_error_naming_it():
    with pytest.raises(TypeError, match="^X must be real"):
        ok.run_online(ok.OnlineRidge(), X_SMALL + 1j, Y_SMALL)


# ---------------------------------------------------------------------- intercept
def test_online_ridge_intercept_beats_the_mean_on_airfoil():
    X, y = ok.datasets.load("airfoil")
    mean_pred = np.r_[0.0, np.cumsum(y)[:-1] / np.arange(1, len(y))]
    mse_mean = float(np.mean((y - mean_pred) ** 2))
    through_origin = ok.run_online(ok.OnlineRidge(a=1.0), X, y).mse
    with_intercept = ok.run_online(ok.OnlineRidge(a=1.0, fit_intercept=True), X, y).mse
    assert through_origin > mse_mean > with_intercept


def test_fit_intercept_is_ridge_on_inputs_with_a_constant_feature():
    rng = np.random.default_rng(3)
    X, y = rng.normal(size=(60, 2)), rng.normal(size=60) + 4.0
    a = ok.OnlineRidge(a=0.5, fit_intercept=True)
    b = ok.OnlineRidge(a=0.5)
    pa = ok.run_online(a, X, y, use_run=False).predictions
    pb = ok.run_online(b, np.column_stack([X, np.ones(60)]), y).predictions
    np.testing.assert_allclose(pa, pb, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.r_[a.coef_, a.intercept_], b.coef_, rtol=1e-10)
    assert a.coef_.shape == (2,) and ok.OnlineRidge().fit_intercept is False
    with pytest.raises(TypeError, match="fit_intercept"):
        ok.OnlineRidge(fit_intercept=1)
    bayes = ok.BayesianRidge(fit_intercept=True)
    bayes.learn_one(X[0], y[0])
    assert bayes.coef_.shape == (2,)


# ---------------------------------------------------------------------- progress
@pytest.mark.parametrize("make", [lambda: ok.VAW2(m=4), lambda: ok.OnlineRidge(), lambda: MLPoly()],
                         ids=["VAW2", "OnlineRidge", "MLPoly"])
def test_run_online_progress_on_the_vectorised_path(make, capsys):
    X, y = ok.datasets.load("airfoil")
    if isinstance(make(), MLPoly):
        X = np.column_stack([y * 0.9, np.full_like(y, 0.5)])
    assert callable(getattr(make(), "run", None))
    quiet = ok.run_online(make(), X, y)
    assert capsys.readouterr().err == ""
    shown = ok.run_online(make(), X, y, progress=True)
    err = capsys.readouterr().err
    assert type(make()).__name__ in err
    counts = {int(c) for c in re.findall(rf"(\d+)/{len(y)}", err)}
    assert len(counts - {0, len(y)}) >= 3, err                # it advanced, not one jump at the end
    np.testing.assert_array_equal(quiet.predictions, shown.predictions)


# ---------------------------------------------------------------------- notebook noise
NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_papermill_parses_every_parameter_line(path, caplog):
    translators = pytest.importorskip("papermill.translators")
    nb = nbformat.read(path, as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", []))
    with caplog.at_level(logging.WARNING):
        names = [p.name for p in translators.PythonTranslator.inspect(cell)]
    assert not [r for r in caplog.records if "Unable to parse" in r.getMessage()], caplog.text
    assigned = [line.split("=")[0].strip() for line in cell.source.splitlines()
                if "=" in line and not line.lstrip().startswith("#") and line[0].isalpha()]
    assert names == assigned


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))


# ---------------------------------------------------------------------- stamps
def test_every_table_and_the_scorecard_say_what_produced_them(tmp_path, monkeypatch):
    import pandas as pd

    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    monkeypatch.setenv("OMKL_MODE", "unspecified")      # restored after the test; set_mode writes it
    repro.report.set_mode("full")
    md = repro.report.save_table(pd.DataFrame({"a": [1.0]}), "t1")
    first = md.read_text(encoding="utf-8").splitlines()[0]
    stamp = repro.report.run_stamp()
    assert "**full** run" in first and stamp["commit"] in first and "CPUs" in first and "UTC" in first
    assert (tmp_path / "tables" / "t1.stamp.json").exists()
    rows = pd.DataFrame([repro.report.cell_row("000", "Table 2", "VAW2", "Airfoil", 22.8, [22.0, 23.5])])
    repro.report.add_scorecard_rows("paper000_table2", rows)
    repro.report.scorecard()
    text = (tmp_path / "scorecard.md").read_text(encoding="utf-8")
    assert "**full** run" in text and "| paper000_table2 | 1 | full |" in text
    assert "Published numeric cells: 1 judged — 1 within noise, 0 ≤ 5 %" in text


def test_scorecard_without_rows_has_no_zero_of_zero_summary(tmp_path, monkeypatch):
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    monkeypatch.setenv("OMKL_MODE", "quick")
    repro.report.scorecard()
    text = (tmp_path / "scorecard.md").read_text(encoding="utf-8")
    assert "0 of 0" not in text and "No scorecard rows yet" in text
    assert "**quick** run" in text and "Quick run" in text


def test_quick_mode_never_writes_into_the_full_results(tmp_path, monkeypatch):
    monkeypatch.delenv("OMKL_RESULTS", raising=False)
    monkeypatch.setattr(repro.report, "_REPO", tmp_path)
    (tmp_path / "reproduce.sh").write_text("")                # a checkout: results/ at its root
    (tmp_path / "omkl_core").mkdir()
    monkeypatch.setenv("OMKL_MODE", "full")
    assert repro.report.results_dir() == tmp_path / "results"
    repro.report.set_mode("quick")
    assert repro.report.results_dir("tables") == tmp_path / "results" / "quick" / "tables"
    with pytest.raises(ValueError, match="mode must be one of"):
        repro.report.set_mode("fast")


def test_scorecard_counts_only_judged_cells_per_tier(tmp_path, monkeypatch):
    import pandas as pd

    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    rows = pd.DataFrame([repro.report.cell_row("000", "Table 2", "VAW2", "Airfoil", 22.8, [22.0]),
                         repro.report.cell_row("000", "Table 2", "VAW-EWA", "Airfoil", 22.8, [99.0], quick=True)])
    repro.report.add_scorecard_rows("s", rows)
    repro.report.scorecard()
    text = (tmp_path / "scorecard.md").read_text(encoding="utf-8")
    assert "1 judged — 0 within noise, 1 ≤ 5 %, 0 ≤ 10 %, 0 ≤ 25 %, 0 miss" in text
    assert "1 published cells not computed at full size" in text and "| not computed at full size |" in text


def test_quick_scorecard_marks_its_rows_not_computed_at_full_size_never_0_within_tolerance(tmp_path, monkeypatch, capsys):
    """Issue 31: a quick run's scorecard said "12 cells, 0 within tolerance" while its own table said
    holds = yes for 5 of them; a quick section's rows are "not computed at full size", whatever their value."""
    import pandas as pd

    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    monkeypatch.setenv("OMKL_MODE", "quick")
    rows = pd.DataFrame([repro.report.claim_row("all", "leaderboard", "mixture <= 1.02 x best", True, kind="project"),
                         repro.report.claim_row("all", "leaderboard", "mixture <= 1.02 x best on Bias", False,
                                                kind="project")])
    repro.report.add_scorecard_rows("leaderboard_mixture", rows)
    repro.report.scorecard(verbose=True)
    text = (tmp_path / "scorecard.md").read_text(encoding="utf-8")
    line = capsys.readouterr().out
    assert "0 holds" not in line and "2 not computed at full size" in line
    assert "this project's own claims: 2 not computed at full size" in text
    assert text.count("| not computed at full size |") == 2 and "| holds |" not in text and "| fails |" not in text


# ------------------------------------------------- issue 42: no silent NaN from a vectorised run
@pytest.mark.parametrize("make, scale_x, scale_y, arg", [
    (lambda: ok.VAW(), 1e12, 1.0, "Phi"),
    (lambda: ok.VAW2(m=10), 1.0, 1e8, "y"),
    (lambda: ok.VAWMeta(), 1e12, 1.0, "Z"),
], ids=["VAW", "VAW2", "VAWMeta"])
def test_a_run_that_loses_float64_precision_raises_naming_the_inputs_and_keeps_the_state(make, scale_x, scale_y, arg):
    """Issue 42: ``VAW().run`` on inputs x 1e12, ``VAW2().run`` on labels x 1e8 and ``VAWMeta().run``
    returned NaN forecasts without an error (only ``run_online`` caught them).  Now ``run`` raises
    naming its inputs and their size, and the learner keeps the state it had before the call."""
    X, y = ok.datasets.load("airfoil")
    X, y = X[:400], y[:400]
    model = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)        # the unscaled-stream warning
        model.run(X[:50], y[:50])
        before = model.predict_one(X[50])
        t0 = model.t_
        with pytest.raises(FloatingPointError, match=rf"{arg}.*too large.*rescale"):
            model.run(X[50:] * scale_x, y[50:] * scale_y)
        assert model.t_ == t0 and model.predict_one(X[50]) == before     # state as before the call
        assert np.all(np.isfinite(model.run(X[50:], y[50:])))           # and it goes on from there
