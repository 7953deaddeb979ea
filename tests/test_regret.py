"""omkl_core.regret: regret against opera's oracles and the papers' bounds evaluated on a run.

The bound checks have power: on the same stream where the correct learner satisfies its stated
bound, a broken one violates it (EWA with eta x 4; a meta-learner that ignores its weights).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import omkl_core as ok
from omkl_core import bounds, oracles
from omkl_core.aggregation import BOA, EWA, AggregatingAlgorithm, MLPoly, VAWMeta
from omkl_core.cli import main
from omkl_core.regret import NO_BOUND, regret_report, report_from_forecasts


def _alternating(T=1000):
    """Experts 0 and 1, labels 1, 0, 1, ...: the leader changes every step (follow-the-leader's worst case)."""
    return np.tile([0.0, 1.0], (T, 1)), np.where(np.arange(T) % 2 == 0, 1.0, 0.0)


def _one_good_expert(T=500, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.uniform(0, 1, T)
    return np.column_stack([y, rng.uniform(0, 1, T), rng.uniform(0, 1, T)]), y


def _row(report, equation, comparator=None):
    rows = [b for b in report.bounds if b.equation.startswith(equation) and (comparator is None or b.comparator == comparator)]
    assert len(rows) == 1, [b.equation for b in report.bounds]
    return rows[0]


# ------------------------------------------------------------------------- power of the checks
def test_ewa_eq30_holds_for_eta_and_is_violated_by_eta_times_4_on_the_same_stream():
    Z, y = _alternating()
    good = report_from_forecasts(Z, y, EWA().run(Z, y), rule=EWA())
    broken = report_from_forecasts(Z, y, EWA(eta=4 * 0.5).run(Z, y), rule=EWA())   # claims eta = 1/2, uses 2
    rhs = bounds.ewa_bound(2, 0.0, 1.0)                                          # ln 2 / (1/2)
    for rep in (good, broken):
        row = _row(rep, "P000 eq. (30)")
        assert row.bound == rhs
        best = np.min(np.sum((Z - y[:, None]) ** 2, axis=0))
        assert row.lhs == pytest.approx(rep.T * rep.loss - best, rel=1e-12)
    assert _row(good, "P000 eq. (30)").holds is True
    assert _row(broken, "P000 eq. (30)").holds is False
    assert _row(broken, "P000 eq. (30)").lhs > 5 * rhs
    # the broken learner's own eta is refused as a bound parameter: no bound is borrowed for it
    own = report_from_forecasts(Z, y, EWA(eta=2.0).run(Z, y), rule=EWA(eta=2.0))
    assert own.bounds[0].holds is None and NO_BOUND in own.bounds[0].note


@pytest.mark.parametrize("rule", [VAWMeta(), VAWMeta(bounds=(0, 1)), EWA(), AggregatingAlgorithm()],
                         ids=["VAW2", "VAW2-trunc", "EWA", "AA"])
def test_meta_learner_ignoring_its_weights_violates_the_bound_the_rule_satisfies(rule):
    """The uniform average of the experts (weights never updated) against the rule's bound, on a stream
    where one expert is exact: every evaluated row holds for the rule's run and some row fails for the fake."""
    Z, y = _one_good_expert()
    good = report_from_forecasts(Z, y, rule.clone().run(Z, y), rule=rule)
    fake = report_from_forecasts(Z, y, Z.mean(axis=1), rule=rule)
    evaluated = [b for b in good.bounds if b.holds is not None]
    assert evaluated and all(b.holds for b in evaluated)
    assert good.all_hold is True
    assert fake.all_hold is False


def test_vaw2_eq11_sup_row_is_the_worst_comparator():
    """regret(delta) - lam/2 |delta|^2 is largest at the ridge delta_lam: the sup row's margin is the smallest."""
    Z, y = _one_good_expert()
    rep = report_from_forecasts(Z, y, VAWMeta().run(Z, y), rule=VAWMeta())
    rows = [b for b in rep.bounds if b.equation == "P000 eq. (11)"]
    margins = {b.comparator: b.bound - b.lhs for b in rows}
    assert min(margins, key=margins.get) == "sup over delta (ridge delta_lam)"


def test_vaw2_eq11_rows_are_half_losses_with_the_runs_rho_and_y():
    """(11): R_T(delta) = 1/2 sum (yhat - y)^2 - 1/2 sum (<delta, z_t> - y)^2 <= lam/2 |delta|^2
    + N Y^2/2 ln(1 + rho^2 T/(lam N)), rho = max ||z_t||, Y = max |y_t| (written out here)."""
    Z, y = _one_good_expert(T=300)
    Z = 1.5 * Z                                        # rho and Y differ from 1
    p = VAWMeta(lam=2.0).run(Z, y)
    rep = report_from_forecasts(Z, y, p, rule=VAWMeta(lam=2.0))
    row = _row(rep, "P000 eq. (11)", "best expert")
    T, N = Z.shape
    j = int(np.argmin(np.sum((Z - y[:, None]) ** 2, axis=0)))
    lhs = 0.5 * np.sum((p - y) ** 2) - 0.5 * np.sum((Z[:, j] - y) ** 2)
    rho2 = float(np.max(np.sum(Z * Z, axis=1)))
    Y = float(np.max(np.abs(y)))
    rhs = 2.0 / 2 * 1.0 + N * Y * Y / 2 * math.log(1 + rho2 * T / (2.0 * N))
    assert row.lhs == pytest.approx(lhs, rel=1e-12) and row.bound == pytest.approx(rhs, rel=1e-12)


def test_ewa_row_compares_with_the_best_truncated_expert():
    """(30) is stated for zbar = clip(z, A, B) (eq. 28): the experts forecast -0.5 and 1.5, outside [0, 1]
    (loss 250 each as given, 100 truncated)."""
    Z, y = _alternating(200)
    Z = 2.0 * Z - 0.5
    p = EWA().run(Z, y)
    row = _row(report_from_forecasts(Z, y, p, rule=EWA()), "P000 eq. (30)")
    best = np.min(np.sum((np.clip(Z, 0, 1) - y[:, None]) ** 2, axis=0))
    assert row.lhs == pytest.approx(np.sum((p - y) ** 2) - best, rel=1e-12)


# ---------------------------------------------------------------------------- learners
def test_regret_report_vaw2_is_the_learners_run_and_states_eq25():
    X, y = ok.datasets.load("airfoil")
    X, y = X[:300], y[:300]
    model = ok.VAW2(m=8, seed=0)
    rep = regret_report(model, X, y)
    assert model.t_ == 0                                          # the learner passed is not modified
    p = ok.VAW2(m=8, seed=0).run(X, y)
    assert rep.loss == np.mean((p - y) ** 2)
    assert _row(rep, "P000 eq. (25)").holds is True
    assert _row(rep, "P000 Theorem 2").holds is None
    Z = ok.mkl.expert_predictions(X, y, m=8, repetitions=1, seed=0)[0]
    assert rep.oracles["best expert"] == pytest.approx(oracles.best_expert(Z, y).loss, rel=1e-12)
    assert rep.regret("best linear") == pytest.approx(rep.T * (rep.loss - oracles.best_linear(Z, y).loss), rel=1e-9)


def test_regret_report_vaw_ewa_states_eq30_and_theorem3():
    X, y = ok.datasets.load("airfoil")
    rep = regret_report(ok.VAWEWA(m=8, seed=0), X[:300], y[:300])
    assert _row(rep, "P000 eq. (30)").holds is True
    assert _row(rep, "P000 Theorem 3").holds is None
    assert rep.forecasts.startswith("truncated to [0, 1]")


def test_mixture_summary_reports_its_meta_learners_bound():
    X, y = ok.datasets.ar4(T=300, seed=0)
    y = (y - y.min()) / (y.max() - y.min())
    mix = ok.Mixture([ok.OnlineRidge(fit_intercept=True), ok.OnlineRidge(a=10.0)], meta=AggregatingAlgorithm())
    rep = mix.summary(X, y)
    assert mix.t_ == 0
    assert rep.loss == np.mean((ok.Mixture(mix.learners, meta=AggregatingAlgorithm()).run(X, y) - y) ** 2)
    row = _row(rep, "P000 sec. 4 (CBL Prop. 3.2)")
    assert row.holds is True and row.bound == pytest.approx(math.log(2) / 2)
    assert "best expert sequence, <= 5 switches" in str(rep)


@pytest.mark.parametrize("rule", [BOA(), EWA(gradient=True, eta=0.5), ok.aggregation.CalibratedEWA(), ok.MLProd(),
                                  VAWMeta(shrink_to="uniform")])
def test_no_bound_stated_is_said_not_borrowed(rule):
    Z, y = _one_good_expert(T=100)
    rep = regret_report(rule, Z, y)
    assert [b.equation for b in rep.bounds] == [NO_BOUND]
    assert type(rule).__name__ in rep.bounds[0].note
    assert rep.bounds[0].holds is None and rep.all_hold is None
    if not isinstance(rule, VAWMeta):
        assert "opera" in rep.bounds[0].note
    assert NO_BOUND in rep.to_text()


def test_online_ridge_meta_uses_paper002_corollary2():
    Z, y = _one_good_expert(T=200)
    rep = regret_report(VAWMeta(ridge=True), Z, y)
    row = _row(rep, "P002 Corollary 2, eq. (4)")
    assert row.holds is True
    assert row.bound == pytest.approx(bounds.paper002_corollary2_bound(Z, y, 1.0), rel=1e-12)


def test_report_to_dict_and_text():
    Z, y = _one_good_expert(T=120)
    rep = regret_report(EWA(), Z, y, shifts=2)
    d = rep.to_dict()
    assert set(d["oracles"]) == {"best expert", "best convex", "best linear", "best 1-shift path", "best 2-shift path"}
    assert d["regret"]["best convex"] == rep.T * (rep.loss - rep.oracles["best convex"])
    assert d["bounds"][0]["equation"].startswith("P000 eq. (30)") and d["all_hold"] is True
    text = str(rep)
    assert "best linear" in text and "holds" in text and "(30)" in text


def test_regret_report_bad_input_names_the_argument():
    with pytest.raises(TypeError, match="aggregates experts"):
        regret_report(ok.OnlineRidge(), np.ones((5, 2)), np.ones(5))
    with pytest.raises(ValueError, match="y"):
        regret_report(EWA(), np.ones((5, 2)), np.ones(4))
    with pytest.raises(ValueError, match="predictions"):
        report_from_forecasts(np.ones((5, 2)), np.ones(5), np.ones(3))
    with pytest.raises(ValueError, match="shifts"):
        regret_report(EWA(), np.full((5, 2), 0.5), np.full(5, 0.5), shifts=-1)


# -------------------------------------------------------------------------------- CLI
def test_cli_run_regret_prints_oracles_and_stated_bounds(capsys):
    assert main(["run", "VAW2", "--dataset", "airfoil", "--param", "m=4", "--regret"]) == 0
    out = capsys.readouterr().out
    for needle in ("best expert", "best convex", "best linear", "best expert sequence, <= 5 switches", "paper 000, eq. (25)", "holds"):
        assert needle in out


def test_cli_regret_refuses_a_learner_without_experts(capsys):
    assert main(["run", "OnlineRidge", "--dataset", "airfoil", "--regret"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("omkl: error: --regret") and err.count("\n") == 1


# ------------------------------------------------------------- each rule carries its bound (issue 41)
def test_every_rule_declares_its_bound_beside_its_update_and_regret_reads_it():
    """regret.stated_bounds holds no list of rules: it asks the rule. A rule that declares a bound
    (regret_bound) evaluates rows; the others say why not."""
    Z, y = _one_good_expert(T=150)
    for rule in (EWA(), AggregatingAlgorithm(), VAWMeta(), MLPoly(), BOA(), ok.MLProd(), ok.CalibratedEWA()):
        rows = ok.regret.stated_bounds(rule, Z, y, rule.clone().run(Z, y))
        declared = type(rule).regret_bound
        assert (declared is not None) == any(r.holds is not None for r in rows), type(rule).__name__
        if declared is not None:
            assert declared.source and declared.where and declared.statement and declared.symbols and declared.assumes


def test_mlpoly_report_rows_are_one_per_expert_and_papers_only_keeps_the_reproductions_rows():
    Z, y = _one_good_expert(T=200)
    rep = regret_report(MLPoly(), Z, y)
    assert [b.expert for b in rep.bounds] == [0, 1, 2] and rep.all_hold is True
    assert "Gaillard" in rep.rule_bound.source
    old = ok.regret.stated_bounds(MLPoly(), Z, y, MLPoly().run(Z, y), papers_only=True)
    assert [b.equation for b in old] == [NO_BOUND] and "opera" in old[0].note


def test_plain_regret_text_one_number_per_comparator_in_target_units_with_a_verdict():
    """Issue 39 item 4: one regret per comparator, in the target's units, the bound it is compared
    with and a verdict; the symbols explained in words; no x1e3."""
    X, y = ok.datasets.ar4(T=300, seed=0)
    y = 1000.0 + 50.0 * y
    rep = ok.Mixture().summary(X, y)
    text = str(rep)
    assert "x1e3" not in text and "target's units" in text
    lines = text.splitlines()
    for name in ("running mean", "VAW2", "OnlineRidge"):
        row = [ln for ln in lines if ln.strip().startswith(name)]
        assert row, name
        assert ("won" in row[0] or "lost" in row[0] or "matched" in row[0])
        assert any(ln.strip().startswith(f"against {name}:") and "holds with margin" in ln for ln in lines)
    assert lines[-1].startswith("verdict: ") and "the running mean" in lines[-1] and "best single expert" in lines[-1]
    assert "symbols:" in text and "learning rates" in text
    # the numbers are the run's: the mixture's summed squared error, in the target's units
    pred = ok.Mixture().run(X, y)
    assert f"{float(np.sum((pred - y) ** 2)):.6g}" in text


def test_regret_scale_maps_a_normalised_stream_back_to_the_target_units():
    Z, y = _one_good_expert(T=100)
    a = regret_report(EWA(), Z, y)
    b = regret_report(EWA(), Z, y, scale=25.0, target="price")
    row_a, row_b = a.bounds[0], b.bounds[0]
    assert row_a.lhs == row_b.lhs and "price" in str(b)
    assert f"{25.0 * row_a.lhs:.4g}" in str(b) and f"{25.0 * row_a.bound:.4g}" in str(b)
    with pytest.raises(ValueError, match="scale"):
        regret_report(EWA(), Z, y, scale=0.0)
