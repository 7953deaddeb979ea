"""Comparable tables: the numbers hash of each table (omkl_core.repro.report), the scorecard's hash over
all of them, the timing tables kept apart, ``omkl_core.repro.verify`` against a reference, and
the controlled CPU timing of the speed claims (omkl_core.repro.timing). In-process, no notebook."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import omkl_core as ok
import omkl_core.repro as repro
from omkl_core import compiled
from omkl_core.repro import timing, verify

rep = repro.report


@pytest.fixture
def results(tmp_path, monkeypatch):
    """An empty results folder (``$OMKL_RESULTS``), full mode."""
    monkeypatch.setenv("OMKL_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("OMKL_MODE", "full")
    return tmp_path / "results"


def _stamp(results, name):
    return json.loads((results / "tables" / f"{name}.stamp.json").read_text(encoding="utf-8"))


def _table(scale=1.0):
    return pd.DataFrame({"algorithm": ["VAW2", "Raker", "OMKR"], "mse_x1e3": [22.8 * scale, 24.123456789, 30.5],
                         "n_runs": [50, 50, 1], "paper": ["000", "003", "003"], "ok": [True, False, True]})


# ---------------------------------------------------------------- canonical form and hash
def test_canonical_form_rounds_numbers_and_keeps_strings_and_integers_as_written():
    text = "name,x,n,id,flag,empty\nA,0.30000000000000004,12,000,True,\nB,-0.0,-3,001,False,nan\n"
    canon = rep.canonical_table(text)
    assert canon == {"columns": ["name", "x", "n", "id", "flag", "empty"],
                     "rows": [["A", "0.3", "12", "000", "True", ""], ["B", "0", "-3", "001", "False", "nan"]]}
    # 8 significant digits (HASH_DIGITS), round half to even on the exact binary value
    assert rep.HASH_DIGITS == 8
    assert rep.canonical_table("v\n123456.789012\n1.2345678e-300\ninf\n-inf\n")["rows"] == [
        ["123456.79"], ["1.2345678e-300"], ["inf"], ["-inf"]]
    with pytest.raises(ValueError, match="digits"):
        rep.canonical_table("a\n1\n", digits=0)
    with pytest.raises(ValueError, match="roundoff names columns"):
        rep.canonical_table("a\n1\n", roundoff={"b": 1e-12})


def test_hash_is_sha256_of_the_documented_compact_json_and_stable_across_saves(results, monkeypatch):
    """The stamp's hash, recomputed independently from the CSV by the documented rule, does
    not depend on the run's date, commit or mode; a re-save gives the same hash."""
    rep.save_table(_table(), "t")
    st = _stamp(results, "t")
    rows = [["VAW2", "22.8", "50", "000", "True"], ["Raker", "24.123457", "50", "003", "False"],
            ["OMKR", "30.5", "1", "003", "True"]]
    text = json.dumps([["algorithm", "mse_x1e3", "n_runs", "paper", "ok"], rows], separators=(",", ":"))
    assert st["numbers_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert st["hash_digits"] == 8 and st["roundoff"] == {}
    monkeypatch.setenv("OMKL_RESULTS", str(results / "quick"))   # as reproduce.sh --quick sets it
    rep.set_mode("quick")
    rep.save_table(_table(), "t", floatfmt=".2f")           # another mode, another markdown format
    assert _stamp(results / "quick", "t")["mode"] == "quick"
    assert _stamp(results / "quick", "t")["numbers_sha256"] == st["numbers_sha256"]


def test_rounding_absorbs_last_digit_noise_and_no_more():
    base = rep.numbers_hash(rep.canonical_table(_table().to_csv(index=False)))
    noisy = _table()
    noisy["mse_x1e3"] *= 1 + np.array([3e-13, -2e-13, 1e-13])      # engine-level differences
    assert noisy.to_csv(index=False) != _table().to_csv(index=False)
    assert rep.numbers_hash(rep.canonical_table(noisy.to_csv(index=False))) == base
    for rel in (1e-6, 1e-4):                                          # a real change, below 4 shown digits
        changed = _table(1 + rel)
        assert rep.numbers_hash(rep.canonical_table(changed.to_csv(index=False))) != base
    renamed = _table().rename(columns={"mse_x1e3": "mse"})
    assert rep.numbers_hash(rep.canonical_table(renamed.to_csv(index=False))) != base


def test_roundoff_columns_hash_the_bound_not_the_noise(results):
    a = pd.DataFrame({"equality": ["(1)", "(14)"], "lhs": [3.0275715820684, -195.87], "rel_res": [8.7e-16, 4.6e-16]})
    b = a.assign(rel_res=[3.1e-16, 1.2e-15])                # another machine's round-off
    c = a.assign(rel_res=[3.1e-16, 2e-9])                   # a real failure of the equality
    hashes = []
    for i, df in enumerate((a, b, c)):
        rep.save_table(df, f"eq{i}", roundoff={"rel_res": 1e-12})
        hashes.append(_stamp(results, f"eq{i}")["numbers_sha256"])
    assert hashes[0] == hashes[1] != hashes[2]
    assert _stamp(results, "eq0")["roundoff"] == {"rel_res": 1e-12}
    with pytest.raises(ValueError, match="roundoff"):
        rep.save_table(a, "eq_bad", roundoff={"rel_res": -1.0})
    with pytest.raises(ValueError, match="roundoff names columns"):
        rep.save_table(a, "eq_bad", roundoff={"residual": 1e-12})


def test_timing_tables_are_not_hashed(results):
    rep.save_table(pd.DataFrame({"algorithm": ["Raker"], "cpu_s": [0.12]}), "paper003_table1_timing")
    st = _stamp(results, "paper003_table1_timing")
    assert st["numbers_sha256"] is None and "not hashed" in st["hash_rule"]
    assert rep.is_timing("paper003_table1_timing") and rep.is_timing("leaderboard_timing_per_1000_steps")
    assert not rep.is_timing("paper002_timings") and not rep.is_timing("timingtable")
    with pytest.raises(ValueError, match="timing table"):
        rep.save_table(pd.DataFrame({"r": [1e-16]}), "x_timing", roundoff={"r": 1e-12})


def test_a_number_table_with_a_time_column_is_warned_about(results):
    for col in ("run_time_s", "seconds per run", "CPU s / 1000 steps", "speedup_vs_paper", "vectorised [s]",
                "wall_s_per_1000"):
        with pytest.warns(UserWarning, match="look like run times"):
            rep.save_table(pd.DataFrame({"algorithm": ["Raker"], col: [0.12]}), "numbers")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rep.save_table(pd.DataFrame({"algorithm": ["Raker"], "cpu_s": [0.12]}), "numbers_timing")
        rep.save_table(_table().assign(rounds=3, best_round=2, test_error=0.1, T=300, loss="squared"), "numbers")


@pytest.mark.skipif(not compiled.numba_available(), reason="Numba is not installed")
def test_numpy_and_numba_engines_give_the_same_hash_on_a_table(results):
    """A table of running MSEs of VAW-family learners (the expert layer and the aggregators have
    a compiled kernel): the two engines' CSVs differ in the last digits, their hashes do not."""
    X, y = ok.registry.load_dataset("airfoil", 300)
    texts, hashes = [], []
    for eng in ("numpy", "numba"):
        with compiled.engine(eng):
            rows = []
            for cls in ("VAW2", "VAWMLPoly", "VAWBOA"):
                loss = (np.asarray(getattr(ok, cls)(m=10, seed=0).run(X, y)) - y) ** 2
                rows += [{"learner": cls, "t": t, "mse_x1e3": 1e3 * loss[:t].mean()} for t in (50, 150, 300)]
        rep.save_table(pd.DataFrame(rows), f"engines_{eng}")
        texts.append((results / "tables" / f"engines_{eng}.csv").read_text(encoding="utf-8"))
        hashes.append(_stamp(results, f"engines_{eng}")["numbers_sha256"])
    assert texts[0] != texts[1]                 # not bit-identical: the rounding is what makes them equal
    assert hashes[0] == hashes[1]


# ---------------------------------------------------------------------------- scorecard
def test_scorecard_carries_one_hash_over_the_number_tables_and_lists_speed_claims_apart(results):
    rep.save_table(_table(), "a")
    rep.save_table(_table(2.0), "b")
    rep.save_table(pd.DataFrame({"algorithm": ["Raker"], "cpu_s": [0.5]}), "b_timing")
    rows = pd.DataFrame([rep.cell_row("000", "Table 2", "VAW2", "Airfoil", 22.8, [22.0, 23.5])])
    rep.add_scorecard_rows("paper000_table2", rows)
    speed = pd.DataFrame([rep.claim_row("003", "Tables 1-4", "SFG-MKL faster than Raker", True,
                                        "Airfoil: SFG-MKL 0.12 s, Raker 0.30 s CPU", kind="paper")])
    rep.add_scorecard_rows("paper003_speed_timing", speed)
    df = rep.scorecard()
    hashes = {"a": _stamp(results, "a")["numbers_sha256"], "b": _stamp(results, "b")["numbers_sha256"]}
    lines = "".join(f"{n} {hashes[n]}\n" for n in sorted(hashes))
    combined = hashlib.sha256(lines.encode()).hexdigest()
    text = (results / "scorecard.md").read_text(encoding="utf-8")
    assert f"Numbers hash: `{combined}`" in text and "2 number tables (verify compares them and the scorecard: 3 tables)" in text
    sc_stamp = json.loads((results / "scorecard.stamp.json").read_text(encoding="utf-8"))
    assert sc_stamp["numbers_sha256"] == combined and sc_stamp["tables"] == hashes
    # the speed claim is not a scorecard row and its times are not in scorecard.csv
    assert len(df) == 1 and "0.12 s" not in (results / "scorecard.csv").read_text(encoding="utf-8")
    assert "Published numeric cells: 1 judged — 1 within noise" in text
    assert "## Speed claims" in text and "the papers' claims judged on our numbers: 1 holds, 0 fails" in text
    assert "0.12 s" in text
    assert len(pd.read_csv(results / "scorecard_timing.csv")) == 1


# ------------------------------------------------------------------------------ verify
def _verify(capsys, *args):
    code = verify.main(list(args))
    return code, capsys.readouterr().out


def test_verify_reports_identical_changed_missing_and_new_tables(results, tmp_path, capsys):
    ref = tmp_path / "reference" / "hashes.json"
    rep.save_table(_table(), "t1")
    rep.save_table(pd.DataFrame({"x": [1.5, 2.5]}), "t2")
    rep.save_table(pd.DataFrame({"cpu_s": [0.1]}), "t1_timing")
    code, out = _verify(capsys, "--reference", str(ref))
    assert code == 1 and "no reference" in out and "--update" in out
    code, out = _verify(capsys, "--reference", str(ref), "--update")
    assert code == 0 and ref.exists() and "reference written" in out
    data = json.loads(ref.read_text(encoding="utf-8"))
    assert set(data["tables"]) == {"t1", "t2"} and data["hash_digits"] == 8 and data["mode"] == "full"
    assert data["tables"]["t1"]["rows"][1] == ["Raker", "24.123457", "50", "003", "False"]

    code, out = _verify(capsys, "--reference", str(ref))
    assert code == 0 and "2 of 2 tables identical" in out

    rep.save_table(pd.DataFrame({"cpu_s": [9.9]}), "t1_timing")        # a time: never compared
    changed = _table()
    changed.loc[1, "mse_x1e3"] = 24.2
    rep.save_table(changed, "t1")
    code, out = _verify(capsys, "--reference", str(ref))
    assert code == 1 and "1 of 2 tables identical, 1 differs" in out
    assert "t1: row 2 (algorithm = Raker), column mse_x1e3: reference 24.123457 vs current 24.2" in out
    assert "t1: differs; 1 cell beyond rel 1e-06; largest relative deviation 0.0032" in out
    assert out.count("t1:") == 2 and "t2: identical at 8 significant digits" in out     # only that cell

    (results / "tables" / "t2.csv").unlink()
    rep.save_table(pd.DataFrame({"y": [1]}), "t3")
    code, out = _verify(capsys, "--reference", str(ref))
    assert code == 1 and "0 of 3 tables identical" in out
    assert "t2: missing from the current results" in out and "t3: not in the reference" in out


def test_verify_reports_shape_changes_and_limits_the_cells_shown(results, tmp_path, capsys):
    ref = tmp_path / "hashes.json"
    rep.save_table(pd.DataFrame({"k": range(30), "v": np.arange(30) / 7}), "big")
    assert _verify(capsys, "--reference", str(ref), "--update")[0] == 0
    rep.save_table(pd.DataFrame({"k": range(31), "v": np.arange(31) / 7 + 1, "w": 0.0}), "big")
    code, out = _verify(capsys, "--reference", str(ref), "--max-cells", "5")
    assert code == 1 and "added ['w']" in out and "30 rows in the reference vs 31 now" in out
    assert "big: differs; 30 cells beyond rel 1e-06" in out and "... and 25 more changed cells" in out
    assert out.count("column v:") == 5


def test_verify_passes_a_table_within_the_tolerance_and_names_its_largest_deviation(results, tmp_path, capsys):
    # a last-digit change of the 8 significant digits (a last-bit difference of another BLAS kernel,
    # rounded) passes with its deviation printed; a change in the 6th digit fails; a string never passes
    ref = tmp_path / "hashes.json"
    rep.save_table(_table(), "t1")
    rep.save_table(pd.DataFrame({"x": [1.5, 2.5]}), "t2")
    assert _verify(capsys, "--reference", str(ref), "--update")[0] == 0
    rep.save_table(pd.DataFrame({"x": [1.5, 2.5000001]}), "t2")
    code, out = _verify(capsys, "--reference", str(ref))
    assert code == 0, out
    assert ("1 of 2 tables identical, 1 within tolerance (largest relative deviation 4e-08 in t2, "
            "row 2 (x = 2.5000001), column x)") in out
    assert "t2: within tolerance (rel 1e-06), largest relative deviation 4e-08 (row 2 (x = 2.5000001), column x)" in out
    assert "numbers hash (fingerprint): current " in out and "the reference has " in out and "OpenBLAS kernel" in out
    rep.save_table(pd.DataFrame({"x": [1.5, 2.50001]}), "t2")
    code, out = _verify(capsys, "--reference", str(ref))
    assert code == 1 and "t2: differs; 1 cell beyond rel 1e-06" in out
    changed = _table()
    changed.loc[1, "paper"] = "004"
    rep.save_table(changed, "t1")
    rep.save_table(pd.DataFrame({"x": [1.5, 2.5]}), "t2")
    code, out = _verify(capsys, "--reference", str(ref))
    assert code == 1 and "t1: row 2 (algorithm = Raker), column paper: reference 003 vs current 004" in out
    rep.save_table(_table(), "t1")
    code, out = _verify(capsys, "--reference", str(ref))
    assert code == 0 and "2 of 2 tables identical (" in out and "the reference's" in out


def test_relative_deviation_of_cells_and_a_per_table_tolerance_with_its_reason(monkeypatch):
    from omkl_core.repro import hashes
    assert hashes.relative_deviation("2.5", "2.5000001") == pytest.approx(4e-8)
    assert hashes.relative_deviation("-1", "1") == 2.0 and hashes.relative_deviation("0", "0.0") == 0.0
    assert hashes.relative_deviation("nan", "1") == float("inf") and hashes.relative_deviation("<=1e-12", "3e-9") == float("inf")
    assert hashes.relative_deviation("nan", "nan") == 0.0 and hashes.relative_deviation("a", "b") == float("inf")
    assert all(t.rtol > 0 and len(t.reason.split()) >= 5 for t in hashes.TOLERANCES.values())   # each says why
    ref = {"t": {"sha256": "a", "roundoff": {}, "columns": ["x"], "rows": [["1.0"]]}}
    cur = {"t": {"sha256": "b", "roundoff": {}, "columns": ["x"], "rows": [["1.00001"]]}}
    assert hashes.compare(ref, cur).tables[0].status == hashes.DIFFERS
    monkeypatch.setitem(hashes.TOLERANCES, "t", hashes.Tolerance(1e-4, "a test of the override mechanism"))
    assert hashes.compare(ref, cur).tables[0].status == hashes.WITHIN


def test_verify_quick_reads_the_quick_results_and_the_scorecard(results, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("OMKL_RESULTS", str(results / "quick"))   # the notebooks of reproduce.sh --quick
    rep.set_mode("quick")
    rep.save_table(_table(), "q1")
    rows = pd.DataFrame([rep.cell_row("000", "Table 2", "VAW2", "Airfoil", 22.8, [22.0, 23.5])])
    rep.add_scorecard_rows("s", rows)
    rep.scorecard()
    monkeypatch.setenv("OMKL_RESULTS", str(results))        # verify --quick adds quick/ itself
    rep.save_table(_table(), "not_quick")                    # the full results: not read by --quick
    ref = tmp_path / "ref.json"
    code, out = _verify(capsys, "--quick", "--reference", str(ref), "--update")
    assert code == 0 and str(results / "quick") in out
    assert set(json.loads(ref.read_text(encoding="utf-8"))["tables"]) == {"q1", "scorecard"}
    rows = pd.DataFrame([rep.cell_row("000", "Table 2", "VAW2", "Airfoil", 22.8, [22.0, 24.5], quick=True)])
    monkeypatch.setenv("OMKL_RESULTS", str(results / "quick"))
    rep.add_scorecard_rows("s", rows)
    rep.scorecard()
    monkeypatch.setenv("OMKL_RESULTS", str(results))
    code, out = _verify(capsys, "--quick", "--reference", str(ref))
    assert code == 1 and "scorecard: row 1 (paper = 000), column reproduced_mean: reference 22.75 vs current 23.25" in out


def test_verify_without_results_or_with_a_foreign_reference_fails_clearly(results, tmp_path, capsys):
    code, out = _verify(capsys, "--reference", str(tmp_path / "r.json"))
    assert code == 1 and "no number tables" in out
    rep.save_table(_table(), "t")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": 1, "hash_digits": 6, "tables": {}}), encoding="utf-8")
    code, out = _verify(capsys, "--reference", str(bad))
    assert code == 1 and "rounded to 6 digits" in out
    with pytest.raises(SystemExit):
        verify.main(["--max-cells", "-1"])


def test_verify_runs_as_a_module(results):
    out = subprocess.run([sys.executable, "-m", "omkl_core.repro.verify", "--help"], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0 and "--update" in out.stdout and "--quick" in out.stdout


# ------------------------------------------------------------------------------ timing
def test_cpu_seconds_is_the_least_cpu_time_of_fresh_runs():
    calls, made = [], []

    def setup():
        made.append(len(made))
        return len(made)

    def run(k):
        calls.append(k)
        t0 = time.process_time()
        while time.process_time() - t0 < (0.03 if k == 2 else 0.005 * k + 0.02):
            pass

    t = timing.cpu_seconds(run, setup=setup, repeat=3)
    assert calls == [1, 2, 3] and made == [0, 1, 2]          # a fresh setup before every timed call
    assert 0.025 <= t < 0.03                                  # the least of ~0.025, 0.03, 0.035
    time.sleep(0.05)                                          # sleeping costs no CPU time
    assert timing.cpu_seconds(lambda: time.sleep(0.05), repeat=1) < 0.02
    with pytest.raises(ValueError, match="repeat"):
        timing.cpu_seconds(run, repeat=0)
    with pytest.raises(TypeError, match="run must be callable"):
        timing.cpu_seconds(3)
    with pytest.raises(TypeError, match="setup"):
        timing.cpu_seconds(run, setup=1)
