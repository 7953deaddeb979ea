"""The committed full run (``reproduction/``, issue 39): :func:`omkl_core.repro.committed.publish`
copies only a complete full run whose numbers are the reference's, never replaces a folder it did
not write, and :func:`~omkl_core.repro.committed.age` says whether the code changed since the run."""
from __future__ import annotations

import json
import subprocess

import pytest

pd = pytest.importorskip("pandas")
import omkl_core.repro as repro  # noqa: E402
from omkl_core.repro import committed  # noqa: E402

NOTEBOOKS = ("p000_vaw2", "p003_graph_aided")


def _checkout(tmp_path, monkeypatch, mode="full", *, notebooks=NOTEBOOKS, reference=True):
    """A checkout with two notebooks and a results folder of a ``mode`` run of them."""
    root = tmp_path / "checkout"
    (root / "notebooks").mkdir(parents=True)
    for n in NOTEBOOKS:
        (root / "notebooks" / f"{n}.ipynb").write_text("{}", encoding="utf-8")
    res = root / "results"
    monkeypatch.setenv("OMKL_RESULTS", str(res))
    monkeypatch.setenv("OMKL_MODE", mode)
    _git(root, "init", "-q")                    # publish checks that the run's commit is in the history
    _git(root, "add", "notebooks")
    _git(root, "commit", "-qm", "the run's code")
    sha = _git(root, "rev-parse", "--short=10", "HEAD")
    monkeypatch.setattr(repro.report, "_commit", lambda: sha)
    repro.report.save_table(pd.DataFrame({"a": [1.0, 2.0]}), "paper000_table2_variants")
    repro.report.save_table(pd.DataFrame({"algorithm": ["Raker"], "cpu_s_one_run": [0.5]}), "paper003_table1_timing")
    rows = pd.DataFrame([repro.report.claim_row("all", "leaderboard", "mixture <= 1.02 x best", True, kind="project")])
    repro.report.add_scorecard_rows("leaderboard_mixture", rows)
    speed = pd.DataFrame([repro.report.claim_row("003", "Tables 1-4", "SFG-MKL faster than Raker (text)", True,
                                                 kind="paper")])
    repro.report.add_scorecard_rows("paper003_speed_timing", speed)   # a speed claim: its own section (issue 50)
    repro.report.scorecard()
    (res / "timings.json").write_text(json.dumps({"notebooks": {n: {"mode": mode, "wall_s": 1.0} for n in notebooks}}),
                                      encoding="utf-8")
    if reference:
        repro.verify.write_reference(root / "reference" / "full" / "hashes.json", repro.verify.current_tables(res), "full")
    monkeypatch.setattr(committed, "ROOT", root)
    return root, res


def test_publish_copies_a_complete_full_run_with_its_stamp_and_headline(tmp_path, monkeypatch):
    root, res = _checkout(tmp_path, monkeypatch)
    dest = committed.publish(res, dest=root / "reproduction")
    assert committed.exists(dest)
    assert (dest / "tables" / "paper000_table2_variants.csv").is_file() and (dest / "scorecard.csv").is_file()
    assert not list((dest / "tables").glob("*.md"))                    # the CSV and its stamp only
    readme = (dest / "README.md").read_text(encoding="utf-8")
    assert "Claims, this project's own claims: 1 holds, 0 fails." in readme
    assert "1 number table (verify compares them and the scorecard: 2 tables)" in readme
    assert repro.counts.of(dest).number_tables == repro.counts.of(res).number_tables
    assert json.loads((dest / "scorecard.stamp.json").read_text())["results"].startswith("reproduction/")


