"""Issue 38: the verdicts a reviewer would sign -- one tier per published cell (the rule of
``omkl_core.repro.verdicts``), one kind per claim, one scored form per cell, and every miss with a
measured cause (a table of the run, declared in ``omkl_core.repro.papers``) or *unexplained*."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from omkl_core.repro import html_report, paper_values, papers, report, verdicts

ROOT = Path(__file__).resolve().parent.parent


# ----------------------------------------------------------------------------- the tier rule
@given(pub=st.floats(0.01, 100), rel=st.floats(-0.9, 0.9), sd=st.floats(0, 20), n=st.integers(1, 60),
       n_paper=st.sampled_from([5, 50, None]))
def test_tier_is_the_first_of_noise_band_5_10_25_percent_miss(pub, rel, sd, n, n_paper):
    mean = pub * (1 + rel)
    sd = sd if n > 1 else 0.0
    band = 2 * math.sqrt(sd ** 2 / n + (sd ** 2 / n_paper if n_paper else 0.0))
    diff = abs(mean - pub)
    expected = ("within noise" if diff <= band else "≤ 5 %" if diff <= 0.05 * pub else "≤ 10 %" if diff <= 0.10 * pub
                else "≤ 25 %" if diff <= 0.25 * pub else "miss")
    assert verdicts.tier(pub, mean, sd, n, n_paper) == expected
    assert verdicts.noise_band(sd, n, n_paper) == pytest.approx(band, rel=1e-12, abs=0)


def test_noise_band_estimates_the_papers_spread_by_ours_with_the_papers_repetitions():
    # sd 1 over 5 runs against paper 000's 5 experiments: 2 sqrt(1/5 + 1/5); paper 003's R = 50: 2 sqrt(1/5 + 1/50)
    assert report.cell_verdict("000", 10.0, 10.0, 1.0, 5)[0] == pytest.approx(2 * math.sqrt(0.4))
    assert report.cell_verdict("003", 10.0, 10.0, 1.0, 5)[0] == pytest.approx(2 * math.sqrt(0.2 + 0.02))
    # a noisier row does not widen a relative tier: 12 % off is "≤ 25 %" whatever the sd, unless within noise
    assert verdicts.tier(10.0, 11.2, 0.1, 5, 5) == "≤ 25 %"
    assert verdicts.tier(10.0, 11.2, 2.0, 5, 5) == "within noise"


@pytest.mark.parametrize("mean, expected", [(10.5, "≤ 5 %"), (10.51, "≤ 10 %"), (9.0, "≤ 10 %"), (11.01, "≤ 25 %"),
                                            (7.5, "≤ 25 %"), (12.51, "miss"), (7.49, "miss")])
def test_relative_tiers_sit_at_5_10_and_25_percent_on_either_side(mean, expected):
    assert verdicts.tier(10.0, mean, 0.0, 1, 5) == expected


def test_one_deterministic_run_is_within_noise_only_when_equal():
    assert verdicts.tier(28.32, 28.32, 0.0, 1, 50) == "within noise"
    assert verdicts.tier(28.32, 28.35, 0.0, 1, 50) == "≤ 5 %"


@pytest.mark.parametrize("bad", [dict(sd=-1.0, n=3), dict(sd=1.0, n=0), dict(sd=1.0, n=True), dict(sd=1.0, n=2.5)])
def test_noise_band_refuses_a_negative_sd_or_a_count_that_is_not_a_positive_integer(bad):
    with pytest.raises(ValueError, match="sd|n must"):
        verdicts.noise_band(bad["sd"], bad["n"], 5)


def test_tier_refuses_nan():
    with pytest.raises(ValueError, match="finite"):
        verdicts.tier(float("nan"), 1.0, 0.0, 1, 5)


def test_the_rule_is_printed_with_its_numbers():
    assert "2·√(sd²/n + sd_paper²/n_paper)" in verdicts.TIER_RULE and "5 for paper 000 and 50 for paper 003" in verdicts.TIER_RULE
    assert verdicts.PAPER_REPETITIONS == {"000": 5, "003": 50}
    assert verdicts.TIERS == ("within noise", "≤ 5 %", "≤ 10 %", "≤ 25 %", "miss")


# ----------------------------------------------------------------------------- claim kinds
def test_a_claim_on_printed_numbers_never_reads_holds():
    row = report.claim_row("000", "Table 2", "VAW2 lowest (published numbers)", True, kind="printed")
    assert row["verdict"] == "consistent in print" and report.holds(row)
    assert report.claim_row("000", "Table 2", "x", False, kind="printed")["verdict"] == "inconsistent in print"
    assert report.claim_row("000", "Table 2", "x", True, kind="paper")["verdict"] == "holds"
    with pytest.raises(ValueError, match="kind must be one of"):
        report.claim_row("000", "Table 2", "x", True, kind="ours")
    with pytest.raises(TypeError):
        report.claim_row("000", "Table 2", "x", True)            # the kind is never a default


def test_every_claim_function_declares_its_kind():
    from omkl_core.repro import claims as C

    printed = C.paper000_table2_claims_published() + C.paper003_table_claims_published()
    assert {r["kind"] for r in printed} == {"printed"}
    assert all("published" in r["row"] for r in printed)


# ----------------------------------------------------------------------------- the merge
def _cell(row="VAW2", column="Airfoil", values=(22.0, 23.5), item="Table 2", paper="000", **kw):
    pub = paper_values.published_value(paper, item.split()[-1], column, row)
    return report.cell_row(paper, item, row, column, pub, list(values), **kw)


def test_scorecard_refuses_a_published_cell_scored_twice(tmp_path, monkeypatch):
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    report.add_scorecard_rows("paper000_table2", pd.DataFrame([_cell()]))
    report.add_scorecard_rows("paper000_table2_code", pd.DataFrame([_cell(values=(30.0, 31.0))]))
    with pytest.raises(ValueError, match="scored twice"):
        report.scorecard()


def test_scorecard_refuses_a_form_named_item_or_a_row_the_paper_does_not_print(tmp_path, monkeypatch):
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    row = _cell()
    report.add_scorecard_rows("s", pd.DataFrame([{**row, "item": "Table 2 (authors' code form)"}]))
    with pytest.raises(ValueError, match="one scored form per cell"):
        report.scorecard()
    report.add_scorecard_rows("s", pd.DataFrame([{**row, "row": "VAW2 [code]"}]))
    with pytest.raises(ValueError, match="no published cell"):
        report.scorecard()
    report.add_scorecard_rows("s", pd.DataFrame([{**row, "verdict": "yes"}]))
    with pytest.raises(ValueError, match="verdict 'yes'"):
        report.scorecard()


def _form(source="code", label="the named form"):
    return papers.FormRef(r"evidence_table", (("form", "named"),), source, label)


def test_a_miss_names_a_declared_cause_whose_table_is_in_the_run_or_says_unexplained(tmp_path, monkeypatch):
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    cause = papers.Cause("test-cause", "000", "2", r"VAW2", r"Airfoil", "measured here", ("evidence_table",), _form())
    monkeypatch.setattr(papers, "CAUSES", (cause,))
    report.add_scorecard_rows("paper000_table2", pd.DataFrame([_cell(values=(40.0, 41.0)),
                                                               _cell("VAW2", "Bias", values=(40.0, 41.0))]))
    df = report.scorecard()
    assert list(df["verdict"]) == ["miss", "miss"]
    assert list(df["cause"]) == ["unexplained", "unexplained"]          # the evidence table is not in the run
    report.save_table(pd.DataFrame({"form": ["other"], "algorithm": ["VAW2"], "dataset": ["Airfoil"],
                                    "mse_x1e3": [1.0], "sd": [0.0], "n_runs": [1]}), "evidence_table")
    df = report.scorecard()
    assert list(df["cause"]) == ["test-cause", "unexplained"]           # Bias: no cause covers it
    text = (tmp_path / "scorecard.md").read_text(encoding="utf-8")
    assert "2 miss." in text and "miss: 2 unexplained" in text          # the cause has no value: it does not narrow
    stamp = json.loads((tmp_path / "scorecard.stamp.json").read_text(encoding="utf-8"))
    assert stamp["tiers"]["miss"] == 2 and stamp["tiers"]["unexplained"] == 2
    assert stamp["causes"]["test-cause"]["grade"] == verdicts.NOT_NARROWED


def _graded(tmp_path, monkeypatch, source, values):
    """A scorecard with two missed cells covered by one cause whose named form gives ``values``
    (Airfoil, Bias; None: no row) -> the cause's grade and the cells' rows."""
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    cause = papers.Cause("test-cause", "000", "2", r"VAW2", r".*", "measured here", ("evidence_table",),
                         _form(source))
    monkeypatch.setattr(papers, "CAUSES", (cause,))
    pub = paper_values.published_table("000", 2)
    report.add_scorecard_rows("paper000_table2", pd.DataFrame([
        _cell("VAW2", d, values=(2 * pub.loc["VAW2", d], 2.01 * pub.loc["VAW2", d])) for d in ("Airfoil", "Bias")]))
    rows = [{"form": "named", "algorithm": "VAW2 [a variant]", "dataset": d, "mse_x1e3": v, "sd": 0.0, "n_runs": 5}
            for d, v in zip(("Airfoil", "Bias"), values) if v is not None]
    rows.append({"form": "other", "algorithm": "VAW2", "dataset": "Airfoil", "mse_x1e3": pub.loc["VAW2", "Airfoil"],
                 "sd": 0.0, "n_runs": 5})
    report.save_table(pd.DataFrame(rows), "evidence_table")
    df = report.scorecard()
    stamp = json.loads((tmp_path / "scorecard.stamp.json").read_text(encoding="utf-8"))
    return stamp["causes"]["test-cause"], df


def test_a_cause_whose_form_lands_on_every_cell_it_covers_is_closed_when_it_is_the_text_or_the_code(tmp_path,
                                                                                                   monkeypatch):
    pub = paper_values.published_table("000", 2)
    g, df = _graded(tmp_path, monkeypatch, "code", [1.01 * pub.loc["VAW2", "Airfoil"], 0.98 * pub.loc["VAW2", "Bias"]])
    assert g["grade"] == verdicts.CLOSED and g["landed"] == 2 and g["cells"] == 2
    assert list(df["grade"]) == [verdicts.CLOSED] * 2 and g["gap_after"] < 0.05 < 0.9 < g["gap_before"]
    text = (tmp_path / "scorecard.md").read_text(encoding="utf-8")
    assert "test-cause: **closed**" in text and "lands within noise or ≤ 5 % on 2 of the 2 cells" in text
    assert "miss: 2 closed" in text


def test_a_cause_that_lands_with_a_setting_of_neither_text_nor_code_is_a_hypothesis(tmp_path, monkeypatch):
    pub = paper_values.published_table("000", 2)
    g, _ = _graded(tmp_path, monkeypatch, "neither", [pub.loc["VAW2", "Airfoil"], pub.loc["VAW2", "Bias"]])
    assert g["grade"] == verdicts.HYPOTHESIS


def test_a_cause_that_narrows_without_landing_everywhere_is_partly_explained_and_says_by_how_much(tmp_path,
                                                                                                  monkeypatch):
    pub = paper_values.published_table("000", 2)
    g, _ = _graded(tmp_path, monkeypatch, "code", [pub.loc["VAW2", "Airfoil"], 1.5 * pub.loc["VAW2", "Bias"]])
    assert g["grade"] == verdicts.PARTLY and g["landed"] == 1
    assert g["gap_after"] == pytest.approx(0.25, abs=1e-9) and g["gap_before"] > 1.0
    g, _ = _graded(tmp_path, monkeypatch, "code", [pub.loc["VAW2", "Airfoil"], None])     # no value for Bias
    assert g["grade"] == verdicts.PARTLY and g["missing"] == 1


def test_a_cause_whose_form_is_further_off_does_not_narrow_and_counts_as_unexplained(tmp_path, monkeypatch):
    pub = paper_values.published_table("000", 2)
    g, df = _graded(tmp_path, monkeypatch, "code", [3 * pub.loc["VAW2", "Airfoil"], 3 * pub.loc["VAW2", "Bias"]])
    assert g["grade"] == verdicts.NOT_NARROWED
    assert report.tier_counts(df)["unexplained"] == 2


def test_within_noise_cells_more_than_5_percent_off_are_counted_apart_with_their_n_and_sd():
    from omkl_core.repro import counts

    wide = _cell(values=(20.0, 26.0, 18.0, 27.0, 24.0))          # mean 23.0 vs 22.8: within noise, 0.9 %
    far = _cell("VAW2", "Bias", values=(3.0, 4.6, 3.2, 4.4, 3.1))  # mean 3.66 vs 4.09: within noise, -10.5 %
    assert wide["verdict"] == far["verdict"] == verdicts.WITHIN_NOISE
    n, why = counts.wide_noise([wide, far])
    assert n == 1 and "n = 5" in why and "band up to" in why
    assert report.tier_counts([wide, far])[verdicts.WIDE_NOISE] == 1
    assert any(verdicts.WIDE_NOISE in line for line in counts.summary_lines([wide, far]))


def test_a_cause_without_a_table_is_refused():
    with pytest.raises(ValueError, match="evidence must name at least one table"):
        papers.Cause("k", "000", "2", ".*", ".*", "in prose only")


def test_a_cause_without_a_form_to_grade_it_by_is_refused():
    with pytest.raises(ValueError, match="form must say where"):
        papers.Cause("k", "000", "2", ".*", ".*", "text", ("t",))
    with pytest.raises(ValueError, match="source must be one of"):
        papers.FormRef("t", (), "the authors' code, probably", "x")


def test_quick_sections_judge_nothing_but_the_printed_numbers(tmp_path, monkeypatch):
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    monkeypatch.setenv("OMKL_MODE", "quick")
    rows = [_cell(), report.claim_row("000", "Table 2", "on ours", True, kind="paper"),
            report.claim_row("000", "Table 2", "in print", True, kind="printed")]
    report.add_scorecard_rows("paper000_table2", pd.DataFrame(rows))
    df = report.scorecard()
    assert list(df["verdict"]) == ["not computed at full size", "not computed at full size", "consistent in print"]
    assert report.tier_counts(df)["not computed"] == 1 and report.claim_counts(df)["printed"]["consistent in print"] == 1


# ----------------------------------------------------------------------------- the declarations
def test_every_declared_cause_covers_a_published_cell_and_names_tables_of_the_full_reference():
    ref = json.loads((ROOT / "reference" / "full" / "hashes.json").read_text(encoding="utf-8"))["tables"]
    pub = paper_values._all()
    for c in papers.CAUSES + papers.INVESTIGATIONS:
        cells = [(r.paper, r.table, r.algorithm, r.dataset) for r in pub.itertuples() if r.metric == "mse"]
        assert any(c.matches(*cell) for cell in cells), f"cause {c.key} covers no published cell"
        missing = [t for t in c.evidence if t not in ref]
        assert not missing, f"cause {c.key}: evidence tables {missing} are not tables of the full run"


def test_every_published_table_declares_one_scored_form_per_row_with_the_papers_sentence():
    pub = paper_values._all()
    for r in pub[pub.metric == "mse"].itertuples():
        forms = [f for f in papers.PAPERS[r.paper].forms
                 if __import__("re").fullmatch(f.table, r.table) and __import__("re").fullmatch(f.rows, r.algorithm)]
        assert len(forms) == 1, (r.paper, r.table, r.algorithm, len(forms))
        assert "“" in forms[0].quote and forms[0].ablations


def test_the_report_reads_the_declarations_not_a_list_of_its_own():
    assert html_report.FIGURES is papers.FIGURES and html_report.CAUSES is papers.CAUSES


def test_numbers_of_the_scorecard_stay_finite():
    row = _cell(values=(22.0,))
    assert np.isfinite(row["noise_band"]) and row["noise_band"] == 0.0 and row["verdict"] == "≤ 5 %"


def test_scorecard_merge_keeps_paper_ids_and_states_the_rule(tmp_path, monkeypatch):
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    rows = pd.DataFrame([_cell(), report.claim_row("000", "Table 2", "VAW2 lowest MSE", True, kind="paper")])
    report.add_scorecard_rows("paper000_table2", rows)
    df = report.scorecard()
    assert list(df["paper"]) == ["000", "000"]
    text = (tmp_path / "scorecard.md").read_text(encoding="utf-8")
    assert verdicts.TIER_RULE in text and "| 000 | Table 2 | VAW2 | Airfoil | cell |" in text
    assert "Claims, the papers' claims judged on our numbers: 1 holds, 0 fails." in text


# ----------------------------------------------------------------------------- the papers' scored forms
def test_paper000_scores_each_table2_cell_once_in_the_texts_form(tmp_path, monkeypatch):
    from omkl_core import registry
    from omkl_core.repro import baselines
    from omkl_core.repro import paper000 as P

    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    pub = paper_values.published_table("000", 2)
    rows = P._rows()
    # the scored form (the text's) lands on every printed VAW cell; the text form of the baselines is 1.5x off,
    # their code form exact: a scorecard that scored the text form of the baselines would show misses
    scored = {d: {"mse": {r: np.full(5, pub.loc[r, d]) for r in rows}} for d in pub.columns}
    base = {(d, lab): np.full(5, pub.loc[baselines.published_label(lab), d] * (1.0 if "[" in lab else 1.5))
            for d in pub.columns for lab in registry.paper000.baseline_rows()}
    P.table2_scorecard(scored, base, [], P.settings(quick=False))
    df = pd.read_csv(tmp_path / "scorecard.csv", dtype={"paper": str})
    assert len(df) == 45 and set(df["verdict"]) == {"within noise"} and set(df["row"]) == set(pub.index)
    assert df.groupby(["row", "column"]).size().max() == 1
    assert df[df["row"] == "VAW2"]["note"].str.contains("the text's form").all()
    P.table2_scorecard(scored, base, [], P.settings(quick=True))
    df = pd.read_csv(tmp_path / "scorecard.csv", dtype={"paper": str})
    assert len(df) == 45 and set(df["verdict"]) == {"not computed at full size"}


def test_paper000_scored_form_is_the_texts_and_the_online_ridge_form_only_an_ablation():
    from omkl_core.repro import paper000 as P

    text, ridge = {"Airfoil": "text form"}, {"Airfoil": "ridge form"}
    assert P.scored_results({"table2": text, "tvaw": ridge}, ["Airfoil"]) == text
    assert P.ridge_results({"table2": text, "tvaw": ridge}, ["Airfoil"]) == ridge
    form = papers.scored_form("000", "2", "VAW2")
    assert "eqs. (9)-(10)" in form.form and "√2 cos" in form.form and "m = 50" in form.form and "(9)-(10)" in form.quote
    assert P.VARIANTS[P.RIDGE_FORM][0] == papers.P000_RIDGE_FORM            # the cause reads the ablation's label
    cause = next(c for c in papers.CAUSES if c.key == "p000-online-ridge")
    assert cause.form.where == (("form", papers.P000_RIDGE_FORM),) and cause.form.source == "code"


def test_paper000_claim_says_where_its_verdict_differs_in_the_online_ridge_form():
    from omkl_core.repro import paper000 as P

    rows = P._rows()

    def results(winner):
        return {d: {"mse": {r: np.full(5, 1.0 if r == winner else 2.0) for r in rows}}
                for d in ("AR(4)", "Airfoil", "Bias", "Concrete", "Naval")}

    claims = P.table2_claims(results("VAW-ML-Poly"), results("VAW2"))
    assert claims[0]["verdict"] == "fails" and "online-ridge form (tvaw) it holds" in claims[0]["note"]
    same = P.table2_claims(results("VAW2"), results("VAW2"))
    assert same[0]["verdict"] == "holds" and "online-ridge" not in same[0]["note"]


def test_paper003_scores_the_text_rows_only_and_its_variants_are_ablations(tmp_path, monkeypatch):
    from omkl_core.repro import paper003 as P

    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path))
    results = {}
    for name, k in P.TABLE.items():
        pubk = paper_values.published("003", k, "mse").set_index("algorithm")["value"]
        results[name] = {row: {"mse": np.full(3, pubk[row])} for row in P.ROWS}
        results[name]["SFG-MKL [code: node 0]"] = {"mse": np.full(3, 2 * pubk["SFG-MKL"])}
    sc = P.write_scorecard(results, [], [], P.settings(quick=False))
    assert len(sc) == 20 and set(sc["verdict"]) == {"within noise"} and not sc["row"].str.contains(r"\[").any()
    abl = P.ablation_table(results, P.settings(quick=False))
    assert sorted(abl) == [1, 2, 3, 4] and list(abl[1]["form"]) == ["code: node 0"]
    assert abl[1]["ratio"].iloc[0] == pytest.approx(2.0) and "tier" not in abl[1].columns
