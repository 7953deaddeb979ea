"""Paper 000's AR(4) is a fresh series per repetition (section 4: "averaged over 5 experiments").

Repetition r runs on eq. (32)'s realisation with noise seed ``seed + r`` (normalised on its own)
with the r-th random-feature dictionary drawn from ``host_rng(seed)``, as the batched run draws
it; the baselines take row r of their R-batched run on series r. So repetition 0 is the run of
before (one series for all repetitions) bit for bit, and the real datasets do not change.
"""
from __future__ import annotations

import numpy as np
import pytest

from omkl_core import registry
from omkl_core.repro import baselines
from omkl_core.repro import paper000 as P

# exact_fp: this file compares floating-point results exactly (two paths that run the same operations in
# the same order by construction); .ci/run runs it again under each OpenBLAS kernel the CPU can run
pytestmark = pytest.mark.exact_fp

S = P.Settings(quick=False, repetitions=3, m=3, lam=1.0, seed=2, T_max=120)
ROWS = P._rows()


def _batched(X, y, fmap="cos", ridge=False, key="table2", R=3):
    """The single-series run of before: all R repetitions batched on one stream."""
    task = {"dataset": "x", "m": S.m, "lam": S.lam, "repetitions": R, "seed": S.seed, "feature_map": fmap,
            "jobs": [[key, ROWS, ridge]]}
    return P.expert_layer_task(task, X, y)[key]


@pytest.fixture(scope="module")
def layers():
    return P.run_expert_layers(S, ["AR(4)", "Concrete"], ["tvaw"], executor="serial", progress=False)


def test_ar4_repetitions_get_their_own_series_noise_seed_plus_r():
    series = P.streams(S, ["AR(4)"])["AR(4)"]
    assert P.ar4_series(S) == [2, 3, 4] and len(series) == S.repetitions
    for r, (X, y) in enumerate(series):
        Xr, yr = registry.load_dataset("ar4", S.T_max, seed=S.seed + r)
        assert np.array_equal(X, Xr) and np.array_equal(y, yr)
    for a in range(3):
        for b in range(a + 1, 3):
            assert not np.allclose(series[a][1], series[b][1])          # the label vectors differ
    full = [registry.load_dataset("ar4", seed=S.seed + r)[1] for r in range(3)]
    for y in full:                                                      # each normalised on its own (33)
        assert y.min() == 0.0 and y.max() == 1.0


def test_ar4_repetition_0_equals_the_single_series_run_bit_for_bit(layers):
    X0, y0 = P.load_stream("AR(4)", S)
    for key, fmap, ridge in (("table2", "cos", False), ("tvaw", "sincos", True)):
        old, new = _batched(X0, y0, fmap, ridge, key), layers[key]["AR(4)"]
        for row in ROWS:
            assert new["mse"][row].shape == (3,)
            assert new["mse"][row][0] == old["mse"][row][0], (key, row)
            assert not np.allclose(new["mse"][row], old["mse"][row])    # repetitions 1, 2: other series
            assert np.array_equal(new["weights"][row], old["weights"][row])   # Figure 2: repetition 0
        assert new["best_expert"][0] == old["best_expert"][0]


def test_ar4_repetition_r_is_row_r_of_the_batched_run_on_series_r(layers):
    """The r-th dictionary exactly as the batched run draws it (not dictionary 0 on every series)."""
    for r in (1, 2):
        Xr, yr = P.load_stream("AR(4)", S, repetition=r)
        for key, fmap, ridge in (("table2", "cos", False), ("tvaw", "sincos", True)):
            old, new = _batched(Xr, yr, fmap, ridge, key), layers[key]["AR(4)"]
            for row in ROWS:
                assert new["mse"][row][r] == old["mse"][row][r], (r, key, row)
                assert new["mse"][row][r] != old["mse"][row][0]


