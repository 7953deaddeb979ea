"""``omkl_core.repro.leaderboard`` (issue 24, item 3): the mixture rows, River's EWARegressor row and the
claim "the mixture is at least as good as the best single learner, omkl's or River's".

* The mixture rows are the numbers of ``Mixture(pool, meta).run(X, y)`` with the pool built as
  learner objects (each expert run once, its stored forecasts aggregated), bit for bit.
* The EWARegressor row is River's code over the stored forecasts: checked against the rule
  written out here (River's weights start at 1 each, unnormalised, and are normalised after
  every update).
* The claim: ratio = mixture / best *single* row (never a mixture row, River's rows outside the
  pool included), holds at ratio <= 1.02 -- on a constructed table, and on a stream where one
  expert never learns, where a mixture that ignores its meta weights must fail it.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import omkl_core as ok
import omkl_core.repro as repro
from omkl_core.base import OnlineLearner, check_label, check_point
from omkl_core.mixture import aggregate
from omkl_core.repro import leaderboard as lb

pytest.importorskip("river")


# ----------------------------------------------------------------- the claim on a table
def _summ(rows):
    return pd.DataFrame(rows, columns=["dataset", "label", "mse_x1e3"])


MIX_BOA, MIX_POLY = lb.mixture_label("BOA"), lb.mixture_label("ML-Poly")


def test_claim_ratio_is_mixture_over_the_best_single_row_never_a_mixture_row():
    summ = _summ([
        ("airfoil", "VAW2 [76]", 22.0), ("airfoil", "River ARF(10)", 16.0), ("airfoil", "River AMF(10)", 20.0),
        ("airfoil", MIX_BOA, 15.0), ("airfoil", MIX_POLY, 16.32), ("airfoil", lb.EWA_REGRESSOR, 1.0),
        ("naval", "VAW2 [76]", 2.0), ("naval", "River HoeffdingAdaptiveTree", 1.0),   # a River row outside the pool
        ("naval", MIX_BOA, 1.0201), ("naval", MIX_POLY, 0.5), ("naval", lb.EWA_REGRESSOR, 0.1),
    ])
    c = lb.mixture_claims(summ, mixtures=[MIX_BOA, MIX_POLY]).set_index(["dataset", "mixture"])
    # the EWARegressor row (1.0 / 0.1) is an aggregate, not a single learner: never the reference
    assert c.loc[("airfoil", MIX_BOA), "best_single"] == "River ARF(10)"
    assert c.loc[("naval", MIX_BOA), "best_single"] == "River HoeffdingAdaptiveTree"
    assert c.loc[("airfoil", MIX_BOA), "ratio"] == 15.0 / 16.0
    assert bool(c.loc[("airfoil", MIX_BOA), "holds"])
    assert c.loc[("airfoil", MIX_POLY), "ratio"] == 16.32 / 16.0
    assert bool(c.loc[("airfoil", MIX_POLY), "holds"])                  # 1.02: on the boundary, holds
    assert not bool(c.loc[("naval", MIX_BOA), "holds"])                 # 1.0201 > 1.02
    assert bool(c.loc[("naval", MIX_POLY), "holds"])
    # default: every mixture row present, EWARegressor included
    assert set(lb.mixture_claims(summ)["mixture"]) == {MIX_BOA, MIX_POLY, lb.EWA_REGRESSOR}
    # scorecard claim rows: one per (dataset, mixture), judged as the table says
    sc = lb.claim_rows(lb.mixture_claims(summ, mixtures=[MIX_BOA]))
    assert list(sc.columns) == repro.report.SCORECARD_COLUMNS
    assert sc["verdict"].tolist() == ["holds", "fails"] and set(sc["kind"]) == {"project"}
    assert "ratio 1.0201" in sc["note"].iloc[1] and "Naval" in sc["row"].iloc[1]


def test_claim_names_what_is_missing():
    summ = _summ([("airfoil", "VAW2 [76]", 22.0), ("airfoil", MIX_BOA, 15.0), ("bias", MIX_BOA, 1.0)])
    with pytest.raises(ValueError, match="'bias' has no single-learner row"):
        lb.mixture_claims(summ)
    with pytest.raises(ValueError, match="mixture 'Mixture\\(AA\\) \\[pool\\]' has no row on dataset 'airfoil'"):
        lb.mixture_claims(summ[summ.dataset == "airfoil"], mixtures=[lb.mixture_label("AA")])
    with pytest.raises(ValueError, match="tolerance"):
        lb.mixture_claims(summ, tolerance=0.0)
    with pytest.raises(ValueError, match="mse_x1e3"):
        lb.mixture_claims(summ.drop(columns="mse_x1e3"))


def test_regret_and_timing_tables():
    mix = pd.DataFrame([
        {"dataset": "naval", "label": MIX_BOA, "seed": s, "T": 100, "mse": 0.0, "regret": r,
         "best_expert": "VAW2 [76]", "cpu_seconds": 0.5, "n_experts": 2} for s, r in ((0, 0.1), (1, 0.3))]
        + [{"dataset": "naval", "label": MIX_POLY, "seed": 0, "T": 100, "mse": 0.0, "regret": -1.0,
            "best_expert": "VAW2 [76]", "cpu_seconds": 0.25, "n_experts": 2}])
    claims = pd.DataFrame([{"dataset": "naval", "mixture": MIX_BOA, "ratio": 1.5, "holds": False},
                           {"dataset": "naval", "mixture": MIX_POLY, "ratio": 0.9, "holds": True}])
    reg = lb.regret_table(mix, claims)
    assert reg["mixture"].tolist() == [MIX_BOA]                         # only where the claim fails
    assert reg["regret_mean"].iloc[0] == pytest.approx(0.2)
    assert (reg["regret_min"].iloc[0], reg["regret_max"].iloc[0]) == (0.1, 0.3)
    assert reg["regret_per_step_x1e3"].iloc[0] == pytest.approx(2.0)
    singles = pd.DataFrame([
        {"dataset": "naval", "label": "VAW2 [76]", "seed": 0, "T": 100, "cpu_seconds": 2.0},
        {"dataset": "naval", "label": "VAW2 [76]", "seed": 1, "T": 100, "cpu_seconds": 4.0},
        {"dataset": "naval", "label": "River ARF(10)", "seed": 0, "T": 100, "cpu_seconds": 10.0},
        {"dataset": "naval", "label": "River AMF(10)", "seed": 0, "T": 100, "cpu_seconds": 100.0}])   # not in the pool
    tim = lb.timing_table(singles, mix).set_index("label")
    assert tim.loc["VAW2 [76]", "cpu_s_per_run"] == 3.0
    assert tim.loc["VAW2 [76]", "cpu_s_per_1000_steps"] == 30.0
    assert tim.loc[MIX_BOA, "cpu_s_per_run"] == 0.5
    assert tim.loc[MIX_BOA, "cpu_s_per_run_incl_experts"] == 0.5 + 3.0 + 10.0
    assert "mse" not in " ".join(tim.columns)                           # a timing table holds no MSE


# ------------------------------------------------------- a pool with a learner that never learns
class _Never(OnlineLearner):
    """Forecasts 0.5 whatever it sees: a learner that never learns."""

    _parameter_constraints = {}

    def predict_one(self, x):
        check_point(x)
        return 0.5

    def learn_one(self, x, y):
        check_point(x)
        check_label(y)
        self.t_ += 1


def _stream_forecasts(experts, X, y):
    return np.stack([ok.run_online(e, X, y).predictions for e in experts], axis=1)


def test_claim_on_a_pool_with_a_learner_that_never_learns():
    X, y = ok.registry.load_dataset("concrete")
    experts = {"ridge": ok.OnlineRidge(a=1.0, fit_intercept=True), "never": _Never(),
               "VAW2": ok.VAW2(m=20, seed=0)}
    Z = _stream_forecasts(experts.values(), X, y)
    rows = [("concrete", lab, 1e3 * float(np.mean((Z[:, j] - y) ** 2))) for j, lab in enumerate(experts)]
    for meta_label in ("BOA", "ML-Poly"):
        p = aggregate(Z, y, meta=lb.METAS[meta_label])
        rows.append(("concrete", lb.mixture_label(meta_label), 1e3 * float(np.mean((p - y) ** 2))))
    uniform = Z.mean(axis=1)                            # a "mixture" that ignores its meta weights
    rows.append(("concrete", "Mixture(uniform, wrong)", 1e3 * float(np.mean((uniform - y) ** 2))))
    c = lb.mixture_claims(_summ(rows)).set_index("mixture")
    assert set(c["best_single"]) == {"VAW2"}
    assert c.loc[MIX_BOA, "holds"] and c.loc[MIX_POLY, "holds"], c
    assert not c.loc["Mixture(uniform, wrong)", "holds"]          # the criterion catches it
    assert c.loc["Mixture(uniform, wrong)", "ratio"] > 1.5


# ------------------------------------------------- the leaderboard's rows are the library's
class _PinnedFallback(OnlineLearner):
    """An expert whose abstentions are replaced by the leaderboard's pinned fallback f_t (0.5 at
    t = 1, the midpoint of the bounds; the mean of the past labels after)."""

    def __init__(self, inner):
        self.inner = inner
        super().__init__()

    def _reset(self):
        self.inner_ = self.inner.clone()
        self.total_ = 0.0

    def predict_one(self, x):
        p = self.inner_.predict_one(x)
        return p if p is not None else (0.5 if self.t_ == 0 else self.total_ / self.t_)

    def learn_one(self, x, y):
        self.inner_.learn_one(x, y)
        self.total_ += float(y)
        self.t_ += 1


_PinnedFallback.run = None


def test_mixture_rows_are_the_mixture_of_the_pool_bit_for_bit(tmp_path):
    from omkl_core.interop import from_river
    from omkl_core.interop.river import river_baseline
    from omkl_core.sweep import make_learner

    ds, seeds, T = ["concrete"], [1], 40
    rows, F = lb.run_singles(ds, seeds, max_steps=T, executor="processes", max_workers=2, cache_dir=tmp_path,
                             progress=False)
    assert not rows["cached"].any()
    X, y = ok.registry.load_dataset("concrete", T)
    ent = {e.label: e for e in lb.entries(T)}
    pool = lb.pool_labels(list(ent))
    assert len(pool) == 26 and set(lb.RIVER_POOL) <= set(pool)
    assert not {"River AMF(10)", "River LinearRegression"} & set(pool)
    learners = [make_learner(ok.registry.learners()[ent[lab].name], ent[lab].params, seeds[0])
                if ent[lab].kind == "omkl" else from_river(river_baseline(lab, seeds[0])) for lab in pool]
    mix = lb.mixture_runs(F, ds, seeds, max_steps=T, metas={"BOA": lb.METAS["BOA"], "ML-Poly": lb.METAS["ML-Poly"]})
    pinned = [_PinnedFallback(e) if ent[lab].kind == "river" else e for lab, e in zip(pool, learners)]
    for meta_label in ("BOA", "ML-Poly"):
        # the leaderboard pins the abstention rule of its published rows (issue 41): an abstaining expert
        # is scored as f_t (0.5 at t = 1); Mixture itself now lets it sleep, and differs
        p = ok.Mixture(pinned, meta=lb.METAS[meta_label]).run(X, y)
        row = mix[mix["label"] == lb.mixture_label(meta_label)].iloc[0]
        assert row["mse"] == float(np.sum((p - y) ** 2)) / T
        assert row["n_experts"] == 26
        sleeping = ok.Mixture(learners, meta=lb.METAS[meta_label]).run(X, y)
        assert float(np.sum((sleeping - y) ** 2)) / T != row["mse"]
    # the regret is against the best expert of the pool as the meta saw it (fallback at t = 1)
    Zs = np.stack([F[("concrete", lab, 1)][0] for lab in pool], axis=1)
    A = np.stack([F[("concrete", lab, 1)][1] for lab in pool], axis=1)
    assert A[0, pool.index("River ARF(10)")] and not A[1:].any()
    Zs[A] = 0.5                                             # f_1: midpoint of bounds (0, 1)
    best = ((Zs - y[:, None]) ** 2).sum(axis=0).min()
    boa = mix[mix["label"] == MIX_BOA].iloc[0]
    assert boa["regret"] == pytest.approx(boa["mse"] * T - best, rel=1e-12)
    # deterministic rows run once and serve every seed; a second call reads the cache
    assert (rows.loc[rows["label"] == "OMKR [41]", "seed"] == -1).all()
    rows2, F2 = lb.run_singles(ds, seeds, max_steps=T, executor="processes", max_workers=2, cache_dir=tmp_path,
                               progress=False)
    assert rows2["cached"].all()
    assert all(np.array_equal(F[k][0], F2[k][0]) and np.array_equal(F[k][1], F2[k][1]) for k in F)
    assert rows2["mse"].tolist() == rows["mse"].tolist()
    # the same forecasts, bit for bit, when the runs go to this process instead (the one runner's executors)
    rows3, F3 = lb.run_singles(ds, seeds, max_steps=T, executor="serial", progress=False)
    assert not rows3["cached"].any() and F3.keys() == F.keys()
    assert all(np.array_equal(F[k][0], F3[k][0]) and np.array_equal(F[k][1], F3[k][1]) for k in F)


def test_river_forecasts_abstain_where_from_river_does():
    from omkl_core.interop import from_river
    from omkl_core.interop.river import evaluate_river, river_baseline, river_forecasts

    X, y = ok.registry.load_dataset("airfoil", 50)
    for name in ("River KNNRegressor(5)", "River LinearRegression"):
        r = river_forecasts(name, X, y, seed=2)
        with ok.base.marked_abstentions():           # run's NaN-marked form (outside it: the fallback, never NaN)
            z = from_river(river_baseline(name, 2)).run(X, y)
        assert np.array_equal(np.isnan(z), r["abstained"]) and r["abstained"][0]
        assert np.array_equal(z[~r["abstained"]], r["predictions"][~r["abstained"]])
        assert evaluate_river(name, X, y, seed=2)["mse"] == float(np.mean((r["predictions"] - y) ** 2))


def test_ewa_regressor_is_rivers_rule_on_the_stored_forecasts():
    rng = np.random.default_rng(0)
    T, N = 60, 4
    y = rng.uniform(size=T)
    Z = np.clip(y[:, None] + rng.normal(scale=[0.05, 0.2, 0.4, 0.8], size=(T, N)), 0, 1)
    got = lb.ewa_regressor(Z, y)
    w = np.ones(N)                            # River: weights start at 1 each, not normalised
    want = np.empty(T)
    for t in range(T):
        want[t] = float(np.sum(Z[t] * w))
        w = w * np.exp(-0.5 * (Z[t] - y[t]) ** 2)
        w = w / w.sum()
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
    assert math.isclose(got[0], Z[0].sum())   # the first forecast: the unnormalised sum


def test_user_guide_five_line_mixture_example_runs():
    """Item 4: the user guide's five-line example (a Mixture of an omkl learner and a River model on a
    user's stream) runs as printed, and its forecasts are the mixture's."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    blocks = [b for page in pages for b in re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S)]
    found = [b for b in blocks if "ok.Mixture(" in b and "from_river(" in b and len(b.strip().splitlines()) == 5]
    assert found, "the five-line Mixture example (an omkl learner and a River model) is in no page of the guide"
    code = found[0]
    X, y = ok.datasets.ar4(T=60, seed=1)
    ns = {"stream": zip(X, y)}
    exec(compile(code, "README.md", "exec"), ns)          # noqa: S102 - the README's own code
    mix = ns["mix"]
    assert mix.t_ == 60 and mix.n_abstained_.tolist() == [0, 1]   # River's KNN abstains at t = 1 only
    # run goes through VAW2's compiled driver: the same numbers to rounding (Mixture's docstring)
    assert ns["y_hat"] == pytest.approx(ok.run_online(mix.clone(), X, y).predictions[-1], rel=1e-12, abs=0)