@pytest.mark.parametrize("case", ["quick", "incomplete", "numbers differ", "foreign folder"])
def test_publish_refuses_what_is_not_the_reference_full_run_and_writes_nothing(tmp_path, monkeypatch, case):
    kw = {"quick": {"mode": "quick"}, "incomplete": {"notebooks": NOTEBOOKS[:1]}}.get(case, {})
    root, res = _checkout(tmp_path, monkeypatch, **kw)
    dest = root / "reproduction"
    if case == "numbers differ":
        repro.report.save_table(pd.DataFrame({"a": [1.0, 2.5]}), "paper000_table2_variants")
    if case == "foreign folder":
        dest.mkdir()
        (dest / "notes.txt").write_text("mine", encoding="utf-8")
    why = {"quick": "not a full run", "incomplete": "not run in full mode: p003_graph_aided",
           "numbers differ": "1 of 2 tables identical", "foreign folder": "not a committed run"}[case]
    with pytest.raises(committed.PublishError, match=why):
        committed.publish(res, dest=dest)
    assert (dest / "notes.txt").is_file() if case == "foreign folder" else not dest.exists()
    assert not [p for p in root.iterdir() if p.name.startswith(".reproduction")]


def _git(root, *args):
    return subprocess.run(["git", "-C", str(root), "-c", "user.email=t@t", "-c", "user.name=t", *args],
                          capture_output=True, text=True, check=True).stdout.strip()


def test_age_says_whether_the_code_changed_since_the_committed_run(tmp_path, monkeypatch):
    root, res = _checkout(tmp_path, monkeypatch)
    (root / "omkl_core").mkdir()
    (root / "omkl_core" / "vaw.py").write_text("x = 1\n", encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "omkl_core", "notebooks")
    _git(root, "commit", "-qm", "code")
    sha = _git(root, "rev-parse", "--short=10", "HEAD")
    dest = committed.publish(res, dest=root / "reproduction")
    stamp = json.loads((dest / "scorecard.stamp.json").read_text())
    (dest / "scorecard.stamp.json").write_text(json.dumps({**stamp, "commit": sha}), encoding="utf-8")
    now = committed.age(dest)
    assert now.current is True and "it is the run of this code" in now.sentence()
    (root / "omkl_core" / "vaw.py").write_text("x = 2\n", encoding="utf-8")       # the code moves on
    later = committed.age(dest)
    assert later.current is False and later.changed == ("omkl_core/vaw.py",)
    assert "older than the code: 1 file(s) changed since (omkl_core/vaw.py)" in later.sentence()
    (dest / "scorecard.stamp.json").write_text(json.dumps({**stamp, "commit": "0123456789"}), encoding="utf-8")
    assert committed.age(dest).current is None and "cannot be told" in committed.age(dest).sentence()


def test_compare_scorecard_passes_the_committed_numbers_within_tolerance_and_fails_a_changed_verdict(
        tmp_path, monkeypatch, capsys):
    root, res = _checkout(tmp_path, monkeypatch)
    rows = pd.DataFrame([repro.report.cell_row("000", "Table 2", "VAW2", "Airfoil", 22.8, [22.0, 23.5])])
    repro.report.add_scorecard_rows("p000", rows)
    repro.report.scorecard()
    repro.verify.write_reference(root / "reference" / "full" / "hashes.json", repro.verify.current_tables(res), "full")
    dest = committed.publish(res, dest=root / "reproduction")
    assert committed.compare_scorecard(res, dest).status == "identical"
    card = (res / "scorecard.csv").read_text(encoding="utf-8")
    assert ",22.75," in card and ",holds," in card
    (res / "scorecard.csv").write_text(card.replace(",22.75,", ",22.750001,"), encoding="utf-8")   # 4e-8 relative
    out = committed.compare_scorecard(res, dest)
    assert out.status == "within tolerance" and "column reproduced_mean" in out.where
    (res / "scorecard.csv").write_text(card.replace(",holds,", ",fails,"), encoding="utf-8")      # a verdict
    out = committed.compare_scorecard(res, dest)
    assert out.status == "differs" and any("column verdict: reference holds vs current fails" in x for x in out.problems)
    monkeypatch.setattr(committed, "FOLDER", dest)
    assert committed.main(["compare", "--results", str(res)]) == 1
    assert "differs" in capsys.readouterr().out
    assert committed.main(["compare", "--results", str(tmp_path / "none")]) == 1
    assert "compare: error: no scorecard in" in capsys.readouterr().err