def test_ar4_curves_and_oracles_average_the_series(layers):
    res = layers["table2"]["AR(4)"]
    per = [_batched(*P.load_stream("AR(4)", S, repetition=r))["curve"] for r in range(3)]   # R batched on one series
    one = {r: P.expert_layer_task({"dataset": "x", "m": S.m, "lam": S.lam, "repetitions": 1, "repetition": r,
                                   "seed": S.seed, "feature_map": "cos", "jobs": [["table2", ROWS, False]]},
                                  *P.load_stream("AR(4)", S, repetition=r))["table2"] for r in range(3)}
    for row in ROWS:
        curves = np.stack([one[r]["curve"][row] for r in range(3)])
        np.testing.assert_allclose(res["curve"][row], curves.mean(axis=0), rtol=1e-13)
        np.testing.assert_allclose(res["curve_sd"][row], curves.std(axis=0, ddof=1), rtol=1e-12, atol=1e-15)
        assert not np.allclose(res["curve"][row], per[0][row])          # not the one-series average
        assert res["curve"][row][-1] == pytest.approx(res["mse"][row].mean(), rel=1e-12)
    oracles = {o["row"]: o for o in res["oracles"]}
    assert oracles["VAW2"]["repetitions"] == 3
    assert oracles["VAW2"]["mse_x1e3"] == pytest.approx(res["mse"]["VAW2"].mean(), rel=1e-12)
    assert oracles["VAW2"]["sd_x1e3"] == pytest.approx(res["mse"]["VAW2"].std(ddof=1), rel=1e-9)
    assert sorted({b["repetition"] for b in res["bounds"]}) == [0, 1, 2]


def test_real_datasets_are_unchanged_by_the_ar4_series(layers):
    X, y = P.load_stream("Concrete", S)
    for key, fmap, ridge in (("table2", "cos", False), ("tvaw", "sincos", True)):
        old, new = _batched(X, y, fmap, ridge, key), layers[key]["Concrete"]
        for row in ROWS:
            assert np.array_equal(new["mse"][row], old["mse"][row]), (key, row)
            assert np.array_equal(new["curve"][row], old["curve"][row])
            assert np.array_equal(new["curve_sd"][row], old["curve_sd"][row])
    assert P.load_stream("Concrete", S, repetition=3)[1].tobytes() == y.tobytes()


def test_quick_mode_ar4_is_the_one_series_run_of_before():
    q = P.Settings(quick=True, repetitions=1, m=3, lam=1.0, seed=0, T_max=80)
    res = P.run_expert_layers(q, ["AR(4)"], [], executor="serial", progress=False)["table2"]["AR(4)"]
    task = {"dataset": "x", "m": 3, "lam": 1.0, "repetitions": 1, "seed": 0, "feature_map": "cos",
            "jobs": [["table2", ROWS, False]]}
    old = P.expert_layer_task(task, *registry.load_dataset("ar4", 80, seed=0))["table2"]
    for row in ROWS:
        assert np.array_equal(res["mse"][row], old["mse"][row]) and np.array_equal(res["curve"][row], old["curve"][row])
    assert res["oracles"] == old["oracles"]


RAKER = {"Raker": ("Raker", {"m": 3, "eta": 0.1, "schedule": "inv_sqrt_t", "dictionary": (["gaussian", "laplacian"], [0.1, 1.0])}),
         "GF": ("OMKLGF", {"m": 3, "M": 2, "eta": 0.2, "dictionary": (["gaussian", "laplacian", "gaussian"], [0.1, 1.0, 3.0])})}


@pytest.mark.parametrize("executor", [{}, {"executor": "serial"}])
def test_baseline_rows_take_row_r_of_the_batched_run_on_series_r(executor):
    series = P.streams(S, ["AR(4)", "Concrete"])
    out = baselines.run_rows(RAKER, series, 3, seed=S.seed, **executor)
    learners = registry.learners()
    for label, (cls, params) in RAKER.items():
        for r, (X, y) in enumerate(series["AR(4)"]):
            Pr = learners[cls](**params, seed=S.seed).run_repetitions(X, y, 3)
            assert out[("AR(4)", label)][r] == ((Pr[r] - y) ** 2).mean() * 1e3      # node draws included
        X, y = series["Concrete"]                                                     # one stream, unchanged
        Pc = learners[cls](**params, seed=S.seed).run_repetitions(X, y, 3)
        assert np.array_equal(out[("Concrete", label)], ((Pc - y) ** 2).mean(axis=1) * 1e3)
        assert len(set(out[("AR(4)", label)])) == 3
    with pytest.raises(ValueError, match="one per repetition"):
        baselines.run_rows(RAKER, {"AR(4)": series["AR(4)"][:2]}, 3)