def test_the_vaw_family_rows_sharing_one_expert_layer_equal_their_lone_runs_bit_for_bit():
    """Paper 000's VAW-family rows of one dictionary and seed (and the ridge floor) run as one expert
    layer pass (lb.expert_group_task); each row's forecasts are those of its own learner's run."""
    T, seed = 60, 2
    X, y = ok.registry.load_dataset("airfoil", T)
    for tag in lb.DICTS:
        rows = [{"label": e.label, "name": e.name, "params": e.params} for e in lb.entries(T, river=False)
                if e.name in lb.VAW_FAMILY and e.label.endswith(f"[{tag}]")]
        assert len(rows) == len(lb.VAW_ROWS) + 1                      # the six VAW rows and the ridge floor
        group = lb.expert_group_task({"seed": seed, "rows": rows}, X, y)
        for r in rows:
            lone = lb.forecast_task({"kind": "omkl", "name": r["name"], "params": r["params"], "seed": seed}, X, y)
            assert np.array_equal(group[r["label"]]["predictions"], lone["predictions"]), r["label"]
            assert not group[r["label"]]["abstained"].any()


def test_an_expert_group_refuses_rows_of_different_expert_layers():
    T = 20
    X, y = ok.registry.load_dataset("airfoil", T)
    e76, e41 = (next(e for e in lb.entries(T, river=False) if e.label == f"VAW2 [{tag}]") for tag in ("76", "41"))
    rows = [{"label": e.label, "name": e.name, "params": e.params} for e in (e76, e41)]
    with pytest.raises(ValueError, match="share one expert layer"):
        lb.expert_group_task({"seed": 0, "rows": rows}, X, y)