# ------------------------------------------------------------ the Raker / AR(4) investigation
def test_raker_probe_repetition_r_equals_row_r_of_the_batched_table_row():
    """Raker draws nothing after its dictionaries: its first r + 1 repetitions give row r of the
    R-batched run exactly, so the probes' "as run" is the Table-2 row's repetition r."""
    cls, params = RAKER["Raker"]
    series = P.streams(S, ["AR(4)"])["AR(4)"]
    rows = baselines.run_rows({"Raker": (cls, params)}, {"AR(4)": series}, 3, seed=S.seed)[("AR(4)", "Raker")]
    for r, (X, y) in enumerate(series):
        got = P.raker_probe_task({"repetition": r, "seed": S.seed, "raker": [cls, params], "vaw": False}, X, y)
        assert got["Raker"] == rows[r]


def test_raker_probe_streams_change_only_what_they_name():
    Xr, yr = registry.load_dataset("ar4", seed=5, normalise=False)
    X, y = P._probe_stream(5, None, 50)
    raw_x, y1 = P._probe_stream(5, "raw_x", 50)
    assert np.array_equal(raw_x, Xr[:50]) and np.array_equal(y1, y)
    mm, _ = P._probe_stream(5, "minmax_x", None)
    assert mm.min() == 0.0 and mm.max() == 1.0 and np.corrcoef(mm[:, 0], Xr[:, 0])[0, 1] == pytest.approx(1.0)
    Xy, raw_y = P._probe_stream(5, "raw_y", 50)
    assert np.array_equal(Xy, X) and np.array_equal(raw_y, yr[:50])
    lags, y4 = P._probe_stream(5, "lags4", 50)
    assert lags.shape == (50, 4) and np.array_equal(y4, y)
    scale = Xr[3, 0] / lags[3, 3]                        # one factor for every column (eq. 34)
    np.testing.assert_allclose(lags * scale, np.column_stack([np.r_[np.zeros(3 - k), Xr[:50 - 3 + k, 0]]
                                                              for k in range(4)]), rtol=1e-12, atol=1e-15)
    assert np.linalg.norm(P._probe_stream(5, "lags4", None)[0], axis=1).max() == pytest.approx(1.0)


def test_raker_investigation_rows_and_no_ar4(layers):
    base, _ = P.baseline_rows(S, ["AR(4)"], executor="serial", progress=False)
    inv = P.raker_ar4_investigation(S, layers, base, executor="serial", progress=False)
    run = inv.set_index("probe").loc["as run"]
    vaw = layers["table2"]["AR(4)"]["mse"]["VAW2"]
    assert run.ratio == pytest.approx(base[("AR(4)", "Raker")].mean() / vaw.mean(), rel=1e-12)
    assert run.ratio_min <= run.ratio <= run.ratio_max                 # a weighted mean of the per-series ratios
    assert run.published_ratio == pytest.approx(23.24 / 16.56, rel=1e-12)
    assert set(P.RAKER_PROBES) <= set(inv.probe) and len(inv) == 2 + 3 + len(P.RAKER_PROBES) + len(P.OMKLGF_PROBES)
    gf = inv[inv.learner == "OMKL-GF"]                # issue 50: OMKL-GF's AR(4) ratio under the same probes
    assert list(gf.probe) == [f"OMKL-GF: {p}" for p in P.OMKLGF_PROBES]
    assert np.allclose(gf.published_ratio, 20.47 / 16.56, rtol=1e-12, atol=0)
    assert P.raker_ar4_investigation(S, {"table2": {}}, base) is None


def test_expert_predictions_first_repetition_is_row_r_of_the_batched_run_bit_for_bit():
    from omkl_core.mkl import expert_predictions

    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2)) / 3
    y = rng.uniform(size=30)
    Zv, Zr = expert_predictions(X, y, m=4, repetitions=3, seed=7, both=True)
    for r in range(3):
        v, w = expert_predictions(X, y, m=4, repetitions=1, seed=7, both=True, first_repetition=r)
        assert np.array_equal(v[0], Zv[r]) and np.array_equal(w[0], Zr[r])
    with pytest.raises(ValueError, match="first_repetition"):
        expert_predictions(X, y, m=4, repetitions=1, first_repetition=-1)
